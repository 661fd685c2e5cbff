"""An emulated Pico whose USB nobody reads keeps playing (issue 48, point 7): the PC side sends
commands and never reads the answers, far past what a pty holds; the chip runs on (emulated
time advances, a press moves the menu) and, once the PC reads again, answers a command with
whole lines. A real Pico's USB stops sending while the PC's tty buffer is full, and the
firmware never waits for it; the emulator holds the USB the same way (no byte dropped).

The suite runs UNREAD_S seconds of emulated time; DICEPOD_UNREAD_SECONDS=60 is the long run."""

import json
import os
import time

import pytest
from pico_support import need_pico

from dicepod_host import pico

UNREAD_S = int(os.environ.get("DICEPOD_UNREAD_SECONDS", "12"))


@pytest.mark.timeout(600)
def test_a_pico_nobody_reads_keeps_playing():
    need_pico()
    with pico.Pico() as board:
        board.run_until_frame(max_ms=10_000)
        start_ms = board.now_ms
        frame = board.frame()
        hellos = 0
        # answers far past a pty's buffer (~130 bytes each): ~40 KB, never read
        while board.now_ms - start_ms < UNREAD_S * 1000 or hellos < 300:
            board.usb_write(b"hello\n" * 10)
            hellos += 10
            board.run_ms(400, timeout=60)
        assert board.now_ms - start_ms >= UNREAD_S * 1000
        assert board.status()["usb_held"]  # the USB waits for the PC, the game does not
        board.tap("DOWN")  # still playing: the press moves the menu
        assert board.frame() != frame
        # the PC reads again: what waited comes, then a fresh answer, whole
        waiting = board.usb_read(timeout=0.5)
        assert len(waiting) > 8 * 1024
        board.run_ms(200)
        while board.usb_read(timeout=0.2):
            board.run_ms(100)
        board.usb_write(b"ping 48\n")
        board.run_ms(300)
        got = b""
        end = time.monotonic() + 10
        while b'"token":48' not in got and time.monotonic() < end:
            got += board.usb_read(timeout=0.2)
            board.run_ms(50)
        line = [x for x in got.split(b"\n") if b'"token":48' in x]
        assert line and json.loads(line[0])["type"] == "pong"
