"""Salvage (dicepod.salvage) on a real LittleFS: the journal written event by event through
littlefs-python, configured as the rp2 port's file system (352 blocks of 4 KiB, 256-byte
programs), then the file system formatted again, as MicroPython does at power-on with one that
no longer mounts. The journal is read back from the raw blocks onto the new file system (whose
writes may reuse any of those blocks), and a later power-on recovers it as any journal."""

import pytest

littlefs = pytest.importorskip("littlefs")

from dicepod import journal  # noqa: E402
from dicepod_host import pico as pico_module  # noqa: E402

JID = "00000000c0ffee48"


def _fs(buffer=None):
    fs = littlefs.LittleFS(
        block_size=pico_module.FS_BLOCK,
        block_count=pico_module.FS_BLOCKS,
        prog_size=pico_module.FS_PROG,
        read_size=32,
        cache_size=pico_module.FS_PROG,
        lookahead_size=32,
        mount=buffer is None,
    )
    if buffer is not None:
        fs.context.buffer[:] = buffer
        fs.mount()
    return fs


class Flash:
    """The raw blocks under a littlefs-python file system (rp2.Flash's interface)."""

    def __init__(self, fs):
        self.buffer = fs.context.buffer

    def readblocks(self, block, buf):
        at = block * pico_module.FS_BLOCK
        buf[:] = self.buffer[at : at + len(buf)]

    def ioctl(self, op, arg):
        return pico_module.FS_BLOCKS if op == 4 else pico_module.FS_BLOCK if op == 5 else 0


class LfsStorage:
    """dicepod.drivers.storage's interface on littlefs-python (the journal folder only)."""

    def __init__(self, fs, raw=None):
        self.fs = fs
        self.raw = raw
        try:
            fs.mkdir("journal")
        except FileExistsError:
            pass

    def segments(self):
        return sorted(int(n) for n in self.fs.listdir("journal") if n.isdigit())

    def segment(self, seg):
        try:
            with self.fs.open("journal/%s" % seg, "rb") as f:
                return f.read()
        except FileNotFoundError:
            return b""

    def lines(self, seg, start=0):
        data = self.segment(seg)[start:]
        yield from data.splitlines(keepends=True)

    def append(self, seg, line):
        with self.fs.open("journal/%d" % seg, "ab") as f:
            f.write(line)

    def write(self, seg, data):
        if isinstance(data, list):
            data = b"".join(data)
        with self.fs.open("journal/tmp", "wb") as f:
            f.write(data)
        self.fs.rename("journal/tmp", "journal/%s" % seg)

    def remove(self, seg):
        self.fs.remove("journal/%d" % seg)

    def free(self, total=False):
        return None


def _written(events):
    fs = _fs()
    log = journal.Journal(LfsStorage(fs), lambda: JID)
    log.recover()
    for n in range(events):
        if n % 150 == 0:
            log.append(n, ("new_game", ("free",)))
        elif n % 11 == 4:
            log.append(n, ("undo", ()))
        else:
            log.append(n, ("roll", (n % 6 + 1, n % 5 + 1, n % 4 + 1)))
    return fs, log


def _lines(storage):
    return [line for seg in storage.segments() for line in storage.lines(seg)]


def _formatted_again(fs):
    """The file system formatted again (its journal gone from the directory, its blocks not)."""
    fs.format()
    fs.mount()
    assert fs.listdir("/") == []
    return fs


@pytest.mark.parametrize("events", [450, 1400])
def test_a_formatted_file_system_gives_its_journal_back(events):
    fs, original = _written(events)
    segs = original.storage.segments()
    before = _lines(original.storage)
    game = list(original.game_events())
    fs = _formatted_again(fs)
    storage = LfsStorage(fs, Flash(fs))
    log = journal.Journal(storage, lambda: "1111111111111111")
    log.recover()
    assert log.id == JID
    kept = segs[-6:]  # the newest six segments are read back whole (dicepod.salvage._KEEP)
    after = [line for line in _lines(storage) if line[:1] not in b"@!"]
    keep = [line for line in before if line[:1] != b"@" and journal.seq_of(line) >= kept[0]]
    if len(segs) <= 6:
        assert after == keep
        assert log.notices == ["Flash damaged:", "journal read back", "0 event(s) lost"]
        assert (log.seq, log.prev) == (original.seq, original.prev)
    else:  # the older ones are one marked break, and its chained lost event
        breaks = [line for line in _lines(storage) if line[:1] == b"!"]
        assert [b.split(b" ")[1:3] for b in breaks] == [[b"1", b"%d" % (kept[0] - 1)]]
        assert after[:-1] == keep
        (entry, _body) = journal.decode(after[-1])
        assert entry[0] == original.seq + 1 and entry[3] == ("lost", (1, kept[0] - 1))
        assert log.notices[2] == "%d event(s) lost" % (kept[0] - 1)
        game.append(entry[3])  # (in the game in progress, as every mark is)
    assert list(log.game_events()) == game
    # the journal read back goes on, and the next power-on recovers it as any journal
    log.append(5, ("roll", (4,)))
    again = journal.Journal(LfsStorage(_fs(fs.context.buffer)), lambda: "2222222222222222")
    again.recover()
    assert (again.id, again.seq, again.prev) == (JID, log.seq, log.prev)
    assert again.notices == []
    assert list(again.game_events()) == game + [("roll", (4,))]
