"""Benchmark (issue 48's trials table): single bit flips in a journal's segments.

Each seeded trial plays a 600-event journal (the real firmware journal and USB link, in-process,
on RAM storage), flips one bit at a random place of a random segment (header or lines), boots
(recover) and runs the idle scrub (journalfix.scrub; the second row: without it), then
back-fills everything into a fresh SQLite store through the logger's Ingest and runs `dicepod
verify` on it. Prints flips tried, boots (recover and scrub without an exception), events lost,
events lost without a mark (a break the device's chain vouches for), and verify passes.
Flips in the file system's metadata and the settings need the emulated Pico (not here).

    .venv/bin/python tools/bench_flips.py [TRIALS]
"""

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from measurements import record  # noqa: E402
from test_trust import _flip_trial  # noqa: E402


def main() -> None:
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    lines = [
        "| idle scrub | flips tried | boots | events lost | lost without a mark | verify passes |",
        "|---|---|---|---|---|---|",
    ]
    for scrub in (True, False):
        rng = random.Random(4848)
        tried = boots = lost = unmarked = passes = 0
        for _ in range(trials):
            tried += 1
            try:
                n, bad, report = _flip_trial(rng, scrub=scrub)
            except Exception as err:  # a boot that raised is a finding, not a crash
                print("trial %d raised %s" % (tried, err))
                continue
            boots += 1
            lost += n
            unmarked += bad
            passes += report.ok
        lines.append(
            "| %s | %d | %d | %d | %d | %d |"
            % ("yes" if scrub else "no", tried, boots, lost, unmarked, passes)
        )
    print("\n".join(lines))
    record("bench_flips", lines, note="journal segments of a 600-event journal, seed 4848")


if __name__ == "__main__":
    main()
