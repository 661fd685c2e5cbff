"""Benchmark of the co-operative and test game modules under real MicroPython: bytes allocated
per folded event (gc.mem_alloc deltas with the collector off) and events folded per second.

For each mode a seeded bot first records a session of events (the same compact bots as
tests/test_long_sessions.py); then a fresh Game folds them while allocation is measured. The
modules are precompiled with mpy-cross, as on the device. Run: `./dev bench rules` or
`python tools/bench_rules.py [EVENTS]`. The unix port is 64-bit: object sizes there are about
twice a Pico's, so the bytes are an upper bound for the RP2040.
"""

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from harness import run_micropython  # noqa: E402
from test_long_sessions import SCRIPT, compile_modules  # noqa: E402

MODES = ("tests", "tyranid", "orks")

# Appended to the long-session script (which defines game, step, module and the settings):
# record `total` events with the bot, then fold them into a fresh Game and measure.
_BENCH = r"""
import gc as _gc
events = []
probe = module.Game(game.settings)
for _ in range(total):
    event = step(probe)
    probe.apply(event)
    events.append(event)
fresh = module.Game(Settings(module.SETTINGS, dict(game.settings.values)))
_gc.collect()
_gc.disable()
before = _gc.mem_alloc()
t0 = time.ticks_us()
for event in events:
    fresh.apply(event)
us = time.ticks_diff(time.ticks_us(), t0)
allocated = _gc.mem_alloc() - before
_gc.enable()
print("BENCH %s events=%d bytes=%d us=%d" % (mode, len(events), allocated, us))
"""


def _script():
    """The long-session script cut before its own loop, plus the measuring loop."""
    head = SCRIPT.split('step = {"tests"')[0]
    tail = 'step = {"tests": step_tests, "tyranid": step_tyranid, "orks": step_orks}[mode]\n'
    return head + tail + _BENCH


def main(argv):
    """Print bytes allocated per event and events/s for each mode; return the exit code."""
    total = int(argv[0]) if argv else 2000
    print("mode      events  bytes/event  events/s   (MicroPython unix port, 64-bit)")
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "bench.py").write_text(_script())
        for mode in MODES:
            compile_modules(folder, mode)
            # A large heap: the recorded events must fit; the fold itself is what is measured.
            args = [str(folder / "bench.py"), mode, "3", str(total), str(total)]
            out = run_micropython(args, heap="4m")
            line = [x for x in out.stdout.splitlines() if x.startswith("BENCH ")]
            if out.returncode or not line:
                print("%-8s  failed: %s" % (mode, (out.stdout + out.stderr)[-400:]))
                failed += 1
                continue
            fields = dict(part.split("=") for part in line[0].split()[2:])
            events, allocated, us = int(fields["events"]), int(fields["bytes"]), int(fields["us"])
            print(
                "%-8s  %6d  %11.1f  %8.0f"
                % (mode, events, allocated / events, events * 1e6 / max(us, 1))
            )
    return 1 if failed else 0


if __name__ == "__main__":
    from bench import recorded

    sys.exit(recorded("bench_rules", main, sys.argv[1:]))
