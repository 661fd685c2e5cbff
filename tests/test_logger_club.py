"""A club's or a class's logging: twelve emulated dicepods (the real firmware under the real
MicroPython unix port, each with its own device id and USB serial on a pty) playing flat out,
logged at once by one `dicepod log` scanning a glob of their ports (half of them started after
the logger: picked up when they appear), and separately by three loggers sharing one database.
Every journal event of every device must be in the database exactly once, equal to the line the
device wrote; no logger exits before it is stopped; `dicepod verify` is OK.

DICEPOD_CLUB_PRESSES sets the presses per device (default 400; 3000 is about a minute each on
a quiet two-core machine)."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from harness import journal_event_lines
from test_end_to_end import _reader, _wait_line

from dicepod import journal
from dicepod_host.cli import main

DEVICES = 12
PRESSES = int(os.environ.get("DICEPOD_CLUB_PRESSES", "400"))
TIMEOUT = 240 + PRESSES // 10  # seconds: the whole test is bounded


def _dicepod(*args):
    return subprocess.Popen(
        [sys.executable, "-m", "dicepod_host.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _device_id(i):
    return f"c1ab{i:012x}"


def _emulator(tmp_path, i, link):
    flash = tmp_path / ("flash%d" % i)
    proc = _dicepod(
        "emulate", "--monkey", str(PRESSES), "--seed", str(100 + i), "--linger", "600",
        "--flash", str(flash), "--device-id", _device_id(i), "--link", str(link),
    )  # fmt: skip
    return proc, flash


def _per_device(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        rows = con.execute("SELECT device, COUNT(*) FROM events GROUP BY device").fetchall()
    except sqlite3.OperationalError:
        rows = []
    finally:
        con.close()
    return dict(rows)


def _run_club(tmp_path, groups):
    """Start the emulators (links in tmp/ports/<group><i>) and one logger per group pattern;
    half the emulators start after the loggers. Return (db, journals {device: lines},
    summaries)."""
    deadline = time.monotonic() + TIMEOUT
    ports = tmp_path / "ports"
    ports.mkdir()
    db = tmp_path / "club.db"
    emulators = []
    loggers = []
    summaries = []
    try:

        def start(i):
            group = groups[i % len(groups)]
            proc, flash = _emulator(tmp_path, i, ports / ("%s%02d" % (group, i)))
            emulators.append((i, proc, flash, _reader(proc.stdout), _reader(proc.stderr)))

        for i in range(DEVICES // 2):
            start(i)
        for _i, _proc, _flash, out, _err in emulators:
            _wait_line(out, "port: ", deadline, [])
        for group in groups:
            loggers.append(
                _dicepod("log", "--port", str(ports / (group + "*")), "--db", str(db), "--quiet")
            )
        time.sleep(1.0)
        for i in range(DEVICES // 2, DEVICES):
            start(i)  # plugged in while the loggers run: found by their next scan
        last = {}
        for i, _proc, _flash, _out, err in emulators:
            done = _wait_line(err, "emulate: ", deadline, [])
            last[_device_id(i)] = int(done.split("journal seq ")[1].split(",")[0])
        while time.monotonic() < deadline and _per_device(db) != last:
            for proc in loggers:
                assert proc.poll() is None, proc.stderr.read()  # no logger exits
            time.sleep(0.2)
        assert _per_device(db) == last
        for proc in loggers:
            assert proc.poll() is None, proc.stderr.read()
            proc.send_signal(signal.SIGINT)
        for proc in loggers:
            assert proc.wait(30) == 0
            summaries.append(proc.stderr.read())
    finally:
        for proc in loggers + [e[1] for e in emulators]:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
    journals = {
        _device_id(i): journal_event_lines(flash) for i, _proc, flash, _out, _err in emulators
    }
    return db, journals, summaries


def _check(db, journals, capsys):
    con = sqlite3.connect(db)
    try:
        for device, lines in journals.items():
            rows = con.execute(
                "SELECT seq, game, ms, kind, data, prev FROM events WHERE device=? ORDER BY seq",
                (device,),
            ).fetchall()
            assert len(lines) > 5, device
            assert [r[0] for r in rows] == list(range(1, len(lines) + 1)), device
            for row, line in zip(rows, lines):
                (seq, game, ms, event, prev), _body = journal.decode(line)
                data = json.dumps(list(event[1]), separators=(",", ":"))
                assert row == (seq, game, ms, event[0], data, prev)
        assert con.execute("SELECT COUNT(DISTINCT device) FROM events").fetchone()[0] == DEVICES
    finally:
        con.close()
    capsys.readouterr()
    assert main(["verify", str(db)]) == 0
    out = capsys.readouterr().out
    # (a monkey's presses may reach Free roll's loaded-die demonstration: verify notes it first)
    summary = [line for line in out.splitlines() if not line.startswith("note: ")]
    assert summary[0].startswith("OK: %d device(s)" % DEVICES), out
    return sum(len(lines) for lines in journals.values())


@pytest.mark.slow
def test_twelve_devices_one_logger(tmp_path, capsys):
    db, journals, summaries = _run_club(tmp_path, ["pod"])
    total = _check(db, journals, capsys)
    assert "%d device(s)" % DEVICES in summaries[0], summaries
    assert "0 conflict(s)" in summaries[0], summaries
    print("twelve devices, one logger: %d events" % total)


@pytest.mark.slow
def test_twelve_devices_three_loggers_one_database(tmp_path, capsys):
    db, journals, summaries = _run_club(tmp_path, ["a", "b", "c"])
    _check(db, journals, capsys)
    assert len(summaries) == 3
    for summary in summaries:
        assert "4 device(s)" in summary and "0 conflict(s)" in summary, summary


def test_a_locked_database_is_waited_for_not_an_exit(tmp_path):
    """Another program holds the write lock for 1.5 s while a device sends: the logger keeps
    reading, its flushes find the database locked and are retried, nothing is lost."""
    import threading
    import tty

    import loggen

    from dicepod_host import logger
    from dicepod_host.store import Store

    _storage, lines = loggen.build([loggen.free_game(9, rolls=300), loggen.battle_game(9, 30)])
    path = tmp_path / "shared.db"
    Store(path).close()
    master, slave = os.openpty()
    tty.setraw(slave)
    tty.setraw(master)
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)

    def device():
        time.sleep(0.3)
        holder.execute("BEGIN IMMEDIATE")
        for line in lines:
            os.write(master, line)
            time.sleep(0.002)
        time.sleep(1.5 - min(1.5, 0.002 * len(lines)))
        holder.execute("ROLLBACK")

    thread = threading.Thread(target=device, daemon=True)
    thread.start()
    store = Store(path, timeout=0.2)
    try:
        run = logger.run(os.ttyname(slave), store, idle_exit=2.5)
    finally:
        thread.join(10)
        store.close()
        holder.close()
        os.close(master)
        os.close(slave)
    assert run.busy > 0  # it did find the database locked
    assert run.counts["new"] == len(lines)
    with Store(path, create=False) as back:
        assert [o["seq"] for o in back.events()] == list(range(1, len(lines) + 1))


def test_creating_a_database_is_atomic(tmp_path):
    """A program killed at any moment while creating a database, or several creating the same
    file at once, leave a database every later program opens."""
    import random

    from dicepod_host.store import Store

    code = "import sys; from dicepod_host.store import Store; Store(sys.argv[1]).close()"
    rng = random.Random(15)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    for n in range(24):
        path = tmp_path / ("k%d.db" % n)
        proc = subprocess.Popen([sys.executable, "-c", code, str(path)], env=env)
        time.sleep(rng.uniform(0.05, 0.35))  # the import takes about 0.1-0.2 s
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        Store(path).close()  # opens (or creates) it: never "not a dicepod database"
    for n in range(6):
        path = tmp_path / ("race%d.db" % n)
        procs = [
            subprocess.Popen([sys.executable, "-c", code, str(path)], env=env) for _ in range(3)
        ]
        assert [p.wait(60) for p in procs] == [0, 0, 0]
        with Store(path, create=False) as store:
            assert store.count() == 0
