"""Benchmark: time to compute the exact Battle Game bust odds for every state (1..6 dice
re-rolled next to every kept multiset, both settings of "kept dice alone can score") and the
keep hint for every set of free dice, on CPython and on the real MicroPython unix port (heap
capped like a Pico's). Prints numbers, asserts nothing. Goal: <= 2 ms per state on the unix
port (about a tenth of a second on a Pico).

    python tools/bench_odds.py          (or ./dev bench odds)

The same file is the MicroPython side: run with `--inner` it only measures and prints.
"""

import sys
import time

try:
    _ticks_us = time.ticks_us  # type: ignore[attr-defined]  # MicroPython
    _ticks_diff = time.ticks_diff  # type: ignore[attr-defined]

    def _now():
        return _ticks_us()

    def _since(start):
        return _ticks_diff(_ticks_us(), start)

except AttributeError:  # CPython

    def _now():
        return time.perf_counter()

    def _since(start):
        return (time.perf_counter() - start) * 1e6


def _states():
    """Yield every (m re-rolled, kept) state; streamed, a Pico-sized heap holds no list."""
    from dicepod.rules.dice import multisets

    for m in range(1, 7):
        for k in range(7 - m):
            for kept in multisets(k):
                yield m, kept


def measure():
    """Time every state and every keep hint; print one line each."""
    from dicepod.rules import odds
    from dicepod.rules.dice import multisets

    for setting in (0, 1):
        total = worst = 0.0
        worst_state = None
        per_m = [0.0] * 7
        count_m = [0] * 7
        start_all = _now()
        n = 0
        for m, kept in _states():
            n += 1
            start = _now()
            odds.bust(m, kept, setting)
            spent = _since(start)
            total += spent
            per_m[m] += spent
            count_m[m] += 1
            if spent > worst:
                worst, worst_state = spent, (m, kept)
        wall = _since(start_all)
        print(
            "  bust odds, kept can score=%d: %d states in %.1f ms (%.1f ms wall), "
            "mean %.1f us, max %.1f us at reroll %d kept %s"
            % (
                setting,
                n,
                total / 1000,
                wall / 1000,
                total / n,
                worst,
                worst_state[0] if worst_state else 0,
                list(worst_state[1]) if worst_state else [],
            )
        )
        print(
            "    mean us by dice re-rolled 1..6: %s"
            % " ".join(["%.1f" % (per_m[m] / count_m[m]) for m in range(1, 7)])
        )
    for free in (5, 6):
        for setting in (0, 1):
            total = worst = 0.0
            n = 0
            for dice in multisets(free):
                start = _now()
                odds.best_keep(dice, setting)
                spent = _since(start)
                total += spent
                worst = max(worst, spent)
                n += 1
            print(
                "  keep hint for %d free dice, kept can score=%d: %d multisets, "
                "mean %.1f us, max %.1f us" % (free, setting, n, total / n, worst)
            )


def main():
    """Measure here (CPython), then under MicroPython; print both."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "tests"))
    sys.path.insert(0, str(root / "firmware"))
    from harness import PICO_HEAP, run_micropython

    print("CPython %s:" % sys.version.split()[0], flush=True)
    measure()
    print("MicroPython unix port (heap %s):" % PICO_HEAP, flush=True)
    out = run_micropython([str(Path(__file__).resolve()), "--inner"], heap=PICO_HEAP)
    sys.stdout.write(out.stdout)
    if out.returncode:
        sys.stdout.write(out.stderr)
        return 1
    return 0


if __name__ == "__main__":
    if "--inner" in sys.argv:
        measure()
    else:
        from bench import recorded

        sys.exit(recorded("bench_odds", main))
