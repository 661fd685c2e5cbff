"""Salvage (dicepod.salvage): a journal its file system lost, read back from the raw flash's
blocks. The blocks are laid out as LittleFS lays out a file (its first block from the file's
start, a later block after its pointer words, stale copies of a block written before the file
grew, blocks in no order) on a block device of the rp2.Flash interface. Portable: runs under
CPython (pytest) and real MicroPython (tests/mp_runner.py); result_* must match on both.
tests/test_salvage_littlefs.py does the same on a real LittleFS image, and tests/test_pico_flips.py
on the emulated Pico."""

import hashlib
import os

from seeded import Seeded

from dicepod import journal
from dicepod.drivers.storage import FileStorage

SIZE = 512  # bytes a block (the Pico's are 4096; smaller ones: more joins, more pointer words)
BLOCKS = 80


class Flash:
    """A block device in RAM (rp2.Flash's interface: readblocks, ioctl 4 and 5); erased is
    0xff. A bytearray a block: no room needed for the whole flash in one piece."""

    def __init__(self):
        self.blocks = [bytearray(b"\xff" * SIZE) for _ in range(BLOCKS)]

    def readblocks(self, block, buf):
        buf[:] = self.blocks[block][: len(buf)]

    def ioctl(self, op, arg):
        return BLOCKS if op == 4 else SIZE if op == 5 else 0

    def put(self, block, data):
        self.blocks[block][: len(data)] = data


def _ctz(n):
    count = 0
    while not n & 1:
        n >>= 1
        count += 1
    return count


def _file_blocks(data):
    """A file's bytes as LittleFS's blocks hold them: [(index, bytes of the block)]."""
    out = []
    at = 0
    index = 0
    while at < len(data) or not out:
        words = 0 if index == 0 else _ctz(index) + 1
        room = SIZE - 4 * words
        out.append((index, b"\x07\x00\x00\x00" * words + data[at : at + room]))
        at += room
        index += 1
    return out


_FOLDERS = []  # the journals' folders (files: a list of lines in RAM fragments a small heap)


def _folder():
    path = "/tmp/dicepod-salvage-%s" % "".join("%02x" % b for b in os.urandom(6))
    os.mkdir(path)
    _FOLDERS.append(path)
    return path


def _clean():
    while _FOLDERS:
        path = _FOLDERS.pop()
        for name in os.listdir(path + "/journal"):
            os.remove(path + "/journal/" + name)
        os.rmdir(path + "/journal")
        os.rmdir(path)


def _cleaned(test):
    """The test, then its journals' folders removed."""

    def run():
        try:
            return test()
        finally:
            _clean()

    return run


def _journal(events, jid="00000000deadbeef"):
    log = journal.Journal(FileStorage(_folder()), lambda: jid)
    log.recover()
    for n in range(events):
        if n % 90 == 0:
            log.append(n, ("new_game", ("free",)))
        elif n % 13 == 5:
            log.append(n, ("undo", ()))
        else:
            log.append(n, ("roll", (n % 6 + 1, (n * 7) % 6 + 1)))
    return log


