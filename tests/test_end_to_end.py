"""End to end: `dicepod emulate` (the real firmware under real MicroPython, USB serial on a pty)
and `dicepod log` over that pty through whole games, with the port closed and reopened twice
mid-game (a simulated unplug inside the logger, then a logger stopped and a new one started).
The database must end with every journal event exactly once, in order, verifying clean."""

import os
import queue
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from harness import journal_event_lines

from dicepod import journal
from dicepod_host.cli import main

SCRIPT = """\
# Free roll: a new game, rolls, an undo (BACK held)
DOWN 4
OK
OK 25
LONG BACK
OK 10
BACK
# Battle Game: confirm a new game (ends the free game), then play it with OK
UP 4
OK
OK
OK 80
"""
TIMEOUT = 60  # seconds: the whole test is bounded


def _dicepod(*args, **kw):
    return subprocess.Popen(
        [sys.executable, "-m", "dicepod_host.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def _lines_to_queue(stream, q):
    for line in iter(stream.readline, ""):
        q.put(line)
    q.put(None)


def _reader(stream):
    q = queue.Queue()
    threading.Thread(target=_lines_to_queue, args=(stream, q), daemon=True).start()
    return q


def _wait_line(q, prefix, deadline, seen):
    while time.monotonic() < deadline:
        try:
            line = q.get(timeout=0.2)
        except queue.Empty:
            continue
        if line is None:
            break
        seen.append(line)
        if line.startswith(prefix):
            return line
    raise AssertionError("no %r line; got %r" % (prefix, seen[-10:]))


def _count(db):
    if not Path(db).exists():
        return 0
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=1)
    try:
        return con.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


def _wait_count(db, n, deadline):
    while time.monotonic() < deadline:
        if _count(db) >= n:
            return
        time.sleep(0.05)
    raise AssertionError("database stuck at %d events, wanted %d" % (_count(db), n))


def _wait_heard(db, since, deadline):
    """Wait until a logger started at `since` (time.time()) has stored a device's hello: it
    is running, so a Ctrl-C now tests its shutdown, not Python's start-up."""
    while time.monotonic() < deadline:
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=1)
        try:
            seen = con.execute("SELECT MAX(seen) FROM heads").fetchone()[0]
        except sqlite3.OperationalError:
            seen = None
        finally:
            con.close()
        if seen is not None and seen >= since:
            return
        time.sleep(0.05)
    raise AssertionError("no logger heard the device since %.1f" % since)


def _stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    try:
        return proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise


