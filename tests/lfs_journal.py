"""The journal on MicroPython's real LittleFS (vfs.VfsLfs2 on a block device in RAM, 4 KB
blocks as on a Pico), run by tests/test_journal_lfs.py under the unix port with a large heap:

    micropython lfs_journal.py powercut | full | boot

powercut: a session of games with rotation, pruning (a 64 KB flash) and acknowledgements, with
every erase and program recorded. Then the flash image is rebuilt op by op, and after every op
made while a segment was started, deleted or the ack file written (and the append after), a
copy is mounted and recovered: every completed event is kept (the one being written may be
there too, whole), nothing else, and the chain holds.
full: a flash filled to its last block keeps taking events (1,000 more), deleting the oldest
(acknowledged) games; the game in progress stays whole.
boot: boot (recover) time with an empty journal, 10,000 events, and a full flash.
Prints one JSON line of results."""

import json
import os
import sys
import time

import vfs

from dicepod import journal, journalfix
from dicepod.drivers.storage import FileStorage

BLOCK = 4096


class Blocks:
    """A block device in RAM; log=True records every erase and program (block, offset, data)."""

    def __init__(self, blocks, log=False):
        self.data = bytearray(b"\xff" * (blocks * BLOCK))
        self.ops = [] if log else None
        self.count = 0
        self.mark = None  # called after every op (the test's bookkeeping)

    def readblocks(self, block, buf, offset=0):
        at = block * BLOCK + offset
        buf[:] = self.data[at : at + len(buf)]

    def writeblocks(self, block, buf, offset=None):
        if offset is None:
            self._erase(block)
            offset = 0
        at = block * BLOCK + offset
        self.data[at : at + len(buf)] = buf
        self._op(block, offset, bytes(buf))

    def _erase(self, block):
        at = block * BLOCK
        self.data[at : at + BLOCK] = b"\xff" * BLOCK
        self._op(block, -1, b"")

    def _op(self, block, offset, data):
        self.count += 1
        if self.ops is not None:
            self.ops.append((block, offset, data))
        if self.mark is not None:
            self.mark()

    def ioctl(self, op, arg):
        if op == 4:
            return len(self.data) // BLOCK
        if op == 5:
            return BLOCK
        if op == 6:
            self._erase(arg)
        return 0


_MOUNTS = [0]


def mount(device, make=False):
    if make:
        vfs.VfsLfs2.mkfs(device)
    _MOUNTS[0] += 1
    point = "/lfs%d" % _MOUNTS[0]
    vfs.mount(vfs.VfsLfs2(device), point)
    return point


def event(n, per_game):
    i = n % per_game
    if i == 0:
        return ("new_game", ("free",))
    if i % 13 == 12:
        return ("undo", ())
    return ("roll", ((n * 7) % 6 + 1, (n // 5) % 6 + 1))


def ids():
    n = [0]

    def new_id():
        n[0] += 1
        return "%016x" % (0x51D0 + n[0])

    return new_id


def check(point, done, per_game):
    """Recover the journal at point; assert completed events only; return its seq."""
    log = journal.Journal(FileStorage(point))
    seq = log.recover()
    assert seq == done or seq == done + 1, (seq, done)
    segs = log.storage.segments()
    n = (segs[0] - 1) if segs else 0
    for got, entry, _body in journalfix.read_entries(log):
        assert got == n + 1 and entry[3] == event(n, per_game), (got, n)
        n += 1
    assert n == seq, (n, seq)
    if seq:
        assert next(iter(log.game_events()))[0] == "new_game"
    return seq


def powercut():
    per_game = 150
    device = Blocks(16)
    point = mount(device, make=True)
    storage = FileStorage(point)
    done = [0]
    state = {"window": False, "after": 0, "checked": 0, "windows": 0}

    def mark():
        # Right after an erase or a program made while a segment is started or deleted or
        # the ack file written (and the next few, the append after it): a power cut here.
        if not (state["window"] or state["after"]):
            return
        if state["after"] and not state["window"]:
            state["after"] -= 1
        copy = Blocks(16)
        copy.data[:] = device.data
        where = mount(copy)
        try:
            check(where, done[0], per_game)
        finally:
            vfs.umount(where)
        state["checked"] += 1

    for name in ("write", "remove"):
        real = getattr(storage, name)

        def wrapped(*args, real=real):
            state["window"] = True
            state["windows"] += 1
            try:
                return real(*args)
            finally:
                state["window"] = False
                state["after"] = 6

        setattr(storage, name, wrapped)
    log = journal.Journal(storage, ids())
    log.recover()
    device.mark = mark
    total = 12 * per_game
    for n in range(total):
        log.append(n * 10, event(n, per_game))
        done[0] += 1
        if n % per_game == per_game - 1:
            log.acked = log.seq - 40  # the PC has all but the last 40
    device.mark = None
    result = {
        "events": total,
        "flash_ops": device.count,
        "cuts_checked": state["checked"],
        "windows": state["windows"],
        "segments_at_end": len(storage.segments()),
        "first_kept_seq": storage.segments()[0],
        "pruned_unacknowledged": getattr(log, "pruned", 0),
    }
    vfs.umount(point)
    return result


def full():
    per_game = 200
    device = Blocks(16)
    point = mount(device, make=True)
    storage = FileStorage(point)
    log = journal.Journal(storage, ids())
    log.recover()
    n = 0
    # Fill: play until the journal has had to delete for room, acknowledging whole games.
    while True:
        log.append(n, event(n, per_game))
        n += 1
        if n % per_game == 0:
            log.acked = log.seq
        if storage.segments()[0] > 1:
            break
    filled_at = n
    free_when_full = storage.free()
    for _ in range(1000):
        log.append(n, event(n, per_game))
        n += 1
        if n % per_game == 0:
            log.acked = log.seq
    again = journal.Journal(FileStorage(point))
    assert again.recover() == n
    game = list(again.game_events())
    assert game[0] == ("new_game", ("free",))
    first = n - n % per_game
    expected = journalfix.effective([event(k, per_game) for k in range(first, n)])
    assert game == expected
    segs = storage.segments()
    result = {
        "filled_at_event": filled_at,
        "more_events": 1000,
        "seq": n,
        "first_kept_seq": segs[0],
        "segments": len(segs),
        "free_bytes": storage.free(),
        "free_when_full": free_when_full,
        "flash_bytes": storage.free(True)[1],
        "pruned_unacknowledged": getattr(log, "pruned", 0),
        "current_game_events": len(game),
    }
    vfs.umount(point)
    return result


def _boot_ms(point):
    t0 = time.ticks_us()
    log = journal.Journal(FileStorage(point))
    log.recover()
    return time.ticks_diff(time.ticks_us(), t0) / 1000, log.seq


def boot():
    out = {}
    for name, events, blocks in (("empty", 0, 64), ("10000_events", 10000, 160), ("full", -1, 48)):
        device = Blocks(blocks)
        point = mount(device, make=True)
        log = journal.Journal(FileStorage(point), ids())
        log.recover()
        n = 0
        while n < events or (events < 0 and log.storage.segments()[:1] in ([], [1])):
            log.append(n, event(n, 300))
            n += 1
            if n % 300 == 0:
                log.acked = log.seq
        times = [_boot_ms(point) for _ in range(3)]
        out[name] = {"events": times[0][1], "boot_ms": min(t for t, _s in times)}
        vfs.umount(point)
    return out


if __name__ == "__main__":
    what = sys.argv[1]
    result = {"powercut": powercut, "full": full, "boot": boot}[what]()
    print("RESULT " + json.dumps(result))
    del os