def _lay_out(storage, flash, rng, lose=None, places=None):
    """Every segment's blocks, each with a stale copy of its first half, at seeded places;
    lose: the number of a block in that order left erased, its copy too; places: the blocks
    free to use. Return the blocks in that order, [(segment, the file offset of its data, its
    data's length)], and the places taken."""
    pieces = []
    for seg in storage.segments():
        data = storage.segment(seg)
        offset = 0
        for index, block in _file_blocks(data):
            words = 0 if index == 0 else _ctz(index) + 1
            pieces.append((block, seg, offset, len(block) - 4 * words))
            offset += len(block) - 4 * words
    if places is None:  # blocks 0, 1: the file system's root, formatted again
        places = list(range(2, BLOCKS))
    order = []
    taken = []
    for block, seg, offset, length in pieces:
        for copy in (block, block[: len(block) // 2]):  # a copy made before the block grew
            place = places.pop(rng.randbelow(len(places)))
            taken.append(place)
            if lose is None or len(order) != lose:
                flash.put(place, copy)
        order.append((seg, offset, length))
    flash.put(0, b"\x01\x00\x00\x00littlefs\n")
    return order, taken


def _events(storage, skip=(), upto=1 << 30):
    """(seqs, digest, breaks, later) of storage's segments: the seqs of the event lines up to
    upto (those in skip left out), a digest of their bytes, the break lines, and the event
    lines after upto (a digest, not the lines: a small heap holds two journals' worth)."""
    seqs = []
    digest = hashlib.sha256()
    breaks = []
    later = []
    for seg in storage.segments():
        for line in storage.lines(seg):
            if line[:1] == b"!":
                breaks.append(line)
            elif line[:1] != b"@":
                seq = journal.seq_of(line)
                if seq > upto:
                    later.append(line)
                elif seq not in skip:
                    seqs.append(seq)
                    digest.update(line)
    return seqs, digest.digest(), breaks, later


def _salvaged(flash):
    storage = FileStorage(_folder(), flash)
    log = journal.Journal(storage, lambda: "1111111111111111")
    log.recover()
    return storage, log


@_cleaned
def test_a_lost_journal_is_read_back_whole_and_goes_on():
    original = _journal(200)
    flash = Flash()
    _lay_out(original.storage, flash, Seeded(48))
    storage, log = _salvaged(flash)
    seqs, digest, breaks, _later = _events(storage)
    assert (seqs, digest) == _events(original.storage)[:2]
    assert seqs == list(range(1, 201)) and breaks == []
    assert log.id == original.id and log.seq == original.seq and log.prev == original.prev
    assert log.notices == ["Flash damaged:", "journal read back", "0 event(s) lost"]
    # the game in progress and its undos, as the original journal has them
    assert list(log.game_events()) == list(original.game_events())
    line = log.append(9, ("roll", (6,)))
    assert line == original.append(9, ("roll", (6,)))


@_cleaned
def test_a_lost_block_is_a_marked_break_and_nothing_else_is_lost():
    original = _journal(200)
    rng = Seeded(7)
    flash = Flash()
    order = _lay_out(original.storage, flash, rng, lose=3)[0]  # a later block of segment 1
    seg, offset, length = order[3]
    assert offset > 0
    gone = []  # the lines whose bytes lay in the lost block
    at = 0
    for line in original.storage.lines(seg):
        if at + len(line) > offset and at < offset + length and line[:1] != b"@":
            gone.append(journal.seq_of(line))
        at += len(line)
    assert gone
    storage, log = _salvaged(flash)
    seqs, digest, breaks, later = _events(storage, upto=original.seq)
    assert (seqs, digest) == _events(original.storage, skip=gone)[:2]
    first, last = gone[0], gone[-1]
    assert len(breaks) == 1 and breaks[0].split(b" ")[1:3] == [b"%d" % first, b"%d" % last]
    assert [journal.decode(line)[0][3] for line in later] == [("lost", (first, last))]
    assert log.notices[2] == "%d event(s) lost" % (last - first + 1)
    # the game in progress (after the lost block) as it was, and the mark in it
    assert list(log.game_events()) == list(original.game_events()) + [("lost", (first, last))]


@_cleaned
def test_an_erased_flash_starts_a_new_journal_and_writes_nothing():
    storage, log = _salvaged(Flash())
    assert log.seq == 0 and storage.segments() == [] and log.notices == []


@_cleaned
def test_the_journal_with_the_newest_segment_is_the_one_read_back():
    # (no block says which journal came later: an older one a wipe left behind has fewer
    # segments, as the journal started since reaches further)
    older = _journal(40, jid="00000000000000bb")
    newer = _journal(200, jid="00000000000000aa")
    assert len(newer.storage.segments()) > len(older.storage.segments())
    flash = Flash()
    rng = Seeded(3)
    taken = _lay_out(older.storage, flash, rng)[1]
    # the newer journal in the blocks left (LittleFS reused none of the older one's)
    _lay_out(newer.storage, flash, rng, places=[p for p in range(2, BLOCKS) if p not in taken])
    storage, log = _salvaged(flash)
    assert log.id == "00000000000000aa" and log.seq == newer.seq
    assert _events(storage)[:2] == _events(newer.storage)[:2]


@_cleaned
def result_salvage():
    original = _journal(150)
    flash = Flash()
    _lay_out(original.storage, flash, Seeded(11), lose=3)
    storage, log = _salvaged(flash)
    seqs, _digest, breaks, _later = _events(storage)
    return [len(seqs), [line.decode() for line in breaks], log.seq, log.prev, log.notices]
