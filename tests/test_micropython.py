"""The portable suite (tests/portable/test_*.py) under real MicroPython with a Pico-sized heap,
running the firmware compiled to .mpy as a Pico does (the test modules themselves compile from
source), compared with CPython: every test_* must pass on both, and every result_* must return
the same value on both. pytest also collects the portable tests directly under CPython."""

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from harness import PICO_HEAP, PORTABLE, ROOT, cpython_env, parse_runner_output, run_micropython

MODULES = sorted(p.stem for p in PORTABLE.glob("test_*.py"))
# The app's sessions run with every screen's code resident, as on dicepod's build; the 64-bit
# unix port's objects are up to twice a Pico's, so they get a heap to match (the heap gates
# themselves are tests/test_app_heap.py and the emulated Pico's tests/test_pico_sessions.py).
APP_HEAP = "288k"
# The modules that play the whole App (its sessions, the rules' conformance through its
# buttons, generated boots, every menu through the display drivers), beside the pure modules
# that get a Pico's heap.
APP_MODULES = ("test_app_", "test_conform_", "test_boot_", "test_drivers_app_")


def _cpython(module):
    out = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "mp_runner.py"), module],
        env=cpython_env(),
        capture_output=True,
        text=True,
        timeout=600,
        cwd=PORTABLE,
    )
    return out


@pytest.mark.parametrize("module", MODULES)
def test_portable_module_matches_cpython(module, record_property):
    mp = run_micropython(
        [str(ROOT / "tests" / "mp_runner.py"), module],
        heap=APP_HEAP if module.startswith(APP_MODULES) else PICO_HEAP,
        compiled=True,
    )
    mp_status, mp_results = parse_runner_output(mp.stdout)
    assert mp.returncode == 0, "MicroPython run failed:\n" + mp.stdout[-4000:] + mp.stderr[-2000:]
    cp = _cpython(module)
    cp_status, cp_results = parse_runner_output(cp.stdout)
    assert cp.returncode == 0, "CPython run failed:\n" + cp.stdout[-4000:] + cp.stderr[-2000:]
    assert mp_status.keys() == cp_status.keys()
    assert set(mp_status.values()) <= {"PASS", "SKIP"}
    # A test may skip on one interpreter (checks.skip), never on both: each one runs somewhere.
    assert [n for n in mp_status if mp_status[n] == cp_status[n] == "SKIP"] == []
    skipped = [line[5:] for line in mp.stdout.splitlines() if line.startswith("SKIP ")]
    record_property("micropython_skipped", skipped)  # listed in the summary (conftest.py)
    assert mp_results.keys() == cp_results.keys()
    for name in mp_results:
        assert json.loads(mp_results[name]) == json.loads(cp_results[name]), name


def test_compiled_firmware_is_what_runs():
    out = run_micropython(["-c", "import dicepod.app as a; print(a.__file__)"], compiled=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("dicepod/app.mpy")


def test_harness_really_is_micropython():
    out = run_micropython(["-c", "import sys; print(sys.implementation.name)"])
    assert out.stdout.strip() == "micropython"


def test_heap_cap_is_real():
    # Allocating more than the cap must raise MemoryError under MicroPython.
    out = run_micropython(["-c", "b = bytearray(100 * 1024)"], heap="64k")
    assert out.returncode != 0 and "MemoryError" in out.stderr + out.stdout


# A checkout at each of these path lengths (CI and users clone anywhere): before the runs named
# every file by its relative path in a stage (harness._stage), the path's length moved what the
# heap held, and test_drivers_display failed with a MemoryError at 14, 18, 20, 22 and 24.
CHECKOUT_LENGTHS = (14, 18, 20, 22, 24, 80)


def _heap_after(checkout, module):
    """Run module under MicroPython from checkout's own harness; return its HEAP line."""
    code = "import sys, harness; r = harness.run_micropython(sys.argv[1:], compiled=True)\n"
    code += "print(r.stdout, r.stderr)"
    out = subprocess.run(
        [sys.executable, "-c", code, str(checkout / "tests" / "mp_runner.py"), module],
        cwd=checkout / "tests",
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "0 failed" in out.stdout, out.stdout[-3000:]
    return [line for line in out.stdout.splitlines() if line.startswith("HEAP ")]


def test_heap_is_the_same_wherever_the_checkout_lives():
    # The live heap at the end of a run (mp_runner's HEAP line: bytes in use and free, after
    # gc.collect) is the same to the byte from copies of the checkout at several path lengths:
    # nothing in the heap depends on where the checkout is.
    modules = ("test_drivers_display", "test_journal")
    expected = {m: _heap_after(ROOT, m) for m in modules}
    base = Path(tempfile.mkdtemp(prefix="d", dir="/tmp"))  # /tmp/dXXXXXXXX: 14 characters
    try:
        for length in CHECKOUT_LENGTHS:
            checkout = base if length == len(str(base)) else base / ("c" * (length - 15))
            assert len(str(checkout)) == length
            for part in ("firmware", "tests", "host/dicepod_host/fakeboard"):
                shutil.copytree(
                    ROOT / part,
                    checkout / part,
                    ignore=shutil.ignore_patterns("__pycache__"),
                )
            (checkout / "build").symlink_to(ROOT / "build")  # the compiled firmware, cached
            for module in modules:
                if module == "test_journal" and length not in (14, 80):
                    continue  # the slow module at the shortest and a long path only
                assert _heap_after(checkout, module) == expected[module], (length, module)
    finally:
        shutil.rmtree(base)