@pytest.mark.slow
def test_emulate_and_log_through_unplugs(tmp_path, capsys):
    deadline = time.monotonic() + TIMEOUT
    script = tmp_path / "games.txt"
    script.write_text(SCRIPT)
    flash = tmp_path / "flash"
    db = tmp_path / "log.db"
    emu = _dicepod(
        "emulate", "--script", str(script), "--pace", "25", "--linger", "40", "--flash", str(flash)
    )
    loggers = []
    try:
        out = _reader(emu.stdout)
        err = _reader(emu.stderr)
        seen = []
        port = _wait_line(out, "port: ", deadline, seen).split(" ", 1)[1].strip()
        assert port.startswith("/dev/pts/")
        log1 = _dicepod("log", "--port", port, "--db", str(db), "--quiet")
        loggers.append(log1)
        _wait_count(db, 12, deadline)
        log1.send_signal(signal.SIGUSR1)  # unplug: the logger closes the port and reopens it
        _wait_count(db, 30, deadline)
        assert _stop(log1) == 0  # Ctrl-C: everything received is committed
        summary1 = log1.stderr.read()
        assert "1 reconnect(s)" in summary1, summary1
        time.sleep(0.5)  # unplugged: the game goes on, the device's queue fills and drops
        log2 = _dicepod("log", "--port", port, "--db", str(db), "--quiet")
        loggers.append(log2)
        done = _wait_line(err, "emulate: ", deadline, seen)
        last_seq = int(done.split("journal seq ")[1].split(",")[0])
        assert last_seq > 45, done  # the dice are random: the battle game varies
        _wait_count(db, last_seq, deadline)
        time.sleep(0.3)
        assert _stop(log2) == 0
        summary2 = log2.stderr.read()
    finally:
        for proc in loggers:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if emu.poll() is None:
            emu.send_signal(signal.SIGINT)
            try:
                emu.wait(10)
            except subprocess.TimeoutExpired:
                emu.kill()
                emu.wait()
    # Every journal event exactly once, in order, equal to what the device wrote.
    lines = journal_event_lines(flash)
    assert len(lines) == last_seq
    con = sqlite3.connect(db)
    rows = con.execute("SELECT seq, game, ms, kind, data, prev FROM events ORDER BY seq").fetchall()
    con.close()
    assert [r[0] for r in rows] == list(range(1, last_seq + 1)), summary2
    for row, line in zip(rows, lines):
        (seq, game, ms, event, prev), _body = journal.decode(line)
        assert row[:3] == (seq, game, ms)
        assert (row[3], tuple(__import__("json").loads(row[4]))) == event
        assert row[5] == prev
    kinds = {r[3] for r in rows}
    assert {"new_game", "roll", "undo", "set_aside"} <= kinds
    capsys.readouterr()
    assert main(["verify", str(db)]) == 0
    assert capsys.readouterr().out.startswith("OK: 1 device(s), 2 game(s)")
    export = tmp_path / "export.jsonl"
    assert main(["export", str(db), "-o", str(export)]) == 0
    assert main(["verify", str(export)]) == 0
    assert os.path.getsize(export) > 0


@pytest.mark.slow
def test_unplugged_while_the_device_plays_on_backfills_from_its_journal(tmp_path, capsys):
    """Hundreds of rolls while no logger reads: the pty fills, the device's queue drops lines
    (never stalling), and the next logger gets them back from the journal with `since N`."""
    deadline = time.monotonic() + TIMEOUT
    script = tmp_path / "rolls.txt"
    script.write_text("DOWN 4\nOK\nOK 900\n")  # ~120 KB: past any pty buffer
    flash = tmp_path / "flash"
    db = tmp_path / "log.db"
    emu = _dicepod("emulate", "--script", str(script), "--linger", "6", "--flash", str(flash))
    log2 = None
    try:
        out = _reader(emu.stdout)
        err = _reader(emu.stderr)
        seen = []
        port = _wait_line(out, "port: ", deadline, seen).split(" ", 1)[1].strip()
        log1 = _dicepod("log", "--port", port, "--db", str(db), "--quiet")
        _wait_count(db, 5, deadline)
        assert _stop(log1) == 0  # unplugged early in the game
        done = _wait_line(err, "emulate: ", deadline, seen)
        last_seq = int(done.split("journal seq ")[1].split(",")[0])
        started = time.time()
        log2 = _dicepod("log", "--port", port, "--db", str(db), "--quiet")
        _wait_count(db, last_seq, deadline)
        _wait_heard(db, started, deadline)  # log1 may have backfilled it all already
        assert _stop(log2) == 0
        usb = _wait_line(err, "emulate: usb", deadline, seen)
        dropped = int(usb.split("dropped ")[1])
        assert dropped > 0, usb  # the device really did drop lines while nobody read
        assert emu.wait(15) == 0
    finally:
        for proc in (emu, log2):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
    lines = journal_event_lines(flash)
    assert len(lines) == last_seq >= 900
    con = sqlite3.connect(db)
    rows = con.execute("SELECT seq, prev FROM events ORDER BY seq").fetchall()
    con.close()
    assert [r[0] for r in rows] == list(range(1, last_seq + 1))
    assert [r[1] for r in rows] == [journal.decode(x)[0][4] for x in lines]
    capsys.readouterr()
    assert main(["verify", str(db)]) == 0
