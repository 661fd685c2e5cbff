"""Journal: line format, checksum, hash chain, recovery, undo. Portable: runs under CPython
(pytest) and real MicroPython (tests/mp_runner.py); result_* must match on both."""

import os

from seeded import Seeded

from dicepod import journal
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
    j = journal.Journal(storage or MemoryStorage())
    j.recover()
    ms = 1000
    for event in events:
        j.append(ms, event)
        ms += 250
    return j


def _tmpdir():
    path = "/tmp/dicepod-journal-%s" % "".join("%02x" % b for b in os.urandom(6))
    os.mkdir(path)
    return path


def _rmtree(path):
    for name in os.listdir(path):
        os.remove(path + "/" + name)
    os.rmdir(path)


class _PlainStorage:
    """A storage whose lines() takes no start offset (the journal must still work)."""

    def __init__(self):
        self.inner = MemoryStorage()

    def append(self, line):
        self.inner.append(line)

    def lines(self):
        return self.inner.lines()

    def truncate(self, size):
        self.inner.truncate(size)

    def size(self):
        return self.inner.size()


def test_line_format():
    line = journal.encode(17, 3, 120467, ("roll", (3, 1, 6)), journal.GENESIS)
    assert line.startswith(b'17 3 120467 00000000 ["roll",[3,1,6]] ')
    assert line.endswith(b"\n") and len(line.split(b" ")[-1]) == 9
    entry, body = journal.decode(line)
    assert entry == (17, 3, 120467, ("roll", (3, 1, 6)), journal.GENESIS)
    assert body == line[: line.rfind(b" ")]


def test_decode_rejects_damage():
    line = journal.encode(1, 1, 5, ("roll", (3, 4)), journal.GENESIS)
    bad = (
        line[:-1],  # torn: no newline
        line[:10],
        line.replace(b"[3,4]", b"[3,5]"),  # checksum mismatch
        line[:-3] + b"zz\n",  # bad checksum digits
        b"\n",
        b"garbage\n",
    )
    for damaged in bad:
        try:
            journal.decode(damaged)
        except ValueError:
            continue
        raise AssertionError("accepted %r" % damaged)


def test_canonical_is_json_dumps():
    import json

    rng = Seeded(11)
    names = ("a", "grit.plus", "x_1", "B-2", "c+3")
    for _ in range(300):
        data = []
        for _i in range(rng.randbelow(8)):
            if rng.randbelow(4) == 0:
                data.append(names[rng.randbelow(len(names))])
            else:
                data.append(rng.randbelow(20001) - 10000)
        event = (names[rng.randbelow(len(names))], tuple(data))
        journal.check_event(event)
        expected = json.dumps([event[0], list(event[1])], separators=(",", ":")).encode()
        assert journal.canonical(event) == expected, event


def test_check_event():
    journal.check_event(("roll", (1, 2, 3)))
    journal.check_event(("mod", (-2, "grit.plus_1")))
    journal.check_event(("undo", ()))
    for event in (
        ("roll dice", (1,)),
        ("", ()),
        ("roll", (True,)),
        ("roll", (1.5,)),
        ("mod", ("a b",)),
        ("mod", ('x"',)),
        ("roll", [[1]]),
        ("roll",),
        "roll",
        ("roll", None),
    ):
        try:
            journal.check_event(event)
        except ValueError:
            continue
        raise AssertionError("accepted %r" % (event,))


def test_append_then_recover_restores_state():
    j = _journal()
    k = journal.Journal(j.storage)
    assert k.recover() == len(GAME)
    assert (k.seq, k.game, k.prev, k.size) == (j.seq, j.game, j.prev, j.size)
    assert k.dropped == 0
    # and appending after recovery continues the same chain
    copy = journal.Journal(MemoryStorage(bytes(j.storage.journal)))
    copy.recover()
    assert copy.append(9999, ("roll", (1,))) == j.append(9999, ("roll", (1,)))


def test_game_ids_and_sequence():
    j = _journal(GAME + GAME)
    assert j.seq == 2 * len(GAME) and j.game == 2
    games = [e[1] for _o, e, _b in journal.read_entries(j.storage)]
    assert games == [1] * len(GAME) + [2] * len(GAME)


def test_torn_tail_is_dropped():
    j = _journal()
    good = j.storage.size()
    j.storage.append(b'9 1 5000 abcdef01 ["roll",[1,')  # power cut mid-write
    k = journal.Journal(j.storage)
    assert k.recover() == len(GAME)
    assert k.dropped > 0 and j.storage.size() == good
    assert k.seq == len(GAME)


def test_corrupt_line_falls_back_to_last_good_event():
    j = _journal()
    data = bytearray(j.storage.journal)
    lines = bytes(data).split(b"\n")
    cut = sum(len(x) + 1 for x in lines[:3])  # start of the 4th line
    data[cut + 2] ^= 0x01  # flip a bit in line 4
    storage = MemoryStorage(bytes(data))
    k = journal.Journal(storage)
    assert k.recover() == 3
    assert storage.size() == cut and k.seq == 3
    k.append(1, ("roll", (2,)))
    assert journal.Journal(storage).recover() == 4


