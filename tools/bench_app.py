"""Benchmark: the app's heap under the real MicroPython unix port.

Plays the scripted sessions of every mode twice on CPython, records the button presses, and
replays them under MicroPython (firmware compiled to .mpy as the deploy tool installs it,
heap capped like a Pico's 190 KB) on a minimal board. Prints the live heap after boot, after
each round of every mode (equal numbers = no growth), and the bytes allocated per button press
(gc.mem_alloc deltas, collected before each press; a press that loads a mode's modules
allocates the most). Also the smallest heap each mode's session runs in. Prints; asserts
nothing.

    .venv/bin/python tools/bench_app.py
"""

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from app_heap import EVERY_MODE, build_mpy, record, replay  # noqa: E402

_CAPS_KB = (64, 72, 80, 88, 96, 104, 112, 120, 128, 144, 160, 176, 190)


def smallest_heap(mpy, work, sessions):
    """Return the smallest cap (KB) of _CAPS_KB the sessions replay in identically, or None."""
    buttons, journal, _marks = record(sessions)
    for cap in _CAPS_KB:
        out, written = replay(mpy, buttons, work, "%dk" % cap)
        if out.returncode == 0 and written == journal:
            return cap
    return None


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        mpy = build_mpy(tmp / "mpy")
        buttons, journal, marks = record(EVERY_MODE, rounds=2, history=True)
        out, written = replay(mpy, buttons, tmp / "device", "190k", report=True, marks=marks)
        print("every mode, two rounds, heap capped at 190 KB (a Pico's), firmware as .mpy:")
        for line in out.stdout.splitlines():
            print("  " + line)
        same = "identical to CPython's" if written == journal else "DIFFERENT from CPython's"
        print("  journal: %d bytes, %s" % (len(written), same))
        print("smallest heap each session runs in (unix port, .mpy):")
        for sessions in [(mode,) for mode in EVERY_MODE[:-1]] + [EVERY_MODE]:
            cap = smallest_heap(mpy, tmp / "device", sessions)
            name = "every mode" if len(sessions) > 1 else sessions[0]
            print("  %-10s %s" % (name, "%d KB" % cap if cap else "over 190 KB"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
