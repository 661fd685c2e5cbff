"""Shared by the tests on the emulated Pico (tests/test_pico_*.py): the skip when MicroPython's
UF2 or the boot ROM is absent (one line saying how to get them), the CPython rendering of a
screen to compare the Pico's decoded pixels with, a booted Pico on a flash image of the test's, a
lockstep run checked frame by frame against CPython's recording, and `dicepod log` on the
Pico's USB (started as its own process, stopped with Ctrl-C as a person stops it)."""

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from dicepod_host import pico

# The timing of the tests whose every assertion is on frames, the journal, the heap and the
# interned names (the lockstep heap gates, the bit flips): no flash, cache or bus time changes
# them, and rp2040js alone emulates about a fifth faster. $DICEPOD_PICO_TIMING runs them on
# another (the suite passes on "typical" too).
UNTIMED = os.environ.get("DICEPOD_PICO_TIMING") or "ideal"


def missing():
    """Why the emulated Pico cannot run here (one line), or None."""
    if pico.find_rp2() is None:
        return pico.HOWTO
    if shutil.which("node") is None:
        return "node is not installed: the emulated Pico runs in Node.js"
    if not (pico.CHECKOUT / "node_modules" / "rp2040js").is_dir():
        return "rp2040js is not installed: run ./dev setup"
    return None


def need_pico(module=False):
    """Skip the calling test unless the emulated Pico can run here; module=True (called at a
    test module's top level) skips the whole module in one line."""
    why = missing()
    if why:
        pytest.skip(why, allow_module_level=module)


def cpython_boot_screen():
    """The boot screen (main menu) as CPython's App draws it: 1,024 bytes MONO_VLSB."""
    from app_board import Board  # tests/portable

    from dicepod.app import App

    app = App(Board())
    app.start()
    return bytes(app.board.display.buffer)


def ascii_image(buffer):
    rows = []
    for y in range(64):
        rows.append(
            "".join("#" if buffer[(y >> 3) * 128 + x] >> (y & 7) & 1 else "." for x in range(128))
        )
    return "\n".join(rows)


def diff_image(got, want):
    """A readable failure message: both images and the count of differing pixels."""
    bad = sum(bin(a ^ b).count("1") for a, b in zip(got, want))
    return "%d pixels differ\n--- Pico ---\n%s\n--- CPython ---\n%s" % (
        bad,
        ascii_image(got),
        ascii_image(want),
    )


@contextlib.contextmanager
def booted_pico(tmp_path_factory):
    """The deployed firmware on an emulated Pico whose flash is an image file of the test's
    (pico.flash_path), run to its first frame, for the with block."""
    need_pico()
    path = tmp_path_factory.mktemp("pico") / "flash.img"
    with pico.Pico(flash=str(path)) as board:
        board.run_until_frame(max_ms=10_000)
        board.flash_path = path
        yield board


def flash_files(board):
    """{path: bytes} on a booted_pico()'s flash now."""
    return pico.read_littlefs(pico.flash_image(board.flash_path))


def play_checked(player, rec, start, end, what=""):
    """Tick rec.pins[start:end] on a lockstep Player, each frame asserted equal to CPython's
    (rec: a pico_sessions.Recording; what: named in a failure); return the frames shown."""
    shown = set()
    for i in range(start, end):
        player.tick(rec.pins[i])
        got = player.pico.frame()
        if got != rec.frames[i + 1]:
            raise AssertionError(
                "%stick %d (pins %s, CPython's screen %s): the Pico's display is not CPython's\n%s"
                % (what and what + ", ", i, bin(rec.pins[i]), rec.screens[i + 1],
                   diff_image(got, rec.frames[i + 1]))
            )  # fmt: skip
        shown.add(got)
    return shown


@contextlib.contextmanager
def start_logger(port, db):
    """`dicepod log --port PORT --db DB --quiet` in a process of its own, for the with block
    (the Popen; stop it with stop_logger). One still running when the block ends (a failure
    before the stop) is killed."""
    logger = subprocess.Popen(
        [sys.executable, "-X", "faulthandler", "-m", "dicepod_host.cli", "log"]
        + ["--port", str(port)]
        + ["--db", str(db), "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield logger
    finally:
        if logger.poll() is None:
            logger.kill()
            logger.wait()


def stop_logger(logger, timeout=30, pump=None):
    """SIGTERM to `dicepod log`, which stops on it as on Ctrl-C (everything received is
    written), and also where SIGINT is ignored (a job started in the background inherits
    that); assert it exits 0 within timeout seconds (its stderr in the message). pump():
    called over and over while it finishes, up to timeout (a Pico in lockstep runs only while
    the test ticks it, and the logger's last writes need a reader), then 5 s more for the
    exit."""
    logger.send_signal(signal.SIGTERM)
    if pump is not None:
        end = time.monotonic() + timeout
        while logger.poll() is None and time.monotonic() < end:
            pump()
        timeout = 5
    try:
        code = logger.wait(timeout)
    except subprocess.TimeoutExpired:  # where it hangs: faulthandler's stacks on SIGABRT
        logger.send_signal(signal.SIGABRT)
        logger.wait(10)
        raise AssertionError("dicepod log did not stop:\n" + logger.stderr.read()) from None
    assert code == 0, logger.stderr.read()
