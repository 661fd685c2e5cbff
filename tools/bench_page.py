"""Benchmark: a game's page (History → a game, dicepod.ui.historypage), built under the
MicroPython unix port from the journal of the scripted sessions.

The page is built in the pass after the press that opens it, behind the Loading... band
(app.later): a finger that comes back before it is done waits for it, so its time is what a
long game's page costs a player. Each session of tests/portable/app_sessions.py is played on
the portable test board in MicroPython, then every listed game's page is built 5 times; the
best time is printed (ms on this PC: a Pico runs MicroPython some 25 to 40 times slower), with
the part spent reading the game's events from the journal (historypage.events). Written to
docs/MEASUREMENTS.md.

    .venv/bin/python tools/bench_page.py
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from harness import run_micropython  # noqa: E402

# Runs under MicroPython in tests/portable: plays the sessions, then times every listed page.
_SCRIPT = """
import time
from app_board import Board
from app_sessions import every_mode
from dicepod.app import App
from dicepod.ui import historypage
from dicepod.ui.history import scan

app = App(Board(seed=11))
app.start()
every_mode(app)
games, boots = scan(app.session.journal)


def best(call):
    low = None
    for _ in range(5):
        start = time.ticks_us()
        call()
        took = time.ticks_diff(time.ticks_us(), start)
        low = took if low is None else min(low, took)
    return low / 1000


for game in games:
    count = len(list(historypage.events(app.session.journal, game)))
    read = best(lambda: list(historypage.events(app.session.journal, game)))
    page = best(lambda: historypage.current(app, game, boots))
    print("PAGE %s %d %.2f %.2f" % (game[1], count, page, read))
"""


def main():
    out = run_micropython(["-c", _SCRIPT], heap="4m", compiled=True)
    if out.returncode != 0:
        print(out.stdout, out.stderr)
        return 1
    head = "| game | events | page ms | reading its events ms |"
    lines = [
        "A game's page built under the MicroPython unix port (this PC: a Pico is some 25-40x"
        " slower), best of 5.",
        "",
        head,
        "|---|---|---|---|",
    ]
    print(head)
    for line in out.stdout.splitlines():
        if line.startswith("PAGE "):
            _, mode, count, page, read = line.split()
            row = "| %s | %s | %s | %s |" % (mode, count, page, read)
            lines.append(row)
            print(row)
    from measurements import record

    record("bench_page", lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
