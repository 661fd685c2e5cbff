"""Benchmark of the PC log: ingest speed (events per second from several devices, each on a pty
of its own, through one real `dicepod log` engine and pyserial) with 4 and 16 devices, and
verify speed (events per second read back from the database and checked: checksums, hash chain,
dice, and folding through the rules modules), for SQLite and for PostgreSQL side by side.
Goals: ingest >= 5,000/s (on both backends, 16 devices), verify >= 20,000/s. Prints the numbers
and the process's CPU time (the machine may be shared: CPU seconds show what the code costs),
writes them to docs/MEASUREMENTS.md (section bench_log); exits 0 (a benchmark reports, it
does not gate).

    python tools/bench_log.py [EVENTS] [--db postgresql://user@host:port/dbname]

EVENTS defaults to 60000 per run. PostgreSQL runs in a scratch schema of the database named by
--db (dropped at the end); without --db, a throw-away server of its own when PostgreSQL is
installed (tests/pgserver.py), else SQLite only.
"""

import contextlib
import os
import sys
import tempfile
import threading
import time
import tty
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for sub in ("firmware", "host", "tests", "tests/portable", "tools"):
    sys.path.insert(0, str(ROOT / sub))

import loggen  # noqa: E402  (tests/loggen.py: legal games from the real rules modules)
from measurements import record  # noqa: E402

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


def bench_ingest(per_device, db):
    """Write each device's lines into a pty of its own as fast as it takes them; log them all
    with one logger into db (a file or a URL); return (stored, new, seconds, CPU seconds)."""
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
    store = Store(db)
    server = _backend(store)
    server_cpu = _cpu_of(server)
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
        store.flush()
        server_cpu = _cpu_of(server) - server_cpu
        store.close()
        for master, slave in ptys:
            os.close(master)
            os.close(slave)
    cpu = time.process_time() - cpu
    with Store(db, create=False) as stored:
        count = stored.count()
    seconds = (timing.last - timing.first) if timing.count > 1 else float("nan")
    return count, ingest.counts["new"], seconds, cpu, server_cpu


def _backend(store):
    """The process id of a PostgreSQL store's server process (None for SQLite)."""
    if not hasattr(store.db, "live"):
        return None
    return store.db.execute("SELECT pg_backend_pid()").fetchone()[0]


def _cpu_of(pid):
    """CPU seconds of a local process so far (NaN when it cannot be read: a remote server)."""
    if pid is None:
        return float("nan")
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def bench_verify(db):
    """Verify a database; return (events, seconds, CPU seconds, report)."""
    cpu = time.process_time()
    start = time.perf_counter()
    report = verify.verify_path(db)
    return report.events, time.perf_counter() - start, time.process_time() - cpu, report


@contextlib.contextmanager
def _scratch(url, name):
    """The URL of a new schema `name` in the database url names (dropped at the end)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        conn.execute(f"CREATE SCHEMA {name}")
    try:
        yield url + ("&" if "?" in url else "?") + f"options=-csearch_path%3D{name}"
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")


@contextlib.contextmanager
def _server(url):
    """The PostgreSQL URL to measure: --db's, or a throw-away server's; None without one."""
    if url:
        yield url
        return
    import pgserver

    reason = pgserver.skip_reason()
    if reason:
        print(f"postgresql: not measured ({reason.split(':')[0]})")
        yield None
        return
    server = pgserver.PgServer(fsync=True).start()
    try:
        yield server.url()
    finally:
        server.close()


def main(argv):
    """Run the benchmarks on both backends, print their numbers and record them."""
    args = [a for a in argv[1:] if not a.startswith("--db")]
    url = None
    for i, a in enumerate(argv):
        if a == "--db" and i + 1 < len(argv):
            url = argv[i + 1]
            args.remove(url)
        elif a.startswith("--db="):
            url = a[len("--db=") :]
    n = int(args[0]) if args else 60000
    rows = []
    with tempfile.TemporaryDirectory() as workdir, _server(url) as pg:
        backends = [("SQLite", None)] + ([("PostgreSQL", pg)] if pg else [])
        for name, server_url in backends:
            row = [name]
            for devices in (4, 16):
                per_device = [make_lines(n // devices, "bench%03d" % i) for i in range(devices)]
                total = sum(len(lines) for lines in per_device)
                with contextlib.ExitStack() as stack:
                    if server_url:
                        db = stack.enter_context(_scratch(server_url, f"bench_log_{devices}"))
                    else:
                        db = str(Path(workdir) / f"bench{devices}.db")
                    count, new, seconds, cpu, server_cpu = bench_ingest(per_device, db)
                    rate = new / seconds if seconds else float("nan")
                    print(
                        "ingest: %d events from %d devices (a pty each) into %s in %.2f s = %.0f "
                        "events/s (goal >= %d: %s); CPU (logger and writers) %.2f s%s"
                        % (new, devices, name, seconds, rate, INGEST_GOAL,
                           "met" if rate >= INGEST_GOAL else "MISSED", cpu,
                           "" if server_cpu != server_cpu else
                           ", the server's process %.2f s" % server_cpu),
                        flush=True,
                    )  # fmt: skip
                    if count != total:
                        print("ingest: WARNING stored %d of %d events" % (count, total))
                    row.append("%.0f" % rate)
                    if devices == 16:
                        both = cpu + (server_cpu if server_cpu == server_cpu else 0.0)
                        row.append("%.2f" % both)
                        events, seconds, cpu, report = bench_verify(db)
                        rate = events / seconds
                        print(
                            "verify: %d events (%d devices, %d games, %d folded through their "
                            "rules) from %s in %.2f s = %.0f events/s (goal >= %d: %s); CPU "
                            "%.2f s%s"
                            % (events, report.devices, report.games, report.rules_checked, name,
                               seconds, rate, VERIFY_GOAL,
                               "met" if rate >= VERIFY_GOAL else "MISSED", cpu,
                               "" if report.ok else f"  WARNING: {report.problems[0]}"),
                            flush=True,
                        )  # fmt: skip
                        row.append("%.0f" % rate)
            rows.append(row)
    lines = [
        "| backend | ingest events/s, 4 devices | ingest events/s, 16 devices "
        "| CPU s of that (logger, writers, server process) | verify events/s (that log) |",
        "|---|---|---|---|---|",
    ] + ["| %s |" % " | ".join(row) for row in rows]
    record(
        "bench_log",
        lines,
        note=f"{n} events per run; goals: ingest >= {INGEST_GOAL}/s, verify >= {VERIFY_GOAL}/s."
        " PostgreSQL: a local server (fsync on) over TCP on 127.0.0.1.",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
