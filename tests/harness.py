"""Helpers to run code under the real MicroPython unix port (installed into the venv by
./dev setup). The heap is capped near a Pico's; MICROPYPATH puts the firmware, the portable
tests and the fake `machine` (tests/fakes) on the import path, with `.frozen` first."""

import os
import shutil
import subprocess
import sys
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


def mp_env(extra_path=()):
    """Environment for a MicroPython child: import path with .frozen first."""
    env = dict(os.environ)
    parts = [".frozen", str(FIRMWARE), str(PORTABLE), str(FAKES)] + [str(p) for p in extra_path]
    env["MICROPYPATH"] = ":".join(parts)
    # The same path for a CPython child running tests/mp_runner.py (the comparison's other side).
    host = [str(PORTABLE), str(FIRMWARE), str(ROOT / "host")] + [str(p) for p in extra_path]
    env["PYTHONPATH"] = ":".join(host)
    return env


def run_micropython(args, heap=PICO_HEAP, timeout=600, extra_path=(), input=None, cwd=None):
    """Run `micropython -X heapsize=HEAP ARGS`; return the CompletedProcess (text mode)."""
    cmd = [micropython_bin(), "-X", "heapsize=%s" % heap] + list(args)
    return subprocess.run(
        cmd,
        env=mp_env(extra_path),
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
