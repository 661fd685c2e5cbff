"""Tiny test runner for real MicroPython (it has no unittest/pytest).

Usage: micropython tests/mp_runner.py MODULE [MODULE ...]
Imports each module, calls every test_* function (assertions) and every result_* function
(whose return value, printed as JSON, is compared with CPython's by tests/test_micropython.py).
Prints one line per function (PASS, FAIL, or SKIP with the reason a test gave checks.skip), the
live heap at the end, and `N passed, N failed, N skipped`; exits 1 on any failure or when
nothing passed. Runs under CPython too, which is how the comparison gets CPython's side.
"""

import gc
import json
import sys

from checks import Skip


def _print_exception(exc):
    if hasattr(sys, "print_exception"):
        sys.print_exception(exc)  # MicroPython
    else:
        import traceback

        traceback.print_exception(type(exc), exc, exc.__traceback__)


def _fresh_board():
    """Start the next test on a fresh board: the fake machine lists every I2C bus made so far
    (machine.BUSES, for tests/board_smoke.py), and each bus holds its OLED's image and its write
    log, so without this a module's earlier tests stay in the heap (test_drivers_display's 13
    tests held 113 KB of buses at the end)."""
    machine = sys.modules.get("machine")
    buses = getattr(machine, "BUSES", None)
    if buses is not None:
        buses.clear()


def run(names):
    """Run the named modules' test_* and result_* functions; return (passed, failed, skipped)."""
    passed = failed = skipped = 0
    for name in names:
        module = __import__(name)
        for attr in sorted(dir(module)):
            if not (attr.startswith("test_") or attr.startswith("result_")):
                continue
            function = getattr(module, attr)
            if not callable(function):
                continue
            try:
                value = function()
                if attr.startswith("result_"):
                    print("RESULT %s.%s %s" % (name, attr, json.dumps(value)))
                print("PASS %s.%s" % (name, attr))
                passed += 1
            except Skip as exc:
                print("SKIP %s.%s %s" % (name, attr, exc))
                skipped += 1
            except Exception as exc:  # report every failure, keep going
                print("FAIL %s.%s %r" % (name, attr, exc))
                _print_exception(exc)
                failed += 1
            _fresh_board()
            gc.collect()
    gc.collect()
    if hasattr(gc, "mem_alloc"):
        print("HEAP alloc=%d free=%d" % (gc.mem_alloc(), gc.mem_free()))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return passed, failed, skipped


if __name__ == "__main__":
    _passed, _failed, _skipped = run(sys.argv[1:])
    sys.exit(1 if _failed or not _passed else 0)
