"""Journal: line format, checksum, hash chain, recovery, undo. Portable: runs under CPython
(pytest) and real MicroPython (tests/mp_runner.py); result_* must match on both."""

import os
import sys

from checks import undone
from seeded import Seeded

from dicepod import journal, journalfix
from dicepod.drivers.memstorage import MemoryStorage
from dicepod.drivers.storage import FileStorage

GAME = (
    ("new_game", ("battle",)),
    ("set", ("battle.target", 10000)),
    ("roll", (3, 1, 6, 6, 2, 5)),
    ("set_aside", (1, 5)),
    ("undo", ()),
    ("set_aside", (1, 1, 5)),
    ("bank", ()),
    ("mod", (-1, "grit.plus")),
)


def _journal(events=GAME, storage=None):
    j = journal.Journal(storage or MemoryStorage(), lambda: "00000000deadbeef")
    j.recover()
    ms = 1000
    for event in events:
        j.append(ms, event)
        ms += 250
    return j


# MicroPython's heap (190 KB here, 64-bit objects) holds a journal of about 1,700 lines: the
# tests keep large journals on files, and small flashes small there.
MP = sys.implementation.name == "micropython"


def _count(iterable):
    n = 0
    for _ in iterable:
        n += 1
    return n


def _tmpdir():
    path = "/tmp/dicepod-journal-%s" % "".join("%02x" % b for b in os.urandom(6))
    os.mkdir(path)
    return path


def _rmtree(path):
    for name in os.listdir(path):
        try:
            os.remove(path + "/" + name)
        except OSError:
            _rmtree(path + "/" + name)
    os.rmdir(path)


_STATE = (
    "seq",
    "game",
    "prev",
    "id",
    "seg",
    "seg_size",
    "game_seg",
    "game_start",
    "game_length",
    "game_undos",
)


def _state(j):
    return [getattr(j, name) for name in _STATE]


def _events(j, since=0):
    return [(e[0], e[1], e[3]) for _s, e, _b in journalfix.read_entries(j, since)]


def _ids():
    n = [0]

    def new_id():
        n[0] += 1
        return "%016x" % (0xA5A5 * n[0])

    return new_id


