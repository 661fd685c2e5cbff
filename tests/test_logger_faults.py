"""The logger under faults: garbage bytes, torn lines, oversize lines, duplicate replays and
out-of-order back-fills never crash it, every event is stored exactly once, rejects are counted,
and gaps are asked for again with `since N`. Also the port loop: unplug, back-off, reopen."""

import os
import random
import threading
import time
import tty

import loggen
import serial

from dicepod import journal, protocol, protocol_pc
from dicepod.drivers.memstorage import MemoryStorage
from dicepod.drivers.usb import UsbLink
from dicepod_host import logger
from dicepod_host.store import Store
from dicepod_host.verify import verify_path


class Clock:
    """Virtual monotonic time."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def _ingest(tmp_path, name="f.db"):
    store = Store(tmp_path / name)
    clock = Clock()
    return logger.Ingest(store, clock=clock), store, clock


def _stored(store):
    return [(o["seq"], o["crc"]) for o in store.events()]


def _expected(lines):
    return [(protocol_pc.parse(x)["seq"], protocol_pc.parse(x)["crc"]) for x in lines]


def test_garbage_torn_oversize_duplicates_out_of_order(tmp_path):
    _storage, lines = loggen.standard()
    ingest, store, _clock = _ingest(tmp_path)
    ingest.connected()
    rng = random.Random(3)
    stream = bytearray()
    order = list(range(len(lines)))
    rng.shuffle(order)  # out of order, as back-fills interleave with live events
    expect_malformed = 0
    expect_oversize = 0
    for n, i in enumerate(order):
        stream += lines[i]
        if n % 5 == 0:
            stream += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80))) + b"\n"
            expect_malformed += 1
        if n % 7 == 0:
            stream += lines[i][: rng.randrange(5, len(lines[i]) - 2)] + b"\r\n"  # torn
            expect_malformed += 1
        if n % 11 == 0:
            stream += b"{" + b"x" * 5000 + b"}\n"  # oversize
            expect_oversize += 1
        if n % 3 == 0:
            stream += lines[rng.randrange(len(lines))]  # duplicate replay
        if n % 13 == 0:
            stream += b"Traceback (most recent call last):\r\n  File ...\r\n"
            expect_malformed += 2
    pos = 0
    while pos < len(stream):  # arbitrary chunking, as a port delivers
        step = rng.randrange(1, 300)
        ingest.feed(bytes(stream[pos : pos + step]))
        pos += step
    store.commit()
    assert _stored(store) == sorted(_expected(lines))
    c = ingest.counts
    assert c["new"] == len(lines)
    assert c["duplicate"] == len(order[::3])
    assert c["oversize"] == expect_oversize
    # garbage lines may contain newlines of their own: at least as many rejects as injected
    assert c["malformed"] >= expect_malformed
    assert c["conflict"] == 0
    store.close()
    assert verify_path(tmp_path / "f.db").ok


def test_garbage_without_newlines_is_bounded(tmp_path):
    ingest, store, _clock = _ingest(tmp_path)
    for _ in range(100):
        ingest.feed(os.urandom(4096).replace(b"\n", b"."))
    assert len(ingest.buf) <= 1024 + 4096
    assert ingest.counts["oversize"] == 1  # one long run of junk = one oversize line
    _storage, lines = loggen.build([loggen.free_game(1, rolls=3)])
    ingest.feed(b"\n" + b"".join(lines))
    assert ingest.counts["new"] == len(lines)
    store.close()


def test_gap_asks_since_and_fills(tmp_path):
    _storage, lines = loggen.build([loggen.free_game(2, rolls=20)])
    ingest, store, clock = _ingest(tmp_path)
    ingest.connected()
    assert ingest.take_outbox()[0] == b"hello\n"
    ingest.feed(b"".join(lines[:5]))
    assert ingest.take_outbox() == []
    ingest.feed(lines[9])  # 6..9 missing
    assert ingest.take_outbox() == [b"since 5\n"]
    ingest.feed(lines[10])  # still missing, request already open: no repeat
    assert ingest.take_outbox() == []
    clock.now += logger.FILL_TIMEOUT + 0.1
    ingest.tick()
    assert b"since 5\n" in ingest.take_outbox()
    for line in reversed(lines[5:9]):  # the back-fill, in reverse order even
        ingest.feed(line)
    ingest.feed(protocol.end_line(loggen.DEV, 11))
    state = ingest.devices[(loggen.DEV, "")]
    assert state.have == 11 and not state.above
    store.commit()
    assert [s for s, _c in _stored(store)] == list(range(1, 12))


def test_tail_gap_seen_in_pong_and_hello(tmp_path):
    _storage, lines = loggen.build([loggen.free_game(3, rolls=10)])
    ingest, store, _clock = _ingest(tmp_path)
    ingest.connected()
    ingest.take_outbox()
    ingest.feed(protocol.hello_line(loggen.DEV, "1.28.0", 12, "00000000", 5))
    assert ingest.take_outbox() == [b"since 0\n"]
    ingest.feed(b"".join(lines[:12]))
    ingest.feed(protocol.end_line(loggen.DEV, 12))
    ingest.feed(protocol.pong_line(loggen.DEV, 14, 9, 0))
    assert ingest.take_outbox() == [b"since 12\n"]


def test_device_missing_events_gives_up_until_reconnect(tmp_path):
    _storage, lines = loggen.build([loggen.free_game(4, rolls=10)])
    ingest, store, clock = _ingest(tmp_path)
    ingest.connected()
    ingest.take_outbox()
    ingest.feed(b"".join(lines[:3]) + lines[6])
    assert ingest.take_outbox() == [b"since 3\n"]
    ingest.feed(lines[6] + protocol.end_line(loggen.DEV, 7))  # the device lacks 4..6
    assert ingest.take_outbox() == []
    state = ingest.devices[(loggen.DEV, "")]
    assert state.missing == 3
    for _ in range(5):
        clock.now += logger.FILL_TIMEOUT + 1
        ingest.tick()
    assert b"since 3\n" not in ingest.take_outbox()  # no hammering
    ingest.connected()
    ingest.feed(protocol.hello_line(loggen.DEV, "1.28.0", 7, "00000000", 5))
    assert b"since 3\n" in ingest.take_outbox()


class FakePort:
    """A port that delivers chunks, then fails (an unplug) after `fail_after` reads."""

    def __init__(self, chunks, fail_after=None):
        self.chunks = list(chunks)
        self.fail_after = fail_after
        self.reads = 0
        self.written = []
        self.closed = False
        self.in_waiting = 0

    def read(self, _n):
        self.reads += 1
        if self.fail_after is not None and self.reads > self.fail_after:
            raise serial.SerialException("device disconnected")
        return self.chunks.pop(0) if self.chunks else b""

    def write(self, data):
        self.written.append(bytes(data))

    def close(self):
        self.closed = True


def test_run_reconnects_with_backoff_and_commits(tmp_path, monkeypatch):
    _storage, lines = loggen.build([loggen.free_game(5, rolls=30)])
    first = FakePort([b"junk\n", b"".join(lines[:10]), lines[10][:20]], fail_after=3)
    second = FakePort([lines[10][20:], b"".join(lines[11:20])])
    opened = []
    failures = [2]  # the port is gone for two attempts after the unplug

    def fake_open(spec, timeout=0.05):
        if opened and failures[0]:
            failures[0] -= 1
            raise logger.UserError("no such port: %s" % spec)
        port = first if not opened else second
        opened.append(port)
        return port

    monkeypatch.setattr(logger, "open_port", fake_open)
    clock = Clock()
    sleeps = []

    def sleep(seconds):
        sleeps.append(seconds)
        clock.now += seconds

    def tick_clock():
        clock.now += 0.05
        return clock.now

    store = Store(tmp_path / "r.db")
    ingest = logger.run("/dev/fake", store, clock=tick_clock, sleep=sleep, idle_exit=2.0)
    assert first.closed and len(opened) == 2
    assert sleeps[:3] == [0.1, 0.1, 0.2]  # back-off after the unplug
    assert ingest.counts["reconnects"] == 1
    assert ingest.counts["malformed"] == 2  # "junk" and the torn half of line 11
    assert b"hello\n" in second.written
    store.close()
    store = Store(tmp_path / "r.db", create=False)
    # line 11 was torn by the unplug: the gap is asked for (a real device would answer)
    assert [o["seq"] for o in store.events()] == list(range(1, 11)) + list(range(12, 21))
    assert b"since 10\n" in second.written
    store.close()


def test_run_first_open_failure_is_an_error(tmp_path):
    store = Store(tmp_path / "e.db")
    try:
        logger.run(str(tmp_path / "nope"), store)
    except logger.UserError as err:
        assert "no such port" in str(err)
    else:
        raise AssertionError("no error")
    finally:
        store.close()


def test_run_over_a_real_pty_with_a_device_that_drops(tmp_path):
    """A CPython device (the real UsbLink) with a tiny queue on a pty: the logger back-fills
    everything the queue dropped, through the real serial code."""
    master, slave = os.openpty()
    tty.setraw(slave)
    storage = MemoryStorage()
    j = journal.Journal(storage)
    j.recover()
    inp = os.fdopen(master, "rb", buffering=0, closefd=False)
    out = os.fdopen(master, "wb", buffering=0, closefd=False)
    link = UsbLink("d1ce0002", j, out=out, inp=inp, queue_lines=4, tick_bytes=256)
    events = loggen.free_game(6, rolls=200) + loggen.battle_game(7, 20)
    stop = []

    def device():
        i = 0
        while not stop:
            for _ in range(3):
                if i < len(events):
                    link.on_entry(j.append(i * 10, events[i]))
                    i += 1
            link.tick(10)
            time.sleep(0.001)

    thread = threading.Thread(target=device, daemon=True)
    thread.start()
    store = Store(tmp_path / "p.db")
    try:
        ingest = logger.run(os.ttyname(slave), store, idle_exit=1.5)
    finally:
        stop.append(1)
        thread.join(5)
        store.close()
        os.close(master)
        os.close(slave)
    assert link.dropped > 0  # the queue did overflow
    store = Store(tmp_path / "p.db", create=False)
    assert [o["seq"] for o in store.events()] == list(range(1, len(events) + 1))
    store.close()
    assert ingest.counts["new"] == len(events)
    assert verify_path(tmp_path / "p.db").ok


def test_live_and_plain_views(tmp_path, capsys):
    import io

    from rich.console import Console

    from dicepod_host.commands import log as log_verb

    _storage, lines = loggen.build([loggen.battle_game(8, 4)])
    ingest, store, _clock = _ingest(tmp_path, "v.db")
    screen = io.StringIO()
    view = log_verb.RawView("/dev/pts/99", "v.db", console=Console(file=screen, width=100))
    plain = log_verb.PlainView()
    ingest.on_event = lambda obj: (view.event(obj), plain.event(obj))
    ingest.feed(b"".join(lines) + b"garbage\n")
    view.last_draw = 0
    view.update(ingest)
    view.close()
    store.close()
    text = screen.getvalue()
    assert "battle" in text and "set_aside" in text and "rejected 1" in text
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == len(lines) and printed[0].startswith("d1ce0001 seq 1 game 1 new_game")