def test_broken_chain_or_gap_is_cut():
    a = journal.encode(1, 1, 0, ("new_game", ("free",)), journal.GENESIS)
    h = journal.chain_hash(journal.decode(a)[1])
    b_gap = journal.encode(3, 1, 0, ("roll", (1,)), h)  # seq 2 missing
    b_chain = journal.encode(2, 1, 0, ("roll", (1,)), "12345678")
    b_game = journal.encode(2, 2, 0, ("roll", (1,)), h)  # game id without a new_game
    for second in (b_gap, b_chain, b_game):
        storage = MemoryStorage(a + second)
        assert journal.Journal(storage).recover() == 1
        assert storage.size() == len(a)


def test_empty_and_garbage_storage():
    j = journal.Journal(MemoryStorage())
    assert j.recover() == 0 and j.seq == 0 and j.prev == journal.GENESIS
    assert list(j.game_events()) == []
    storage = MemoryStorage(b"\x00\xff garbage\nmore\n")
    assert journal.Journal(storage).recover() == 0 and storage.size() == 0


def test_game_events_applies_undo():
    j = _journal()
    events = list(j.game_events())
    assert events == journal.effective(GAME)
    assert ("set_aside", (1, 5)) not in events and ("set_aside", (1, 1, 5)) in events
    assert events[0] == ("new_game", ("battle",))


def test_undo_never_cancels_new_game():
    events = (("new_game", ("free",)), ("roll", (1,)), ("undo", ()), ("undo", ()), ("undo", ()))
    j = _journal(events)
    assert list(j.game_events()) == [("new_game", ("free",))]
    assert journal.effective(events) == [("new_game", ("free",))]
    # an ignored undo does not eat a later event
    more = events + (("roll", (2,)), ("roll", (3,)), ("undo", ()))
    j = _journal(more)
    assert list(j.game_events()) == [("new_game", ("free",)), ("roll", (2,))]


def test_game_events_only_current_game():
    second = (("new_game", ("tests",)), ("roll", (4, 4)))
    j = _journal(GAME + second)
    assert list(j.game_events()) == list(second)
    assert j.game_start == sum(len(x) + 1 for x in bytes(j.storage.journal).split(b"\n")[:8])


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
        assert list(j.game_events()) == journal.effective(events)
        k = journal.Journal(j.storage)
        k.recover()
        assert list(k.game_events()) == journal.effective(events)


def test_storage_without_start_offset():
    storage = _PlainStorage()
    j = _journal(GAME + GAME, storage)
    assert list(j.game_events()) == journal.effective(GAME)
    assert [e[0] for _o, e, _b in journal.read_entries(storage, 13)] == [14, 15, 16]


def test_read_entries_since():
    j = _journal(GAME)
    seqs = [e[0] for _o, e, _b in journal.read_entries(j.storage, 5)]
    assert seqs == [6, 7, 8]
    assert list(journal.read_entries(j.storage, 8)) == []


def test_file_storage_long_session_small_ram():
    # Thousands of events on a file: recovery and game_events stream line by line.
    path = _tmpdir()
    try:
        storage = FileStorage(path)
        j = journal.Journal(storage)
        j.recover()
        j.append(0, ("new_game", ("free",)))
        rng = Seeded(3)
        # the expected effective rolls, two faces each, in a bytearray (small RAM)
        faces = bytearray(2 * 2500)
        kept = 0
        for i in range(2500):
            if i % 7 == 6:
                j.append(i, ("undo", ()))
                kept -= 1
            else:
                a, b = rng.randbelow(6) + 1, rng.randbelow(6) + 1
                j.append(i, ("roll", (a, b)))
                faces[2 * kept] = a
                faces[2 * kept + 1] = b
                kept += 1
        k = journal.Journal(storage)
        assert k.recover() == 2501
        n = 0
        for event in k.game_events():
            if n == 0:
                assert event == ("new_game", ("free",))
            else:
                assert event == ("roll", (faces[2 * n - 2], faces[2 * n - 1]))
            n += 1
        assert n == kept + 1
        # a torn tail on a file is cut by rename
        with open(storage.journal_path, "ab") as f:
            f.write(b"2502 1 9")
        k = journal.Journal(storage)
        assert k.recover() == 2501 and k.dropped == 8
    finally:
        _rmtree(path)


def result_chain_bytes():
    """The journal bytes of a fixed session: must be identical on both interpreters."""
    j = _journal(GAME + (("new_game", ("tests",)), ("roll", (6, 6, 1))))
    return bytes(j.storage.journal).decode()


def result_effective_events():
    j = _journal(GAME)
    return [[e[0], list(e[1])] for e in j.game_events()]
