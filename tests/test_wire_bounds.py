"""Hostile lines from the wire (issue 48, point 4): forged or garbled break, hello, pong and time
lines go through a real pty into the real `dicepod log`; the logger neither hangs, crashes nor
acknowledges an event it did not store, and a break counts only once the event its chain
resumes at is stored with the break's prev."""

import json
import os
import select
import subprocess
import sys
import time
import tty
from pathlib import Path

import loggen

from dicepod import journal, protocol
from dicepod.drivers.memstorage import MemoryStorage
from dicepod_host.store import Store

DEV = "d1ce0048"
JID = "0123456789abcdef"
DICEPOD = str(Path(sys.executable).with_name("dicepod"))


def _line(kind, **fields):
    obj = {"v": 2, "type": kind, "dev": DEV, "jid": JID}
    obj.update(fields)
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


def _journal_lines(count):
    """Protocol lines of a real journal's first count events."""
    storage = MemoryStorage()
    log = journal.Journal(storage, new_id=lambda: JID)
    log.recover()
    events = loggen.free_game(48, rolls=count)[:count]
    return [protocol.event_line(DEV, log.append(10 * i, e), JID) for i, e in enumerate(events)]


def _log_through_pty(tmp_path, lines, idle=2.0):
    """Run `dicepod log` on a pty fed lines; return (the commands it sent, its exit code)."""
    master, slave = os.openpty()
    tty.setraw(slave)
    db = tmp_path / "w.db"
    proc = subprocess.Popen(
        [DICEPOD, "log", "--port", os.ttyname(slave), "--db", str(db), "--quiet",
         "--idle-exit", str(idle)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    sent = bytearray()
    try:
        deadline = time.monotonic() + 60
        # the device answers once the logger has said hello
        while b"hello" not in sent and time.monotonic() < deadline:
            if select.select([master], [], [], 0.1)[0]:
                sent.extend(os.read(master, 4096))
        for line in lines:
            os.write(master, line)
        while proc.poll() is None and time.monotonic() < deadline:
            if select.select([master], [], [], 0.1)[0]:
                try:
                    sent.extend(os.read(master, 4096))
                except OSError:
                    break
        if proc.poll() is None:
            proc.kill()
            raise AssertionError("dicepod log hung on the lines it was sent")
        _out, err = proc.communicate(timeout=10)
        assert b"Traceback" not in err, err.decode()
        return sent.decode().split("\n"), proc.returncode
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
        os.close(slave)


def _acks(commands):
    return [int(c.split()[1]) for c in commands if c.startswith("ack ")]


def test_hostile_lines_never_hang_crash_or_ack_past_the_store(tmp_path):
    events = _journal_lines(8)
    head = json.loads(events[-1])["crc"]  # any 8 hex digits
    hostile = [
        _line("break", **{"from": 1, "to": 1000000, "prev": "00000000"}),
        _line("break", **{"from": 9, "to": 4000000000, "prev": "00000000"}),
        _line("break", **{"from": 2**63, "to": 2**63 + 5, "prev": "00000000"}),
        _line("break", **{"from": 9, "to": 2**64, "prev": "00000000"}),
        _line("break", **{"from": -5, "to": 3, "prev": "00000000"}),
        _line("hello", fw="1.28.0", seq=2**63, head=head, ms=5),
        _line("hello", fw="1.28.0", seq=9, head=["x"], ms=5),
        _line("hello", fw="x" * 600, seq=9, head=head, ms=5),
        _line("pong", seq=2**70, ms=5, token=0),
        _line("pong", seq=8, ms=10**30, token=2**80),
        _line("end", seq=2**64),
        b'{"v":1,"type":"time","dev":"%s","ms":5,"epoch":1e400}\n' % DEV.encode(),
        b'{"v":1,"type":"error","dev":"%s","error":{"a":[1,2]}}\n' % DEV.encode(),
    ]
    lines = events[:5] + hostile + events[5:] + hostile
    commands, code = _log_through_pty(tmp_path, lines)
    assert code == 0
    acks = _acks(commands)
    assert acks and max(acks) == 8  # everything stored is acknowledged, nothing more
    store = Store(tmp_path / "w.db", create=False)
    try:
        assert [o["seq"] for o in store.events()] == list(range(1, 9))
        heads = store.heads()
        assert all(seq <= 2**32 for seq in heads.values())
    finally:
        store.close()


def test_a_break_counts_only_once_its_resume_event_is_stored(tmp_path):
    events = _journal_lines(12)
    resume = json.loads(events[9])  # seq 10: the chain resumes here after a lost 6..9
    proven = _line("break", **{"from": 6, "to": 9, "prev": resume["prev"]})
    forged = _line("break", **{"from": 11, "to": 20000, "prev": resume["prev"]})
    lines = events[:5] + [forged, proven, events[9], events[10]]
    commands, code = _log_through_pty(tmp_path, lines)
    assert code == 0
    acks = _acks(commands)
    # 6..9 held as lost (the device proved it with seq 10), 11 stored; the forged break (no
    # event 20001 with its prev) moves nothing
    assert max(acks) == 11
    # the logger asked for the gap behind the forged break's claim, never past seq 11
    assert all(int(c.split()[1]) <= 11 for c in commands if c.startswith("since "))
