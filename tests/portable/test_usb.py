"""USB link on in-memory streams: queue bound, commands, back-fill. Portable: runs under CPython
(pytest) and real MicroPython. (tests/test_usb_stall.py checks the never-blocking part on a real
pty under MicroPython.)"""

from dicepod import journal, journalfix, protocol_pc
from dicepod.drivers.storage import FileStorage
from dicepod.drivers.usb import UsbLink

DEV = "cafe0123"
JID = "0123456789abcdef"


class _Input:
    """A readable stream the test feeds (BytesIO cannot be appended to while read)."""

    def __init__(self):
        self.data = bytearray()
        self.pos = 0

    def feed(self, data):
        self.data.extend(data)

    def read(self, n):
        chunk = bytes(self.data[self.pos : self.pos + n])
        self.pos += len(chunk)
        return chunk


class _Output:
    """A writable stream that accepts at most `room` bytes until drained (a slow PC)."""

    def __init__(self, room=1 << 30):
        self.data = bytearray()
        self.room = room

    def write(self, data):
        n = min(len(data), self.room)
        if n == 0:
            return None
        self.data.extend(bytes(data[:n]))
        self.room -= n
        return n

    def take_lines(self):
        lines = bytes(self.data).split(b"\n")
        self.data = bytearray(lines[-1])
        return [protocol_pc.parse(x) for x in lines[:-1]]


_DIRS = [0]


def _files():
    """A FileStorage in a fresh folder (the journal on files, not in MicroPython's heap: a
    few hundred events in RAM would fill it next to the tests)."""
    import os

    _DIRS[0] += 1
    root = "%s/dicepod-usb-%s-%d" % (
        os.getenv("DICEPOD_TEST_TMP") or "/tmp",
        "".join("%02x" % b for b in os.urandom(4)),
        _DIRS[0],
    )
    os.mkdir(root)
    return FileStorage(root)


def _setup(n_events=0, **kw):
    storage = _files()
    j = journal.Journal(storage, lambda: JID)
    j.recover()
    inp, out = _Input(), _Output(kw.pop("room", 1 << 30))
    link = UsbLink(DEV, j, out=out, inp=inp, poll=False, **kw)
    for i in range(n_events):
        j.append(i, ("new_game", ("free",)) if i == 0 else ("roll", (i % 6 + 1,)))
    return j, link, inp, out


def _append(j, link, event, ms=0):
    link.on_entry(j.append(ms, event))


def _run(link, ticks=50):
    for _ in range(ticks):
        link.tick(20)


def test_live_events_reach_the_pc_in_order():
    j, link, _inp, out = _setup()
    _run(link, 2)
    _append(j, link, ("new_game", ("free",)))
    for face in (1, 2, 3):
        _append(j, link, ("roll", (face,)))
    _run(link, 2)
    lines = out.take_lines()
    assert [o["seq"] for o in lines] == [1, 2, 3, 4]
    assert [o["event"] for o in lines][1] == ("roll", (1,))
    prev = journal.GENESIS
    for o in lines:
        assert o["prev"] == prev
        prev = protocol_pc.chain_hash(o)


def test_queue_is_bounded_when_nobody_reads():
    j, link, _inp, out = _setup(queue_lines=8, room=0)
    _run(link, 1)
    _append(j, link, ("new_game", ("free",)))
    for i in range(200):
        _append(j, link, ("roll", (i % 6 + 1,)))
        link.tick(5)
    assert link.queued() <= 8
    assert link.dropped >= 190
    assert len(out.data) == 0


def test_hello_ping_time_and_errors():
    _j, link, inp, out = _setup(n_events=5)
    inp.feed(b"hello\r\nping 7\ntime 1764500000\nimport os\n" + b"x" * 300 + b"\nidentify\n")
    _run(link, 5)
    lines = out.take_lines()
    kinds = [o["type"] for o in lines]
    assert kinds.count("error") == 2
    hello = [o for o in lines if o["type"] == "hello"]
    assert len(hello) == 2 and hello[0]["seq"] == 5 and hello[0]["head"] == _head(link)
    assert [o for o in lines if o["type"] == "pong"][0]["token"] == 7
    assert [o for o in lines if o["type"] == "time"][0]["epoch"] == 1764500000
    assert link.wall_time(link.ms + 2000) == 1764500002
    assert link.rejected == 2


def _head(link):
    j = journal.Journal(link.log.storage)  # recovered afresh from the flash
    j.recover()
    return j.prev


def test_every_line_carries_the_journal_id():
    j, link, inp, out = _setup(n_events=5)
    _append(j, link, ("roll", (6,)))
    inp.feed(b"hello\nping 1\nsince 3\n")
    _run(link, 5)
    lines = out.take_lines()
    assert len(lines) == 1 + 1 + 1 + 3 + 1  # live event, hello, pong, back-fill 4..6, end
    for o in lines:
        assert o["v"] == 2 and o["jid"] == JID, o


