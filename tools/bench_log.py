"""Benchmark of the PC log: ingest speed (events per second from a pty into SQLite, through the
real `dicepod log` engine and pyserial) and verify speed (events per second checked: checksums,
hash chain, dice, and folding through the rules modules). Goals: ingest >= 5,000/s, verify >=
20,000/s. Prints the numbers; exits 0 (a benchmark reports, it does not gate).

    python tools/bench_log.py [EVENTS]
"""

import os
import sys
import tempfile
import threading
import time
import tty
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for sub in ("firmware", "host", "tests", "tests/portable"):
    sys.path.insert(0, str(ROOT / sub))

import loggen  # noqa: E402  (tests/loggen.py: legal games from the real rules modules)

from dicepod_host import logger, verify  # noqa: E402
from dicepod_host.store import Store  # noqa: E402

INGEST_GOAL = 5000
VERIFY_GOAL = 20000


def make_lines(n_events):
    """Protocol lines of whole games (Free roll, Battle Game, Tests) adding up to ~n_events."""
    games = []
    total = 0
    seed = 1
    while total < n_events:
        for events in (
            loggen.free_game(seed, rolls=200),
            loggen.battle_game(seed, turns=60),
            loggen.tests_game(seed, rolls=100),
        ):
            games.append(events)
            total += len(events)
        seed += 1
    return loggen.build(games, dev="bench001")[1]


class _Timing:
    """A logger view that notes when the first and the last new event were stored, and starts
    the device once the port is open (pyserial empties the input buffer when it opens)."""

    def __init__(self, start_device):
        self.first = None
        self.last = None
        self.count = 0
        self.start_device = start_device

    def event(self, _obj):
        now = time.perf_counter()
        if self.first is None:
            self.first = now
        self.last = now
        self.count += 1

    def update(self, _ingest):
        if self.start_device:
            self.start_device.start()
            self.start_device = None


def bench_ingest(lines, workdir):
    """Write the lines into a pty as fast as it takes them; log them; return events/s."""
    master, slave = os.openpty()
    tty.setraw(slave)
    tty.setraw(master)
    data = b"".join(lines)

    def device():
        view = memoryview(data)
        while view:
            written = os.write(master, view[:4096])
            view = view[written:]

    store = Store(Path(workdir) / "bench.db")
    writer = threading.Thread(target=device, daemon=True)
    timing = _Timing(writer)
    try:
        ingest = logger.run(os.ttyname(slave), store, view=timing, idle_exit=1.0)
    finally:
        if writer.ident is not None:
            writer.join(10)
        store.close()
        os.close(master)
        os.close(slave)
    stored = Store(Path(workdir) / "bench.db", create=False)
    count = stored.count()
    stored.close()
    seconds = (timing.last - timing.first) if timing.count > 1 else float("nan")
    return count, ingest.counts["new"], seconds


def bench_verify(lines, workdir):
    """Verify an exported JSON Lines log of the lines; return (events, seconds, report)."""
    path = Path(workdir) / "bench.jsonl"
    path.write_bytes(b"".join(lines))
    start = time.perf_counter()
    report = verify.verify_path(path)
    seconds = time.perf_counter() - start
    return report.events, seconds, report


def main(argv):
    """Run both benchmarks and print their numbers."""
    n = int(argv[1]) if len(argv) > 1 else 60000
    lines = make_lines(n)
    with tempfile.TemporaryDirectory() as workdir:
        count, new, seconds = bench_ingest(lines, workdir)
        rate = new / seconds if seconds else float("nan")
        print(
            "ingest: %d events from a pty into SQLite in %.2f s = %.0f events/s (goal >= %d: %s)"
            % (new, seconds, rate, INGEST_GOAL, "met" if rate >= INGEST_GOAL else "MISSED")
        )
        if count != len(lines):
            print("ingest: WARNING stored %d of %d events" % (count, len(lines)))
        events, seconds, report = bench_verify(lines, workdir)
        rate = events / seconds
        print(
            "verify: %d events (%d games, %d folded through their rules) in %.2f s = %.0f "
            "events/s (goal >= %d: %s)%s"
            % (
                events,
                report.games,
                report.rules_checked,
                seconds,
                rate,
                VERIFY_GOAL,
                "met" if rate >= VERIFY_GOAL else "MISSED",
                "" if report.ok else "  WARNING: %s" % report.problems[0],
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
