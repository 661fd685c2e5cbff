"""Issue 48 on the emulated Pico: a PC program that reads the USB serial slowly gets every
protocol line, as from a real Pico (the PC's tty buffer fills, the USB stops taking the
device's bytes, the firmware waits to write). A back-fill of EVENTS events (about 100 KB, far
past what a pty and the emulator's own queue hold) to a reader busy elsewhere at first, then
reading 256 bytes at a time with pauses: every event arrives whole, in order, seq 1..N, each
line the journal's own, its prev the chain hash of the line before. Skips with one line when
the UF2 / boot ROM are absent."""

import json
import os
import time

import pytest
from pico_support import need_pico

from dicepod import journal, protocol
from dicepod_host import pico

EVENTS = 500  # self-test lines of ~200 bytes
# The longest emulated time the reader leaves the pty unread after `since 0`: a chip whose USB
# is never held sends ~100 KB in it (past the pty's ~20 KB and the emulator's old 64 KB drop).
PAUSE_MS = 4500
DEV = "e6614c311b7a2f48"


def _image(folder):
    """A flash image with the firmware and a journal of EVENTS events (games of 150 self-tests
    of the dice). Return (path, journal id, its event lines)."""
    from dicepod.drivers.memstorage import MemoryStorage

    storage = MemoryStorage()
    log = journal.Journal(storage, lambda: "00000000000000f8")
    log.recover()
    for n in range(EVENTS):
        count = 10_000 + n
        selftest = ("selftest", (6 * count,) + (count,) * 6)
        log.append(n * 10, ("new_game", ("free",)) if n % 150 == 0 else selftest)
    files = {"journal/%d" % seg: storage.segment(seg) for seg in storage.segments()}
    files["journal/ack"] = storage.side("ack")
    lines = []
    for seg in storage.segments():
        lines += [x for x in storage.segment(seg).splitlines(True) if x[:1].isdigit()]
    path = folder / "flash.img"
    pico.build_flash(path, files=files)
    return path, log.id, lines


def _seq(wire):
    """The seq of a protocol line, or None for a torn one."""
    try:
        return json.loads(wire).get("seq")
    except ValueError:
        return None


def _slow_read(fd, until, idle):
    """Read fd 256 bytes at a time, 25 ms between reads, until the line holding until has come
    whole (its newline: a read can end inside it) or nothing has for idle seconds; return the
    bytes."""
    got = b""
    last = time.monotonic()
    while time.monotonic() - last < idle:
        at = got.find(until)
        if at >= 0 and got.find(b"\n", at) >= 0:
            break
        try:
            got += os.read(fd, 256)
            last = time.monotonic()
        except BlockingIOError:
            pass
        time.sleep(0.025)
    return got


@pytest.mark.timeout(180)
def test_a_slow_reader_gets_every_line_of_a_back_fill(tmp_path):
    need_pico()
    image, jid, lines = _image(tmp_path)
    assert len(lines) == EVENTS
    with pico.Pico(flash=str(image), device_id=DEV) as board:
        board.run_until_frame(max_ms=10_000)
        fd = os.open(board.usb_port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        try:
            with board.running(realtime=False):
                os.write(fd, b"since 0\n")
                # The reader busy elsewhere: until the emulator holds the USB (the pty is
                # full), at most PAUSE_MS of the chip's time. Then it reads slowly.
                start = board.status()["t"]
                while True:
                    status = board.status()
                    if status.get("usb_held") or status["t"] - start >= PAUSE_MS * 1e6:
                        break
                    time.sleep(0.05)
                got = _slow_read(fd, b'"type":"end"', idle=5)
        finally:
            os.close(fd)
    sent = got.split(b"\n")
    seqs = [_seq(x) for x in sent[:EVENTS]]
    missing = sorted(set(range(1, EVENTS + 1)) - set(seqs))
    assert seqs == list(range(1, EVENTS + 1)), "missing seqs %s" % missing
    assert sent[EVENTS:] == [protocol.end_line(DEV, EVENTS, jid).rstrip(b"\n"), b""]
    # each line as the journal holds it, its prev the chain hash of the line before
    assert sent[:EVENTS] == [protocol.event_line(DEV, x, jid).rstrip(b"\n") for x in lines]
    prev = journal.GENESIS
    for line, wire in zip(lines, sent):
        assert json.loads(wire)["prev"] == prev
        prev = journal.chain_hash(journal.decode(line)[1])