def test_backfill_starts_in_the_segment_holding_n_and_sends_breaks():
    j, link, inp, out = _setup(n_events=600)
    segs = j.storage.segments()
    assert len(segs) >= 3
    reads = set()
    lines = j.storage.lines

    def counting(seg, start=0):
        for line in lines(seg, start):
            reads.add(seg)
            yield line

    j.storage.lines = counting
    inp.feed(protocol_pc.command("since", 590))
    _run(link, 10)
    events = [o["seq"] for o in out.take_lines() if o["type"] == "event"]
    assert events == list(range(591, 601))
    assert min(reads) == max([s for s in segs if s <= 591]) and min(reads) > segs[0]
    j.storage.lines = lines
    # damage: the check writes a break line, the back-fill sends it
    seg = max([s for s in segs if s <= 595])
    data = bytearray(b"".join(list(j.storage.lines(seg))))
    at = data.find(b"\n595 ") + 3
    data[at] ^= 1
    j.storage.write(seg, data)
    k = journal.Journal(j.storage)
    k.recover()
    if seg != segs[-1]:
        assert journalfix.check(k, seg)
    assert getattr(k, "lost", 0) == 1
    link.log = k  # the journal as recovered afresh
    inp.feed(protocol_pc.command("since", 590))
    _run(link, 10)
    got = out.take_lines()
    assert [o["seq"] for o in got if o["type"] == "event"] == [
        591,
        592,
        593,
        594,
        596,
        597,
        598,
        599,
        600,
        601,  # the device's chained mark of the break: ("lost", (595, 595))
    ]
    assert [o["event"] for o in got if o["type"] == "event" and o["seq"] == 601] == [
        ("lost", (595, 595))
    ]
    breaks = [o for o in got if o["type"] == "break"]
    assert len(breaks) == 1 and breaks[0]["from"] == 595 and breaks[0]["to"] == 595
    assert breaks[0]["prev"] == [o for o in got if o.get("seq") == 596][0]["prev"]


def test_ack_and_repl_commands():
    j, link, inp, out = _setup(n_events=200)
    inp.feed(b"ack 150\nrepl\n")
    _run(link, 3)
    assert j.acked == 150 and link.repl_asked
    written = []
    link.finish(written.append)
    assert protocol_pc.parse(written[-1])["type"] == "repl"
    # an ack beyond what the journal holds counts only what it holds
    inp.feed(b"ack 99999\n")
    _run(link, 2)
    assert j.acked == 200


def test_since_backfills_then_ends():
    _j, link, inp, out = _setup(n_events=300)
    inp.feed(protocol_pc.command("since", 250))
    _run(link, 40)
    lines = out.take_lines()
    events = [o for o in lines if o["type"] == "event"]
    assert [o["seq"] for o in events] == list(range(251, 301))
    assert lines[-1]["type"] == "end" and lines[-1]["seq"] == 300


def test_since_zero_replays_everything_through_a_small_queue():
    j, link, inp, out = _setup(n_events=400, queue_lines=6)
    inp.feed(protocol_pc.command("since", 0))
    seen = bytearray(406)  # seen[seq] = 1 (a bytearray: the test runs in a Pico-sized heap)
    for tick in range(400):
        if 3 <= tick < 8:  # live events keep coming during the back-fill
            _append(j, link, ("roll", (tick,)))
        link.tick(20)
        for o in out.take_lines():
            if o["type"] == "event":
                seen[o["seq"]] = 1
    assert sum(seen) == 405 and not seen[0]


def test_slow_reader_gets_every_line_whole():
    j, link, _inp, out = _setup(chunk=7)
    _run(link, 1)
    _append(j, link, ("new_game", ("free",)))
    got = []
    for i in range(30):
        _append(j, link, ("roll", (i % 6 + 1,)))
        out.room = 25  # the PC reads 25 bytes per tick
        link.tick(10)
        got += out.take_lines()
    for _ in range(300):
        out.room = 25
        link.tick(10)
        got += out.take_lines()
    seqs = [o["seq"] for o in got]
    assert seqs == sorted(seqs) and len(seqs) + link.dropped == 31


def result_hello_and_backfill():
    _j, link, inp, out = _setup(n_events=3)
    inp.feed(b"hello\nsince 1\n")
    _run(link, 5)
    return [line.decode() for line in bytes(out.data).split(b"\n")]


def test_busy_while_a_back_fill_runs_even_with_its_queue_drained():
    """A running back-fill holds a place in a segment: the app mends nothing (a rewrite would
    leave that place stale) until it is over, however fast the PC drains the queue."""
    j, link, inp, out = _setup(n_events=300)
    assert not link.busy()
    inp.feed(protocol_pc.command("since", 0))
    ticks = 0
    while True:
        link.tick(20)
        ticks += 1
        lines = out.take_lines()
        if lines and lines[-1]["type"] == "end":
            break
        assert link.busy() and link.queued() == 0  # drained, the back-fill still going
    assert ticks > 2 and not link.busy()
    link.resend(298)  # lines the journal wrote past on_entry: sent as a back-fill would
    link.tick(20)
    lines = out.take_lines()
    assert [o["seq"] for o in lines] == [299, 300, 300] and lines[-1]["type"] == "end"