def _event(n, per_game):
    """The n-th event (from 0) of a journal of games of per_game free-roll events."""
    i = n % per_game
    if i == 0:
        return ("new_game", ("free",))
    if i % 11 == 10:
        return ("undo", ())
    return ("roll", ((n * 7) % 6 + 1, (n // 3) % 6 + 1))


def _long(j, games=4, per_game=150):
    """Games of free rolls (and an undo now and then); return how many events. The events
    are not kept (a list of them would fill MicroPython's heap): _event(n) makes them again."""
    for n in range(games * per_game):
        j.append(n * 10, _event(n, per_game))
    return games * per_game


def _same_events(j, count, per_game, first=1):
    """Assert the journal's events are _event(first - 1 ..count - 1)."""
    n = first - 1
    for _s, e, _b in journalfix.read_entries(j):
        assert e[0] == n + 1 and e[3] == _event(n, per_game), (e, n)
        n += 1
    assert n == count, (n, count)


def chain_ok(j):
    """Walk every line of every segment like the PC does: the chain holds line to line,
    resuming only at a break line; return (events, lost) or raise AssertionError."""
    seq = j.storage.segments()[0] - 1 if j.storage.segments() else 0
    prev = None
    events = 0
    lost = 0
    for _seg, _off, line in j.lines(0, j.storage.segments()[0] if j.storage.segments() else 0):
        if line[:1] == b"!":
            first, last, resume = journalfix.decode_break(line)
            assert first == seq + 1, (first, seq)
            lost += last - first + 1
            seq = last
            prev = resume
            continue
        entry, body = journal.decode(line)
        assert entry[0] == seq + 1, (entry[0], seq)
        assert prev is None or entry[4] == prev, entry[0]
        seq = entry[0]
        prev = journal.chain_hash(body)
        events += 1
    assert seq == j.seq and prev in (None, j.prev)
    return events, lost


def test_append_then_recover_restores_state():
    j = _journal()
    k = journal.Journal(j.storage)
    assert k.recover() == len(GAME)
    assert _state(k) == _state(j)
    assert getattr(k, "dropped", 0) == 0 and k.notices == [] and getattr(k, "lost", 0) == 0
    assert len(j.id) == 16
    # and appending after recovery continues the same chain
    copy = journal.Journal(MemoryStorage())
    for seg in j.storage.segments():
        copy.storage.write(seg, j.storage.segment(seg))
    copy.recover()
    assert copy.append(9999, ("roll", (1,))) == j.append(9999, ("roll", (1,)))


def test_game_ids_and_sequence():
    j = _journal(GAME + GAME)
    assert j.seq == 2 * len(GAME) and j.game == 2
    games = [e[1] for _s, e, _b in journalfix.read_entries(j)]
    assert games == [1] * len(GAME) + [2] * len(GAME)


def test_game_events_applies_undo():
    j = _journal()
    events = list(j.game_events())
    assert events == undone(GAME)
    assert ("set_aside", (1, 5)) not in events and ("set_aside", (1, 1, 5)) in events
    assert events[0] == ("new_game", ("battle",))


def test_undo_never_cancels_new_game():
    events = (("new_game", ("free",)), ("roll", (1,)), ("undo", ()), ("undo", ()), ("undo", ()))
    j = _journal(events)
    assert list(j.game_events()) == [("new_game", ("free",))]
    assert journalfix.effective(events) == [("new_game", ("free",))]
    # an ignored undo does not eat a later event
    more = events + (("roll", (2,)), ("roll", (3,)), ("undo", ()))
    j = _journal(more)
    assert list(j.game_events()) == [("new_game", ("free",)), ("roll", (2,))]


def test_game_events_only_current_game():
    second = (("new_game", ("tests",)), ("roll", (4, 4)))
    j = _journal(GAME + second)
    assert list(j.game_events()) == list(second)
    assert j.game_start == sum(len(x) + 1 for x in j.storage.segment(1).split(b"\n")[:9])


def test_streamed_undo_matches_list_undo_random():
    rng = Seeded(7)
    for _trial in range(40):
        events = [("new_game", ("free",))]
        for i in range(rng.randbelow(30)):
            if rng.randbelow(3) == 0:
                events.append(("undo", ()))
            else:
                events.append(("roll", (i, rng.randbelow(6) + 1)))
        j = _journal(events)
        assert list(j.game_events()) == undone(events)
        k = journal.Journal(j.storage)
        k.recover()
        assert list(k.game_events()) == undone(events)


def test_read_entries_since():
    j = _journal(GAME)
    seqs = [e[0] for _o, e, _b in journalfix.read_entries(j, 5)]
    assert seqs == [6, 7, 8]
    assert list(journalfix.read_entries(j, 8)) == []


def test_segments_rotate_and_recovery_reads_only_the_last():
    path = _tmpdir()
    try:
        _segments_rotate(FileStorage(path))
    finally:
        _rmtree(path)


def test_a_stale_or_missing_hint_falls_back_to_the_listing():
    # The side file "ack" names the last segment (written as each starts); a power cut
    # between it and the segment, or a damaged one, must not lose the newer segment.
    path = _tmpdir()
    try:
        _stale_hints(FileStorage(path), path + "/journal/ack")
    finally:
        _rmtree(path)


def _stale_hints(storage, ack):
    j = journal.Journal(storage, _ids())
    j.recover()
    events = _long(j, games=3, per_game=190)
    segs = storage.segments()
    assert len(segs) >= 3
    good = b"".join(list(storage.lines("ack")))
    assert good == ("0 %s %d\n" % (j.id, segs[-1])).encode()
    for case in ("older", "absent segment", "garbage", "no file", "sound"):
        if case == "older":
            storage.write("ack", ("0 %s %d\n" % (j.id, segs[-2])).encode())
        elif case == "absent segment":
            storage.write("ack", ("0 %s %d\n" % (j.id, segs[-1] + 7)).encode())
        elif case == "garbage":
            storage.write("ack", b"12 zz\x00 x\n")
        elif case == "no file":
            os.remove(ack)
        else:
            storage.write("ack", good)
        k = journal.Journal(storage)
        assert k.recover() == events, case
        assert _state(k) == _state(j), case
        assert k.notices == [], case
    k.append(0, ("roll", (1,)))  # and it goes on where it was
    assert k.seq == events + 1 and k.seg == j.seg


def _size(storage, seg):
    n = 0
    for line in storage.lines(seg):
        n += len(line)
    return n


def _first_line(storage, seg):
    lines = storage.lines(seg)
    for line in lines:
        lines.close()
        return line


def _segments_rotate(storage):
    j = journal.Journal(storage, _ids())
    j.recover()
    events = _long(j, games=6, per_game=200)
    _same_events(j, events, 200)
    segs = storage.segments()
    assert len(segs) >= 6, segs
    for seg in segs:
        assert _size(storage, seg) <= 8192
    # every segment names its first event and starts with a header of the same journal
    for seg in segs:
        first = _first_line(storage, seg)
        parts = journalfix.meta_fields(first, 10)
        assert parts[0] == "@" and parts[1] == j.id and int(parts[2]) == seg
    reads = set()
    lines = storage.lines

    def counting(seg, start=0):
        for line in lines(seg, start):
            reads.add(seg)
            yield line

    listings = []
    segments = storage.segments

    def listing():
        listings.append(1)
        return segments()

    storage.lines = counting
    storage.segments = listing
    k = journal.Journal(storage)
    assert k.recover() == events
    # the header and lines of the last one only (the side file "ack" names it: no listing)
    assert reads == {segs[-1], "ack"}, reads
    assert listings == []
    storage.segments = segments
    assert _state(k) == _state(j)
    reads.clear()
    expected = undone([_event(n, 200) for n in range(events - 200, events)])
    n = 0
    for event in k.game_events():
        assert event == expected[n]
        n += 1
    assert n == len(expected)
    expected = None
    storage.lines = lines
    assert min(reads) >= k.game_seg
    assert chain_ok(k) == (events, 0)
    # a back-fill from seq N opens the segment holding N + 1, not the first
    storage.lines = counting
    reads.clear()
    n = 1000
    for seq, _e, _b in journalfix.read_entries(k, 1000):
        n += 1
        assert seq == n
    assert n == events
    assert min(reads) == max([s for s in segs if s <= 1001])


def test_torn_tail_is_dropped_silently():
    j = _journal()
    good = j.storage.size(j.seg)
    j.storage.append(j.seg, b'9 1 5000 abcdef01 ["roll",[1,')  # power cut mid-write
    k = journal.Journal(j.storage)
    assert k.recover() == len(GAME)
    assert getattr(k, "dropped", 0) > 0 and j.storage.size(j.seg) == good
    assert k.notices == [] and _side(j.storage, "damaged") is None
    assert _state(k) == _state(j)


def test_corrupt_line_loses_only_its_event():
    j = _journal()
    seg = j.seg
    data = bytearray(j.storage.segment(seg))
    lines = bytes(data).split(b"\n")
    cut = sum(len(x) + 1 for x in lines[:4])  # header + 3 events: the 4th event's line
    data[cut + 2] ^= 0x01  # flip a bit in event 4
    j.storage.write(seg, data)
    damaged_line = lines[4] + b"\n"
    k = journal.Journal(j.storage)
    # the later events are kept, and the break is chained: ("lost", (4, 4)) after them
    assert k.recover() == len(GAME) + 1
    assert getattr(k, "lost", 0) == 1 and k.seq == j.seq + 1
    assert k.notices and "1 event(s) lost" in k.notices
    kept = _side(j.storage, "damaged")
    assert kept is not None and len(kept) == len(damaged_line) and kept != damaged_line
    assert chain_ok(k) == (len(GAME), 1)
    # the game is folded without the lost event (the undo now cancels set_aside(1, 1, 5)...)
    expected = undone(GAME[:3] + GAME[4:]) + [("lost", (4, 4))]
    assert list(k.game_events()) == expected
    # a second boot finds it mended: no new notice, same state
    m = journal.Journal(j.storage)
    assert m.recover() == len(GAME) + 1 and m.notices == [] and _state(m) == _state(k)
    k.append(1, ("roll", (2,)))
    assert journal.Journal(j.storage).recover() == len(GAME) + 2


def test_damaged_end_is_cut_with_a_notice():
    j = _journal()
    data = bytearray(j.storage.segment(j.seg))
    data[len(data) - 5] ^= 0x04  # the last line, complete but damaged
    j.storage.write(j.seg, data)
    k = journal.Journal(j.storage)
    # its seq is marked lost (a break, chained by ("lost", (8, 8))), never written again
    assert k.recover() == len(GAME) + 1
    assert "1 event(s) lost" in k.notices and getattr(k, "lost", 0) == 1
    assert _side(j.storage, "damaged") is not None
    assert chain_ok(k) == (len(GAME), 1)
    assert list(k.game_events())[-1] == ("lost", (len(GAME), len(GAME)))
    assert journal.Journal(j.storage).recover() == len(GAME) + 1


def test_a_byte_flipped_anywhere_loses_at_most_that_line():
    # A journal of several segments; one byte flipped at a time at many places (the last
    # segment is checked by recover(), older ones by check()).
    path = _tmpdir()
    other = _tmpdir()
    try:
        _byte_flips(CappedFiles(path, 1 << 20), other)
    finally:
        _rmtree(path)
        _rmtree(other)


def _byte_flips(storage, other):
    base = journal.Journal(storage, _ids())
    base.recover()
    events = _long(base, games=2, per_game=200)
    segs = base.storage.segments()
    assert len(segs) >= 3
    rng = Seeded(9)
    trials = 0
    for seg in segs:
        size = base.storage.size(seg)
        header = len(_first_line(base.storage, seg))
        for _ in range(25):
            at = rng.randbelow(size)
            storage = _copy(base.storage, other)
            data = bytearray(_whole(storage, seg))
            data[at] ^= 1 << rng.randbelow(8)
            storage.write(seg, data)
            data = None
            k = journal.Journal(storage)
            k.recover()
            notices = list(k.notices)
            for older in storage.segments()[:-1]:
                notices += journalfix.check(k, older)
            n, lost = chain_ok(k)
            marks = [e for e in _kinds(k) if e == "lost"]
            if at < header:
                # a header: rebuilt from the segment before (or resumed); no event lost
                assert n == events and lost == 0, (seg, at)
            else:
                # each event lost is marked: a break, and its chained ("lost", ...) event
                assert lost <= 1 and n - len(marks) >= events - 1, (seg, at, lost, n)
                assert notices, (seg, at)
                assert len(marks) == (1 if lost else 0), (seg, at, lost, marks)
            assert k.seq == events + len(marks)
            trials += 1
    assert trials == 25 * len(segs)
    base = None


def _kinds(k):
    """The kinds of every event line of k's journal."""
    out = []
    for _seg, _off, line in k.lines(0, k.storage.segments()[0]):
        if line[:1] != b"!":
            out.append(journal.decode(line)[0][3][0])
    return out


def test_broken_chain_or_gap_is_damage():
    a = journalfix.encode(1, 1, 0, ("new_game", ("free",)), journal.GENESIS)
    h = journal.chain_hash(journal.decode(a)[1])
    b_gap = journalfix.encode(3, 1, 0, ("roll", (1,)), h)  # seq 2 missing
    b_chain = journalfix.encode(2, 1, 0, ("roll", (1,)), "12345678")
    b_game = journalfix.encode(2, 2, 0, ("roll", (1,)), h)  # game id without a new_game
    for second in (b_gap, b_chain, b_game):
        storage = MemoryStorage(a + second)  # an older firmware's journal.log: segment 1
        j = journal.Journal(storage)
        assert j.recover() == 1
        assert storage.segment(1) == a and j.notices
        assert storage.segments() == [1, 2] and len(j.id) == 16  # given an identity


def test_empty_and_garbage_storage():
    j = journal.Journal(MemoryStorage())
    assert j.recover() == 0 and j.seq == 0 and j.prev == journal.GENESIS and j.id == ""
    assert list(j.game_events()) == []
    storage = MemoryStorage(b"\x00\xff garbage\nmore\n")
    k = journal.Journal(storage)
    assert k.recover() == 0 and k.notices and storage.segments() == [1]
    assert storage.segment(1).startswith(b"@ ") and storage.segment(1).count(b"\n") == 1


def test_journal_ids_differ_and_survive():
    a = _journal(GAME, journal.Journal(MemoryStorage(), lambda: "0123456789abcdef").storage)
    j = journal.Journal(MemoryStorage(), lambda: "0123456789abcdef")
    j.recover()
    j.append(0, ("new_game", ("free",)))
    assert j.id == "0123456789abcdef"
    k = journal.Journal(j.storage, lambda: "ffffffffffffffff")
    k.recover()
    assert k.id == "0123456789abcdef"  # kept from the header, not made again
    assert a.id != ""


class CappedFiles(FileStorage):
    """FileStorage on a flash of capacity bytes: free() counts down and a write that does not
    fit raises OSError 28 and writes nothing, as LittleFS does. (Files, not RAM: MicroPython's
    heap here cannot hold a large journal next to the tests.)"""

    def __init__(self, root, capacity):
        super().__init__(root)
        self.capacity = capacity

    def size(self, seg):
        try:
            return os.stat("%s/%s" % (self.dir, seg))[6]
        except OSError:
            return 0

    def used(self):
        n = 0
        for seg in self.segments():
            n += self.size(seg)
        for name in ("ack", "damaged"):
            n += len(_side(self, name) or b"")
        return n

    def free(self):
        return self.capacity - self.used()

    def append(self, seg, line):
        if self.used() + len(line) > self.capacity:
            raise OSError(28)
        super().append(seg, line)

    def write(self, seg, data):
        if self.used() - self.size(seg) + len(data) > self.capacity:
            raise OSError(28)
        super().write(seg, data)


def _side(storage, name):
    """A journal side file's bytes, or None."""
    data = b"".join(list(storage.lines(name)))
    return data or None


def _whole(storage, seg):
    """A segment file's bytes, read whole: one block of RAM, not a list of its lines (a list
    held while storage.lines() reads on leaves the heap too fragmented for the next copy)."""
    with open("%s/%d" % (storage.dir, seg), "rb") as f:
        return f.read()


def _copy(storage, path):
    """A CappedFiles in path holding the same files as storage."""
    copy = CappedFiles(path, storage.capacity)
    for seg in copy.segments():
        copy.remove(seg)
    for seg in storage.segments():
        copy.write(seg, _whole(storage, seg))
    for name in ("ack", "damaged"):
        data = _side(storage, name)
        if data is not None:
            copy.write(name, data)
        else:
            try:
                os.remove(copy.dir + "/" + name)
            except OSError:
                pass
    copy._segs = None
    return copy


def test_full_flash_prunes_acknowledged_then_old_games_never_the_current():
    path = _tmpdir()
    try:
        _full_flash(CappedFiles(path, 64 * 1024))
    finally:
        _rmtree(path)


def _full_flash(storage):
    j = journal.Journal(storage, _ids())
    j.recover()
    j.append(0, ("new_game", ("free",)))
    for i in range(600):
        j.append(i, ("roll", (i % 6 + 1, 1)))
    assert getattr(j, "pruned", 0) == 0 and j.notices == []
    j.acked = 400
    ms = 0
    for _game in range(12):  # far more than fits
        j.append(ms, ("new_game", ("free",)))
        for i in range(150):
            j.append(ms, ("roll", (i % 6 + 1, 2)))
            ms += 1
    assert storage.free() >= 0 and storage.used() <= 64 * 1024
    assert getattr(j, "pruned", 0) > 0 and "Flash full: old games" in j.notices
    # the acknowledged events went silently: only unacknowledged ones count as pruned
    assert getattr(j, "pruned", 0) <= j.seq - 400
    # the current game is whole, and the journal recovers to the same state
    assert next(iter(j.game_events())) == ("new_game", ("free",)) and j.game_length == 151
    assert _count(j.game_events()) == 151
    k = journal.Journal(storage)
    k.recover()
    assert _state(k) == _state(j)
    assert chain_ok(k)[0] == j.seq - storage.segments()[0] + 1


def test_the_game_in_progress_is_never_dropped():
    path = _tmpdir()
    try:
        _game_in_progress(CappedFiles(path, 24 * 1024))
    finally:
        _rmtree(path)


def _game_in_progress(storage):
    j = journal.Journal(storage, _ids())
    j.recover()
    j.append(0, ("new_game", ("free",)))
    written = 1
    try:
        for i in range(5000):
            j.append(i, ("roll", (i % 6 + 1,)))
            written += 1
        raise AssertionError("a flash that cannot hold the game must refuse the event")
    except OSError:
        pass
    assert j.seq == written and storage.segments()[0] == 1 and getattr(j, "full", False)
    k = journal.Journal(storage)
    k.recover()
    assert k.seq == written and _count(k.game_events()) == written


def test_power_cut_after_every_change_in_rotation_and_pruning():
    path = _tmpdir()
    other = _tmpdir()
    try:
        _power_cuts(CappedFiles(path, 40 * 1024), other)
    finally:
        _rmtree(path)
        _rmtree(other)


def _power_cuts(storage, other):
    # Every change of the storage is one atomic step here (as an erase or a program of
    # LittleFS's is); the flash is copied and recovered right before and right after each
    # change made for rotation and pruning (headers, deletions, the ack file) and before the
    # line appended next: every completed event is kept, and nothing else.
    state = {"checks": 0, "after": False, "pruned": 0, "done": 0}

    def check():
        copy = _copy(storage, other)
        k = journal.Journal(copy)
        k.recover()
        done = state["done"]
        assert k.seq == done, (k.seq, done)
        first = copy.segments()[0] if copy.segments() else 1
        _same_events(k, done, 160, first)
        if done:
            assert next(iter(k.game_events())) == ("new_game", ("free",))
        chain_ok(k)
        copy = k = None
        state["checks"] += 1

    for name in ("append", "write", "remove"):
        real = getattr(storage, name)

        def op(*args, real=real, name=name):
            if name != "append" or state["after"]:
                check()
            result = real(*args)
            state["after"] = name != "append"
            if name == "remove":
                state["pruned"] += 1
            if name != "append":
                check()
            return result

        setattr(storage, name, op)
    j = journal.Journal(storage, _ids())
    j.recover()
    for n in range(8 * 160):
        j.append(n, _event(n, 160))
        state["done"] += 1
        if n % 160 == 159:
            j.acked = j.seq - 100
    check()
    assert state["pruned"] >= 3 and state["checks"] > 30, state


def test_file_storage_long_session_and_legacy_file():
    path = _tmpdir()
    try:
        # an older firmware's journal.log becomes segment 1 and gets an identity
        old = _journal(GAME)
        with open(path + "/journal.log", "wb") as f:
            data = old.storage.segment(1)
            f.write(data[data.find(b"\n") + 1 :])
        storage = FileStorage(path)
        j = journal.Journal(storage, _ids())
        assert j.recover() == len(GAME) and len(j.id) == 16
        assert storage.segments() == [1, len(GAME) + 1]
        assert list(j.game_events()) == undone(GAME)
        rng = Seeded(3)
        for i in range(1200):
            j.append(i, ("roll", (rng.randbelow(6) + 1, rng.randbelow(6) + 1)))
        k = journal.Journal(FileStorage(path))
        assert k.recover() == j.seq and _state(k) == _state(j)
        assert _count(k.game_events()) == len(undone(GAME)) + 1200
        # a torn tail on a file is cut by rewriting the (small) last segment
        with open("%s/journal/%d" % (path, k.seg), "ab") as f:
            f.write(b"%d 1 9" % (j.seq + 1))  # the next event's line, torn
        m = journal.Journal(FileStorage(path))
        assert m.recover() == j.seq and getattr(m, "dropped", 0) == 8 and m.notices == []
        assert chain_ok(m) == (j.seq, 0)
    finally:
        _rmtree(path)


def result_chain_bytes():
    """The journal bytes of a fixed session: must be identical on both interpreters."""
    j = _journal(GAME + (("new_game", ("tests",)), ("roll", (6, 6, 1))))
    return j.storage.data().decode()


def result_effective_events():
    j = _journal(GAME)
    return [[e[0], list(e[1])] for e in j.game_events()]


def test_game_event_reads_what_decode_reads_and_refuses_what_it_must():
    # The game's fold reads (game, event) with journal.game_event: the same as decode() on
    # every line a journal writes; a wrong checksum, and a line whose checksum is right but
    # whose event is not (kind, [ints and names]), raise ValueError.
    j = _journal()
    for _seg, _offset, line in j.lines(0, j.storage.segments()[0]):
        entry = journal.decode(line)[0]
        assert journal.game_event(line) == (entry[1], entry[3])
    good = journalfix.encode(7, 2, 40, ("roll", (3, 5)), journal.GENESIS)
    assert journal.game_event(good) == (2, ("roll", (3, 5)))
    bad_crc = good[:-2] + (b"0" if good[-2:-1] != b"0" else b"1") + b"\n"
    for body in (
        b'7 2 40 00000000 {"roll":[3]}',
        b'7 2 40 00000000 ["roll",[3],1]',
        b'7 2 40 00000000 ["roll",[[3]]]',
        b'7 2 40 00000000 ["roll",[true]]',
        b"7 2 40 00000000 [3,[3]]",
        b'7 2 40 00000000 ["roll",3]',
        b"7 2 40 00000000 nojson",
        b'7 x 40 00000000 ["roll",[3]]',
    ):
        line = body + (" %08x\n" % journal.checksum(body)).encode()
        for bad in (line, bad_crc, good[:-1]):
            try:
                journal.game_event(bad)
            except ValueError:
                continue
            raise AssertionError(bad)


def test_file_storage_lines_of_every_length_around_its_buffer():
    # FileStorage.lines reads 128-byte blocks and splits them itself: lines shorter than a
    # block, as long as one and spanning several, from any offset, and a torn last line,
    # come back as they were written.
    path = _tmpdir()
    try:
        storage = FileStorage(path)
        rng = Seeded(11)
        lines = []
        for n in (1, 2, 75, 126, 127, 128, 129, 200, 255, 256, 257, 600, 3, 127):
            lines.append(bytes([97 + rng.randbelow(26) for _ in range(n - 1)]) + b"\n")
        for _ in range(60):
            n = rng.randbelow(140) + 1
            lines.append(bytes([97 + rng.randbelow(26) for _ in range(n - 1)]) + b"\n")
        data = b"".join(lines)
        storage.write(7, data + b"torn tail")
        assert list(storage.lines(7)) == lines + [b"torn tail"]
        offset = 0
        for i in range(len(lines)):
            if i % 7 == 0:
                assert list(storage.lines(7, offset)) == lines[i:] + [b"torn tail"], i
            offset += len(lines[i])
        storage.write(8, data)
        assert list(storage.lines(8)) == lines
        assert list(storage.lines(9)) == []  # no such segment
        # read_into (History's one buffer): the segment's bytes and size; 0 for a missing
        # one, -1 and nothing read for one larger than the buffer
        buf = bytearray(len(data) + 9)
        assert storage.read_into(7, buf) == len(buf) and bytes(buf) == data + b"torn tail"
        buf[:] = bytes(len(buf))
        assert storage.read_into(8, buf) == len(data) and bytes(buf[: len(data)]) == data
        assert storage.read_into(9, buf) == 0
        small = bytearray(len(data) - 1)
        assert storage.read_into(8, small) == -1 and small == bytearray(len(data) - 1)
    finally:
        _rmtree(path)
