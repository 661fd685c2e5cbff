"""`dicepod emulate [--script FILE | --monkey N --seed S]`: a virtual dicepod on a pty.

Runs the real firmware (dicepod.board.make on the fake machine, the real App) under the real
MicroPython unix port, with the device's USB serial on a pseudo-terminal. The first line printed
is `port: /dev/pts/N`: give it to `dicepod log --port` (or any serial terminal). The device plays
a button script or random presses, then stays on (--linger) so the PC can read and back-fill;
its journal lives in --flash DIR (a temporary directory by default), so a second run with the
same DIR is the same device after a power cycle. Ctrl-C stops it.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import tty
from pathlib import Path

import dicepod
from dicepod_host import fakeboard
from dicepod_host.errors import UserError

HELP = "run the real firmware under MicroPython as a virtual device on a pty (for dicepod log)"
FIRMWARE = Path(dicepod.__file__).resolve().parent.parent
FAKES = Path(fakeboard.__file__).resolve().parent
MAIN = FAKES / "emulate_main.py"
# The fake hardware (OLED decoder, pins, I2C bus) and compiling the firmware from source need
# more heap than a Pico's 190 KB running precompiled .mpy files.
DEFAULT_HEAP = "512k"


def add_arguments(parser):
    """Arguments of `dicepod emulate`."""
    play = parser.add_mutually_exclusive_group()
    play.add_argument("--script", metavar="FILE", help="button script (UP, DOWN, OK, BACK, ...)")
    play.add_argument("--monkey", type=int, metavar="N", help="N random button presses")
    parser.add_argument("--seed", type=int, default=1, help="seed of --monkey (default 1)")
    parser.add_argument(
        "--linger",
        type=float,
        default=-1,
        metavar="SECONDS",
        help="stay on this long after the presses (default: until Ctrl-C)",
    )
    parser.add_argument(
        "--pace", type=int, default=0, metavar="MS", help="real pause after each press"
    )
    parser.add_argument("--flash", metavar="DIR", help="the device's flash directory (kept)")
    parser.add_argument("--heap", default=DEFAULT_HEAP, help="MicroPython heap (default 512k)")


def micropython_bin():
    """Return the MicroPython unix port's path; raise UserError when it is not installed."""
    for candidate in (Path(sys.executable).parent / "micropython", shutil.which("micropython")):
        if candidate and Path(candidate).exists():
            return str(candidate)
    raise UserError("micropython (the unix port) is not installed: run ./dev setup")


def _command(args, mp):
    if args.monkey is not None and args.monkey < 0:
        raise UserError("--monkey needs a count of 0 or more")
    linger = -1 if args.linger < 0 else int(args.linger * 1000)
    if args.pace < 0:
        raise UserError("--pace must be 0 or more")
    cmd = [mp, "-X", "heapsize=%s" % args.heap, str(MAIN)]
    if args.script:
        script = Path(args.script)
        if not script.is_file():
            raise UserError("no such script: %s" % args.script)
        try:
            text = script.read_text()
        except (OSError, UnicodeDecodeError) as err:
            raise UserError("cannot read script %s: %s" % (args.script, err)) from err
        _check_script(text, args.script)
        return cmd + ["script", str(script.resolve()), str(linger), str(args.pace)]
    monkey = 0 if args.monkey is None else args.monkey
    return cmd + ["monkey", str(monkey), str(args.seed), str(linger), str(args.pace)]


def _check_script(text, name):
    """Refuse a bad script here (one line), before starting the device."""
    from dicepod_host.fakeboard.emulate_main import parse_script

    try:
        parse_script(text)
    except ValueError as err:
        raise UserError("bad script %s: %s" % (name, err)) from err


def run(args):
    """Start the virtual device; return its exit code."""
    if not (FIRMWARE / "dicepod" / "app.py").exists():
        raise UserError("the device app (firmware/dicepod/app.py) is not available")
    mp = micropython_bin()
    cmd = _command(args, mp)
    flash = args.flash
    temp = None
    if flash:
        try:
            os.makedirs(flash, exist_ok=True)
        except OSError as err:
            raise UserError("cannot use --flash %s: %s" % (flash, err.strerror or err)) from err
    else:
        temp = tempfile.mkdtemp(prefix="dicepod-flash-")
        flash = temp
    env = dict(os.environ)
    env["MICROPYPATH"] = ":".join([".frozen", str(FIRMWARE), str(FAKES)])
    env["DICEPOD_FAKE_FLASH"] = str(flash)
    env["DICEPOD_FAKE_TICKS"] = "0"
    master, slave = os.openpty()
    tty.setraw(slave)
    tty.setraw(master)
    child = None
    try:
        # The device's stdin/stdout are the pty's master side: its USB serial. This process
        # keeps the slave open, so the port stays put while a logger closes and reopens it.
        child = subprocess.Popen(cmd, stdin=master, stdout=master, env=env, cwd=str(flash))
        os.close(master)
        master = None
        print("port: %s" % os.ttyname(slave), flush=True)
        return child.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        if child is not None and child.poll() is None:
            child.terminate()
            try:
                child.wait(5)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        if master is not None:
            os.close(master)
        os.close(slave)
        if temp:
            shutil.rmtree(temp, ignore_errors=True)
