"""Benchmark of the PC log: ingest speed (events per second from several devices, each on a pty
of its own, into SQLite, through one real `dicepod log` engine and pyserial) and verify speed
(events per second checked: checksums, hash chain, dice, and folding through the rules modules).
Goals: ingest >= 5,000/s, verify >= 20,000/s. Prints the numbers and the process's CPU time
(the machine may be shared: CPU seconds show what the code costs); exits 0 (a benchmark
reports, it does not gate).

    python tools/bench_log.py [EVENTS] [DEVICES]     (defaults 60000 and 4)
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


def make_lines(n_events, dev="bench001"):
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
    return loggen.build(games, dev=dev)[1]


class _Timing:
    """A logger view that notes when the first and the last new event were stored, and starts
    the devices once the ports are open (pyserial empties the input buffer when it opens)."""

    def __init__(self, start_devices):
        self.first = None
        self.last = None
        self.count = 0
        self.start_devices = start_devices

    def event(self, _obj):
        now = time.perf_counter()
        if self.first is None:
            self.first = now
        self.last = now
        self.count += 1

    def update(self, _ingest):
        if self.start_devices:
            for device in self.start_devices:
                device.start()
            self.start_devices = None


def bench_ingest(per_device, workdir):
    """Write each device's lines into a pty of its own as fast as it takes them; log them all
    with one logger; return (stored, new, seconds, CPU seconds)."""
    ptys = []
    writers = []
    for lines in per_device:
        master, slave = os.openpty()
        tty.setraw(slave)
        tty.setraw(master)
        ptys.append((master, slave))

        def device(master=master, lines=lines):
            view = memoryview(b"".join(lines))
            while view:
                written = os.write(master, view[:4096])
                view = view[written:]

        writers.append(threading.Thread(target=device, daemon=True))
    store = Store(Path(workdir) / "bench.db")
    timing = _Timing(writers)
    cpu = time.process_time()
    try:
        ingest = logger.run(
            [os.ttyname(slave) for _m, slave in ptys], store, view=timing, idle_exit=1.0
        )
    finally:
        for writer in writers:
            if writer.ident is not None:
                writer.join(10)
        store.close()
        for master, slave in ptys:
            os.close(master)
            os.close(slave)
    cpu = time.process_time() - cpu
    stored = Store(Path(workdir) / "bench.db", create=False)
    count = stored.count()
    stored.close()
    seconds = (timing.last - timing.first) if timing.count > 1 else float("nan")
    return count, ingest.counts["new"], seconds, cpu


def bench_verify(path):
    """Verify an exported JSON Lines log; return (events, seconds, report)."""
    start = time.perf_counter()
    report = verify.verify_path(path)
    seconds = time.perf_counter() - start
    return report.events, seconds, report


def main(argv):
    """Run both benchmarks and print their numbers."""
    n = int(argv[1]) if len(argv) > 1 else 60000
    devices = int(argv[2]) if len(argv) > 2 else 4
    per_device = [make_lines(n // devices, "bench%03d" % i) for i in range(devices)]
    total = sum(len(lines) for lines in per_device)
    with tempfile.TemporaryDirectory() as workdir:
        count, new, seconds, cpu = bench_ingest(per_device, workdir)
        rate = new / seconds if seconds else float("nan")
        print(
            "ingest: %d events from %d devices (a pty each) into SQLite in %.2f s = %.0f "
            "events/s (goal >= %d: %s); CPU (logger and writers) %.2f s"
            % (new, devices, seconds, rate, INGEST_GOAL, "met" if rate >= INGEST_GOAL else "MISSED",
               cpu)
        )  # fmt: skip
        if count != total:
            print("ingest: WARNING stored %d of %d events" % (count, total))
        path = Path(workdir) / "bench.jsonl"
        path.write_bytes(b"".join(b"".join(lines) for lines in per_device))
        cpu = time.process_time()
        events, seconds, report = bench_verify(path)
        cpu = time.process_time() - cpu
        rate = events / seconds
        print(
            "verify: %d events (%d devices, %d games, %d folded through their rules) in %.2f s = "
            "%.0f events/s (goal >= %d: %s); CPU %.2f s%s"
            % (
                events,
                report.devices,
                report.games,
                report.rules_checked,
                seconds,
                rate,
                VERIFY_GOAL,
                "met" if rate >= VERIFY_GOAL else "MISSED",
                cpu,
                "" if report.ok else f"  WARNING: {report.problems[0]}",
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
