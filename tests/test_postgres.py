"""Issue 45: a league on PostgreSQL. A real server the tests start themselves (tests/pgserver.py:
initdb into a temporary folder, stopped at the end); without PostgreSQL installed these skip in
one line and SQLite works as before.

- The same verbs print the same for the same events on SQLite and on PostgreSQL (the events
  moved in by `dicepod db copy`, which stores once when run twice).
- Three `dicepod log` processes with emulated dicepods (the firmware under the MicroPython unix
  port, serial over real ptys) write into one server; loggers are killed at random and started
  again, the server is restarted once while they log: every journal event is stored once on
  (device, journal, seq), no logger exits by itself, `dicepod verify` passes per journal.
"""

import json
import os
import random
import signal
import subprocess
import sys
import time

import loggen
import pgserver
import pytest
from harness import journal_event_lines
from test_end_to_end import _reader, _wait_line

from dicepod import journal, protocol, protocol_pc
from dicepod_host import dash, logger, store_pg
from dicepod_host.cli import main
from dicepod_host.store import Store

REASON = pgserver.skip_reason()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")


@pytest.fixture(scope="module")
def server():
    srv = pgserver.PgServer().start()
    try:
        yield srv
    finally:
        srv.close()


def _club_db(path):
    """A club's SQLite log as the logger writes it: two devices, one re-flashed (two journals),
    hellos (heads), a break line, and player names."""
    with Store(path) as store:
        ingest = logger.Ingest(store)
        for dev, seed in (("c1ab000000000001", 3), ("c1ab000000000002", 4)):
            _storage, lines = loggen.build(
                [loggen.battle_game(seed, 10), loggen.free_game(seed, 25)], dev=dev
            )
            ingest.feed(b"".join(lines))
            last = protocol_pc.parse(lines[-1])
            head = protocol_pc.chain_hash(last)
            ingest.feed(protocol.hello_line(dev, "1.28.0", last["seq"], head, 5000))
        store.add_break({"dev": "c1ab000000000002", "from": 90, "to": 95, "prev": "0" * 16})
        store.commit()
        store.set_players("c1ab000000000001", ["Ann", "Bo"])
    return path


def _out(capsys, argv, db):
    capsys.readouterr()
    code = main([a if a != "DB" else db for a in argv])
    captured = capsys.readouterr()
    if not db:
        return code, captured.out, captured.err
    return code, captured.out.replace(db, "DB"), captured.err.replace(db, "DB")


VERBS = [
    ["games", "DB"],
    ["games", "DB", "--league"],
    ["games", "DB", "--json"],
    ["export", "DB"],
    ["export", "DB", "--table", "games", "--format", "csv"],
    ["stats", "DB", "--json"],
    ["verify", "DB"],
]


def test_same_verbs_same_output_and_copy_twice_stores_once(server, tmp_path, capsys):
    sqlite_db = str(_club_db(tmp_path / "club.db"))
    url = server.createdb()
    code, out, _err = _out(capsys, ["db", "copy", sqlite_db, url], "")
    assert code == 0, out
    with Store(sqlite_db, create=False) as store:
        events = store.count()
    assert events > 100
    assert f"{events} new event(s), 0 already stored, 0 conflict(s)" in out, out
    assert "4 player name(s), 2 head(s), 1 break(s)" in out, out
    code, out, _err = _out(capsys, ["db", "copy", sqlite_db, url], "")
    assert code == 0 and f"0 new event(s), {events} already stored" in out, out
    with Store(url, create=False) as pg, Store(sqlite_db, create=False) as lite:
        assert pg.count() == events
        assert pg.players() == lite.players() and pg.players()
        assert pg.heads() == lite.heads() and pg.breaks() == lite.breaks()
        assert pg.journals() == lite.journals()
        assert list(pg.events(received=True)) == list(lite.events(received=True))
    with Store(url, create=False) as pg, Store(sqlite_db, create=False) as lite:
        assert dash.data(pg) == dash.data(lite)  # the dashboard's page data
    naming = ["players", "DB", "c1ab000000000002", "Cy", "Di"]
    for argv in VERBS + [naming, ["players", "DB"], ["games", "DB"]]:
        lite = _out(capsys, argv, sqlite_db)
        pg = _out(capsys, argv, url)
        assert lite == pg, argv
        assert lite[1].strip(), argv  # each printed something to compare


