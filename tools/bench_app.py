"""Benchmark: the app's heap under the real MicroPython unix port.

Plays the scripted sessions of every mode twice on CPython, records the button presses, and
replays them under MicroPython (firmware compiled to .mpy as the deploy tool installs it,
heap capped like a Pico's 190 KB) on a minimal board. Prints the live heap after boot, after
each round of every mode (equal numbers = no growth), and the bytes allocated per button press
(gc.mem_alloc deltas, collected before each press; a press that loads a mode's modules
allocates the most). Also the smallest heap each mode's session runs in (1 KB steps, found
by bisection, then checked at larger caps: more room must never fail), and where the bytes
go: the live heap each firmware module adds when imported, and the qstr pool. Prints; asserts
nothing.

Caveat: the replay's board is minimal (a bare frame buffer, file storage, no USB link, no
power driver), so the smallest heaps are the app's own; the last of them is the same session
on the device board (tests/portable/app_device.py: the Pico's real drivers and USB link on
stand-ins), and the last module group printed is what those drivers' code adds.

Caveat: the unix port is a 64-bit build. Pointers, object headers and GC blocks (32 bytes,
a Pico's are 16) are twice a Pico's, so every number here is roughly double what the same
firmware holds on a Pico.

    .venv/bin/python tools/bench_app.py
"""

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from app_heap import EVERY_MODE, build_mpy, record, replay  # noqa: E402

# Smallest-heap search range (KB) and the larger caps it is checked at afterwards.
_LOWEST_KB = 32
_HIGHEST_KB = 190
_ABOVE_KB = (1, 2, 4, 8, 16, 32)
# The per-module costs: the boot modules (what the shell keeps), then each mode's (and the
# passing screens'), each group imported after the boot ones in a fresh interpreter.
_BOOT = (
    "dicepod.replay dicepod.journal dicepod.settings dicepod.rules.modes dicepod.ui.screen "
    "dicepod.ui.draw dicepod.ui.lists dicepod.ram dicepod.session dicepod.app "
    "dicepod.drivers.storage"
)
_GROUPS = (
    "dicepod.rules.free dicepod.ui.free",
    "dicepod.rules.tn dicepod.ui.tests",
    "dicepod.rules.dice dicepod.rules.odds dicepod.rules.battle dicepod.ui.battle",
    "dicepod.rules.bag dicepod.rules.specs dicepod.rules.deck dicepod.rules.tyranid "
    "dicepod.ui.coop dicepod.ui.tyranid",
    "dicepod.rules.bag dicepod.rules.specs dicepod.rules.orks dicepod.ui.coop dicepod.ui.orks",
    "dicepod.ui.menu dicepod.ui.gamemenu dicepod.ui.ask dicepod.ui.settings dicepod.ui.history "
    "dicepod.ui.message",
    # The Pico's drivers and USB link: not on the replay's minimal board (the heap test and the
    # smallest heaps above), in RAM on a device for good.
    "dicepod.protocol dicepod.drivers.usb dicepod.drivers.display dicepod.drivers.buttons "
    "dicepod.drivers.power dicepod.drivers.rng dicepod.drivers.beeper dicepod.board",
)
# Runs under MicroPython: import the modules, print the heap each adds (a step in the qstr
# pool, which is never freed, lands on whichever module crosses it), then the qstr pool.
_COSTS = """
import gc, sys, micropython
for name in sys.argv[1:]:  # one argument a module (the unix port fails on one of 256+ chars)
    gc.collect()
    before = gc.mem_alloc()
    __import__(name)
    gc.collect()
    print("%-26s %6d" % (name, gc.mem_alloc() - before))
micropython.qstr_info()
"""


def module_costs(mpy, work):
    """Print the heap each firmware module adds when imported (unix port, .mpy)."""
    import subprocess

    from harness import micropython_bin

    script = work / "costs.py"
    script.write_text(_COSTS)
    env = {"MICROPYPATH": ".frozen:%s" % mpy, "PATH": "/usr/bin:/bin"}
    skip = 0
    for group in _GROUPS:
        args = [micropython_bin(), "-X", "heapsize=400k", str(script)]
        args += (_BOOT + " " + group).split()
        out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
        lines = (out.stdout + out.stderr).splitlines()
        for line in lines[skip:]:
            print("  " + line)
        skip = len(_BOOT.split())  # the boot modules once
        print("  --")


def smallest_heap(mpy, work, sessions, device=False):
    """Return (smallest cap in KB the sessions replay in identically, [larger caps that fail]),
    or (None, []) when even _HIGHEST_KB fails."""
    buttons, journal, _marks = record(sessions)

    def runs(cap):
        out, written = replay(mpy, buttons, work, "%dk" % cap, device=device)
        return out.returncode == 0 and written == journal

    if not runs(_HIGHEST_KB):
        return None, []
    low, high = _LOWEST_KB, _HIGHEST_KB  # low fails (or is untried), high runs
    while high - low > 1:
        middle = (low + high) // 2
        if runs(middle):
            high = middle
        else:
            low = middle
    failing = [high + step for step in _ABOVE_KB if not runs(high + step)]
    return high, failing


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
        print("smallest heap each session runs in (unix port, .mpy, 1 KB steps; goal 96 KB):")
        runs = [((mode,), False) for mode in EVERY_MODE[:-1]]
        runs += [(EVERY_MODE, False), (EVERY_MODE, True)]
        for sessions, device in runs:
            cap, failing = smallest_heap(mpy, tmp / "device", sessions, device)
            name = "every mode" if len(sessions) > 1 else sessions[0]
            if device:
                name += " on the device board (the Pico's drivers and USB link):"
            text = "%d KB" % cap if cap else "over %d KB" % _HIGHEST_KB
            if cap:
                text += (
                    ", yet FAILS at %s KB" % ", ".join(str(k) for k in failing)
                    if failing
                    else " (and at +%s KB)" % ", +".join(str(k) for k in _ABOVE_KB)
                )
            print("  %-10s %s" % (name, text))
        print("heap each module adds when imported (bytes; unix port, .mpy; a mode's group is")
        print("dropped before the next, the boot group stays):")
        module_costs(mpy, tmp)
    return 0


if __name__ == "__main__":
    from bench import recorded

    sys.exit(recorded("bench_app", main))
