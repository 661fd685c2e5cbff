"""The portable suite (tests/portable/test_*.py) under real MicroPython with a Pico-sized heap,
running the firmware compiled to .mpy as a Pico does (the test modules themselves compile from
source), compared with CPython: every test_* must pass on both, and every result_* must return
the same value on both. pytest also collects the portable tests directly under CPython."""

import json
import subprocess
import sys

import pytest
from harness import PICO_HEAP, PORTABLE, ROOT, mp_env, parse_runner_output, run_micropython

MODULES = sorted(p.stem for p in PORTABLE.glob("test_*.py"))


def _cpython(module):
    out = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "mp_runner.py"), module],
        env=mp_env(),
        capture_output=True,
        text=True,
        timeout=600,
        cwd=PORTABLE,
    )
    return out


@pytest.mark.parametrize("module", MODULES)
def test_portable_module_matches_cpython(module):
    mp = run_micropython(
        [str(ROOT / "tests" / "mp_runner.py"), module], heap=PICO_HEAP, compiled=True
    )
    mp_status, mp_results = parse_runner_output(mp.stdout)
    assert mp.returncode == 0, "MicroPython run failed:\n" + mp.stdout[-4000:] + mp.stderr[-2000:]
    cp = _cpython(module)
    cp_status, cp_results = parse_runner_output(cp.stdout)
    assert cp.returncode == 0, "CPython run failed:\n" + cp.stdout[-4000:] + cp.stderr[-2000:]
    assert mp_status == cp_status
    assert set(mp_status.values()) == {"PASS"}
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