def test_a_password_is_never_printed(server, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PGPASSWORD", "")  # restored after the test (the verbs set it)
    url = server.url("nosuchdb").replace("dicepod@", "dicepod:s3cr3t-pw@")
    code, out, err = _out(capsys, ["games", url], "")
    assert code == 1
    assert "s3cr3t-pw" not in out + err
    assert "postgresql://dicepod@127.0.0.1" in err and "nosuchdb" in err, err
    url = server.createdb().replace("dicepod@", "dicepod:s3cr3t-pw@")
    log = tmp_path / "log.jsonl"
    log.write_bytes(b"".join(loggen.build([loggen.free_game(7, 12)])[1]))
    code, out, err = _out(capsys, ["import", str(log), "--db", url], "")
    assert code == 0 and "new event(s)" in out, err
    assert "s3cr3t-pw" not in out + err and "-> postgresql://dicepod@127.0.0.1" in out, out


def test_a_logger_that_loses_the_server_keeps_its_queue_and_catches_up(tmp_path):
    """The server goes away under a logger's ingest: flushes fail and keep every row, reads
    answer "nothing known" instead of raising; the server comes back and one flush writes
    everything, each event once."""
    srv = pgserver.PgServer().start()
    try:
        url = srv.createdb()
        _storage, lines = loggen.build([loggen.free_game(8, 60), loggen.battle_game(8, 8)])
        half = len(lines) // 2
        with Store(url) as store:
            ingest = logger.Ingest(store)
            ingest.feed(b"".join(lines[:half]))
            assert store.flush() and store.count() == half
            srv.stop()
            ingest.feed(b"".join(lines[half - 5 :]))  # five sent again, as after a reconnect
            queued = len(lines) - half + 5  # the five cannot be checked now: the server drops them
            assert store.pending() == queued
            assert store.flush() is False and store.pending() == queued
            assert store.contiguous_seq(loggen.DEV, "") == 0  # not known now: ask the device
            srv.start()
            time.sleep(store_pg.RETRY)  # the next reconnect is due
            assert store.flush() is True and store.pending() == 0
            assert store.count() == len(lines)
            assert store.contiguous_seq(loggen.DEV, "") == len(lines)
            ingest.feed(b"".join(lines[:10]))  # the device sends the start again: stored once
            assert ingest.counts["duplicate"] >= 10 and store.count() == len(lines)
    finally:
        srv.close()


DEVICES = 6
PRESSES = int(os.environ.get("DICEPOD_LEAGUE_PRESSES", "1000"))
RESTART_AFTER = 300  # events stored before the server restarts (of about 1,100)
TIMEOUT = 60 + PRESSES // 20


def _dicepod(*args):
    return subprocess.Popen(
        [sys.executable, "-m", "dicepod_host.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _device_id(i):
    return f"1ea9{i:012x}"


def _per_device(url):
    try:
        with Store(url, create=False) as store:
            rows = store._query("SELECT device, COUNT(*) FROM events GROUP BY device")
    except Exception:  # the server is restarting: no answer this time
        return None
    return dict(rows)


def _caught_up(stored, last):
    """Every device's events up to the seq it reported at the end of its presses are in."""
    return stored is not None and all(stored.get(dev, 0) >= seq for dev, seq in last.items())


def test_three_loggers_one_server_killed_and_restarted(server, tmp_path, capsys):
    rng = random.Random(45)
    url = server.createdb()
    deadline = time.monotonic() + TIMEOUT
    ports = tmp_path / "ports"
    ports.mkdir()
    groups = ["a", "b", "c"]
    emulators = []
    loggers = {}
    kills = 0
    restarted = False

    def start_logger(group):
        loggers[group] = _dicepod(
            "log", "--port", str(ports / (group + "*")), "--db", url, "--quiet"
        )

    try:
        for i in range(DEVICES):
            flash = tmp_path / f"flash{i}"
            proc = _dicepod(
                "emulate", "--monkey", str(PRESSES), "--seed", str(450 + i), "--linger", "600",
                "--flash", str(flash), "--device-id", _device_id(i),
                "--link", str(ports / f"{groups[i % 3]}{i:02d}"),
            )  # fmt: skip
            emulators.append((i, proc, flash, _reader(proc.stdout), _reader(proc.stderr)))
        for _i, _proc, _flash, stdout, _err in emulators:
            _wait_line(stdout, "port: ", deadline, [])
        for group in groups:
            start_logger(group)
        last = {}
        kill_at = sorted(rng.uniform(0.5, 8.0) for _ in range(3))  # seconds into the run
        started = time.monotonic()
        while time.monotonic() < deadline:
            for group, proc in loggers.items():
                assert proc.poll() is None, (  # no logger exits
                    group, proc.stderr.read(), sorted(os.listdir(ports)),
                    [(e[1].poll(), e[1].stderr.read() if e[1].poll() is not None else "")
                     for e in emulators],
                )  # fmt: skip
            running = time.monotonic() - started
            stored = _per_device(url)
            if not restarted and stored and sum(stored.values()) >= RESTART_AFTER:
                assert len(last) < DEVICES  # the devices are still playing
                server.restart(down=1.5)  # every logger loses its connection mid-flush
                restarted = True
            if kills < len(kill_at) and running > kill_at[kills]:
                group = rng.choice(groups)
                loggers[group].kill()  # killed at random, mid-write or not
                loggers[group].wait()
                kills += 1
                start_logger(group)
            for i, _proc, _flash, _stdout, err in emulators:
                if _device_id(i) not in last:
                    try:
                        line = err.get_nowait()
                    except Exception:
                        continue
                    if line and line.startswith("emulate: "):
                        last[_device_id(i)] = int(line.split("journal seq ")[1].split(",")[0])
            if len(last) == DEVICES and _caught_up(stored, last):
                break
            time.sleep(0.3)
        assert restarted and kills == 3
        time.sleep(1.0)  # a (re)connected logger's clock sync may add an event: let it land
        if not _caught_up(_per_device(url), last):
            for proc in loggers.values():
                proc.send_signal(signal.SIGINT)
            summaries = [proc.communicate(timeout=30)[1] for proc in loggers.values()]
            raise AssertionError((_per_device(url), last, summaries))
        for proc in loggers.values():
            assert proc.poll() is None, proc.stderr.read()
            proc.send_signal(signal.SIGINT)
        for proc in loggers.values():
            assert proc.wait(30) == 0, proc.stderr.read()
    finally:
        for proc in list(loggers.values()) + [e[1] for e in emulators]:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
    total = 0
    with Store(url, create=False) as store:
        for i, _proc, flash, _stdout, _err in emulators:
            lines = journal_event_lines(flash)
            rows = store._query(
                "SELECT seq, game, ms, kind, data, prev FROM events WHERE device=? ORDER BY seq",
                (_device_id(i),),
            )
            assert len(lines) > 5
            assert [r[0] for r in rows] == list(range(1, len(lines) + 1))  # each once, no gap
            for row, line in zip(rows, lines):
                (seq, game, ms, event, prev), _body = journal.decode(line)
                assert tuple(row) == (seq, game, ms, event[0], json.dumps(list(event[1]),
                                      separators=(",", ":")), prev)  # fmt: skip
            total += len(rows)
        journals = store.journals()
    assert len(journals) == DEVICES
    code, out, _err = _out(capsys, ["verify", "DB"], url)
    # (a monkey's presses may reach Free roll's loaded-die demonstration: verify notes it first)
    summary = [line for line in out.splitlines() if not line.startswith("note: ")]
    assert code == 0 and summary[0].startswith(f"OK: {DEVICES} device(s)"), out
    print(out)
    print(f"league: {total} events from {DEVICES} devices, 3 loggers, {kills} killed, "
          f"server restarted once: each stored once; verify OK per journal")  # fmt: skip
