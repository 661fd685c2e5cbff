"""`dicepod emulate [--pico] [--script FILE | --monkey N --seed S]`: a virtual dicepod on a pty.

Runs the real firmware (dicepod.board.make on the fake machine, the real App) under the real
MicroPython unix port, with the device's USB serial on a pseudo-terminal. The first line printed
is `port: /dev/pts/N`: give it to `dicepod log --port` (or any serial terminal). The device plays
a button script or random presses, then stays on (--linger) so the PC can read and back-fill;
its journal lives in --flash DIR (a temporary directory by default), so a second run with the
same DIR is the same device after a power cycle. --device-id gives it an id of its own (several
emulated devices side by side), --link makes a symlink to the pty (a stable name for `dicepod log
--port`, or for a glob pattern a logger scans). Ctrl-C stops it.

`--pico` runs the real Pico instead (slower, exact): MicroPython v1.28.0's RPI_PICO firmware on
an emulated RP2040 (host/dicepod_host/pico), the firmware deployed on its flash as `dicepod
deploy` installs it, buttons pressed at the pins, emulated time held to the wall clock so
`dicepod log`, mpremote and `dicepod deploy` can use the port. --flash is then the 2 MiB flash
image FILE (made when absent, kept; an existing image boots as it is, like a Pico keeps its
files). `--blank` makes a new flash with MicroPython alone, as after copying the UF2, for
`dicepod deploy --port` to install onto. `--micropython dicepod` runs dicepod's MicroPython build
(a ROMFS partition, the package in it: hardware/micropython) instead of the stock one. A
firmware that shows nothing at boot gets what it printed (its traceback) on this terminal, and
the device stays on at its REPL (exit code 1).

`--show` draws the live display in this terminal, redrawn in place as it changes: half blocks
(128x32 characters) on a terminal 130 columns wide, braille (64x16) on a narrower one, or as
`--show blocks|braille` says.

Killing it (Ctrl-C, TERM, HUP, even KILL) stops the device with it: its child gets SIGKILL when
this process dies, as a Pico loses power with its cable.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tty
from pathlib import Path
from typing import Any

import dicepod
from dicepod_host import bounds, fakeboard
from dicepod_host.errors import UserError

HELP = "run the real firmware under MicroPython as a virtual device on a pty (for dicepod log)"
FIRMWARE = Path(dicepod.__file__).resolve().parent.parent
FAKES = Path(fakeboard.__file__).resolve().parent
MAIN = FAKES / "emulate_main.py"
# The fake hardware (OLED decoder, pins, I2C bus) and compiling the firmware from source need
# more heap than a Pico's 190 KB running precompiled .mpy files.
DEFAULT_HEAP = "512k"
MAX_SCRIPT_BYTES = 1 << 20
MAX_MONKEY = 100000
MAX_PACE_MS = 60000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `dicepod emulate`."""
    parser.add_argument(
        "--pico",
        action="store_true",
        help="the real Pico firmware on an emulated RP2040 (slower; --flash is then an image FILE)",
    )
    parser.add_argument(
        "--blank",
        action="store_true",
        help="--pico: a new flash with MicroPython only (as after copying the UF2), to deploy to",
    )
    parser.add_argument(
        "--micropython",
        choices=("stock", "dicepod"),
        default="stock",
        help="--pico: the MicroPython build on it: stock (RPI_PICO v1.28.0, the package on the "
        "file system) or dicepod (with a ROMFS partition, the package in it: "
        "hardware/micropython; default stock)",
    )
    parser.add_argument(
        "--display",
        choices=("ssd1306", "sh1106"),
        default="ssd1306",
        help="--pico: the display controller on the emulated board (default ssd1306)",
    )
    play = parser.add_mutually_exclusive_group()
    play.add_argument("--script", metavar="FILE", help="button script (UP, DOWN, OK, BACK, ...)")
    play.add_argument(
        "--monkey",
        type=bounds.integer("--monkey", 0, MAX_MONKEY),
        metavar="N",
        help="N random button presses",
    )
    parser.add_argument(
        "--seed",
        type=bounds.integer("--seed", 0, 2**32 - 1),
        default=1,
        help="seed of --monkey (default 1)",
    )
    parser.add_argument(
        "--linger",
        type=bounds.seconds("--linger", allow_negative_one=True),
        default=-1,
        metavar="SECONDS",
        help="stay on this long after the presses (default -1: until Ctrl-C)",
    )
    parser.add_argument(
        "--pace",
        type=bounds.integer("--pace", 0, MAX_PACE_MS),
        default=0,
        metavar="MS",
        help="real pause after each press",
    )
    parser.add_argument(
        "--flash",
        metavar="DIR|FILE",
        help="the device's flash directory (kept); with --pico its flash image file",
    )
    parser.add_argument(
        "--heap",
        default=DEFAULT_HEAP,
        type=_heap,
        help="MicroPython heap (default 512k; 64k to 64m)",
    )
    parser.add_argument(
        "--device-id", metavar="HEX", type=_device_id, help="the device's id (16 hex digits)"
    )
    parser.add_argument("--link", metavar="PATH", help="make PATH a symlink to the pty")
    parser.add_argument(
        "--show",
        nargs="?",
        const="auto",
        choices=("auto", "blocks", "braille"),
        help="draw the live display in this terminal: half blocks (130 columns) or braille"
        " (80 columns); default auto: by the terminal's width",
    )


# --- the display in the terminal (--show) -------------------------------------------------------

SHOW_EVERY_S = 0.1  # how often the view looks for a new frame


class ScreenView:
    """The OLED drawn in a terminal (oled_decode.half_blocks or braille) inside a frame, at
    the top of the screen: each change redraws it in place, lines printed below stay."""

    def __init__(self, out: Any, style: str = "auto", title: str = "dicepod") -> None:
        if style == "auto":
            style = "blocks" if shutil.get_terminal_size().columns >= 130 else "braille"
        self.out = out
        self.style = style
        self.title = title
        self.shown = None
        self.lock = threading.Lock()

    def render(self, image: bytes, on: bool = True, contrast: int = 255) -> list[str]:
        """Return the view's lines (frame included) for one state of the display."""
        from dicepod_host.fakeboard import oled_decode

        draw = oled_decode.half_blocks if self.style == "blocks" else oled_decode.braille
        rows = draw(image if on else bytes(len(image)))
        width = len(rows[0])
        state = "display off: press a button" if not on else "contrast %d" % contrast
        top = "\u250c\u2500 %s " % self.title[: width - 4]
        bottom = "\u2514\u2500 %s " % state
        return (
            [top + "\u2500" * (width + 1 - len(top)) + "\u2510"]
            + ["\u2502" + row + "\u2502" for row in rows]
            + [bottom + "\u2500" * (width + 1 - len(bottom)) + "\u2518"]
        )

    def draw(self, image: bytes, on: bool = True, contrast: int = 255) -> bool:
        """Redraw when the display changed; return True when it did."""
        key = (bytes(image), bool(on), contrast)
        with self.lock:
            if key == self.shown:
                return False
            first = self.shown is None
            self.shown = key
            lines = self.render(image, on, contrast)
            # Home, then the view; the first time the screen is cleared below it too.
            self.out.write(("\x1b[H\x1b[2J" if first else "\x1b[H") + "\n".join(lines) + "\n")
            if first:
                self.out.write("\n")
            self.out.flush()
            return True


def _show(view, read, stop):
    """Draw read() (image, on, contrast) every SHOW_EVERY_S until stop is set."""
    while not stop.wait(SHOW_EVERY_S):
        try:
            state = read()
        except Exception:  # a frame caught mid-write or a device going away: the next one
            continue
        if state is not None:
            view.draw(*state)


def _start_view(args, read, title):
    """Start the terminal view thread when --show asks; return its stop(final=True) function."""
    if not args.show:
        return lambda: None
    view = ScreenView(sys.stdout, args.show, title)
    stop = threading.Event()
    thread = threading.Thread(target=_show, args=(view, read, stop), daemon=True)
    thread.start()

    def finish():
        stop.set()
        thread.join()
        try:
            state = read()
        except Exception:
            state = None
        if state is not None:
            view.draw(*state)

    return finish


def _read_screen_file(path):
    """The unix-port emulator's display file (emulate_main.dump_screen): on, contrast, image."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if len(data) != 2 + 1024:
        return None
    return data[2:], bool(data[0]), data[1]


def _heap(text):
    import argparse

    number = text[:-1] if text[-1:].lower() in ("k", "m") else text
    scale = {"k": 1 << 10, "m": 1 << 20}.get(text[-1:].lower(), 1)
    if not number.isdigit() or len(number) > 9 or not 64 << 10 <= int(number) * scale <= 64 << 20:
        raise argparse.ArgumentTypeError("--heap must be 64k to 64m (e.g. 512k)")
    return text


def _device_id(text):
    import argparse

    text = text.lower()
    if len(text) != 16 or any(c not in "0123456789abcdef" for c in text):
        raise argparse.ArgumentTypeError("--device-id must be 16 hex digits")
    return text


def _read_script(name):
    """Return a script's text (at most MAX_SCRIPT_BYTES of a regular file); raise UserError."""
    script = Path(name)
    if not script.exists():
        raise UserError("no such script: %s" % name)
    if not script.is_file():
        raise UserError("script %s is not a regular file" % name)
    try:
        with open(script, "rb") as f:
            raw = f.read(MAX_SCRIPT_BYTES + 1)
        if len(raw) > MAX_SCRIPT_BYTES:
            raise UserError("script %s is longer than 1 MB" % name)
        return raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise UserError("cannot read script %s: %s" % (name, err)) from err


def micropython_bin() -> str:
    """Return the MicroPython unix port's path; raise UserError when it is not installed."""
    for candidate in (Path(sys.executable).parent / "micropython", shutil.which("micropython")):
        if candidate and Path(candidate).exists():
            return str(candidate)
    raise UserError("micropython (the unix port) is not installed: run ./dev setup")


def _command(args, mp):
    linger = -1 if args.linger < 0 else int(args.linger * 1000)
    cmd = [mp, "-X", "heapsize=%s" % args.heap, str(MAIN)]
    if args.script:
        script = Path(args.script)
        _check_script(_read_script(args.script), args.script)
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


def _die_with_parent():
    """In a child, before exec: SIGKILL when this process dies (even by SIGKILL)."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class _Stop(Exception):
    """TERM or HUP: leave through the finally blocks (the child is stopped there)."""


def _on_signal(signum, _frame):
    raise _Stop(signum)


def _steps(args):
    """The presses to play: [(kind, arg)] as the unix-port emulator's script format."""
    from dicepod_host.fakeboard.emulate_main import monkey_steps, parse_script

    if args.script:
        text = _read_script(args.script)
        try:
            return parse_script(text)
        except ValueError as err:
            raise UserError("bad script %s: %s" % (args.script, err)) from err
    return monkey_steps(0 if args.monkey is None else args.monkey, args.seed)


def run(args: argparse.Namespace) -> int:
    """Start the virtual device; return its exit code."""
    if not (FIRMWARE / "dicepod" / "app.py").exists():
        raise UserError("the device app (firmware/dicepod/app.py) is not available")
    old = {sig: signal.signal(sig, _on_signal) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        return _run_pico(args) if args.pico else _run_unix(args)
    except (_Stop, KeyboardInterrupt):
        return 0
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


# --- the real Pico firmware on an emulated RP2040 ----------------------------------------------

PRESS_MS = 60  # as the unix-port emulator: a short press held 60 ms,
LONG_MS = 700  # a long press 700 ms (past the 600 ms long-press time),
GAP_MS = 80  # released 80 ms between presses
BOOT_MS = 10_000  # emulated ms the firmware gets to show its first frame


def _run_pico(args):
    from dicepod_host import pico as pico_module

    steps = _steps(args)
    flash = args.flash
    if flash:
        if os.path.isdir(flash):
            raise UserError("--flash %s is a directory: with --pico it names an image file" % flash)
        parent = os.path.dirname(os.path.abspath(flash))
        if not os.path.isdir(parent):
            raise UserError("cannot use --flash %s: no folder %s" % (flash, parent))
        if os.path.exists(flash) and os.path.getsize(flash) != pico_module.FLASH_SIZE:
            raise UserError(
                "--flash %s is not a 2 MiB flash image (%d bytes)" % (flash, os.path.getsize(flash))
            )
    pico_module.find_rp2(required=True)
    print("preparing the flash (firmware compiled as dicepod deploy installs it)", file=sys.stderr)
    if args.blank and flash and os.path.exists(flash):
        raise UserError("--blank makes a new flash: %s exists already" % flash)
    if args.blank and (args.script or args.monkey):
        raise UserError("--blank runs no firmware to press buttons on")
    with pico_module.Pico(
        flash=flash,
        display=args.display,
        device_id=args.device_id,
        deploy=not args.blank,
        firmware=args.micropython,
    ) as board:
        linked = None
        try:
            if args.link:
                _link(board.usb_port, args.link)
                linked = args.link
            return _play_pico(args, board, steps)
        finally:
            if linked:
                try:
                    os.unlink(linked)
                except OSError:
                    pass


def _play_pico(args, board, steps):
    """Boot to the first frame, play the steps at the pins, linger; return the exit code."""
    print("port: %s" % board.usb_port, flush=True)
    failed = False
    if args.blank:
        board.run_ms(300)  # MicroPython alone: at its REPL, waiting for `dicepod deploy`
        steps = []
    else:
        try:
            board.run_until_frame(max_ms=BOOT_MS)
        except TimeoutError:
            # Nothing on the display: show what the firmware printed (a boot traceback waits
            # in TinyUSB's buffer until the PC sends a byte). The device stays on, at its REPL,
            # as a Pico would: `dicepod deploy --port` can put a working firmware on it.
            board.usb_write(b"\r")
            board.go(realtime=False)
            text = board.usb_read(2.0).decode(errors="replace")
            board.halt()
            sys.stderr.write(text.replace("\r\n", "\n"))
            sys.stderr.write(
                "dicepod: the firmware showed nothing within %d ms of emulated time (its output "
                "is above); the device stays on at its REPL\n" % BOOT_MS
            )
            failed = True
            steps = []
    finish_view = _start_view(
        args,
        lambda: (board.frame(), board.oled.on, board.oled.contrast),
        "dicepod emulate --pico  port %s" % board.usb_port,
    )
    try:
        return _drive_pico(args, board, steps, failed)
    finally:
        finish_view()


def _drive_pico(args, board, steps, failed):
    """Press the steps at the pins in real time, linger, halt; return the exit code."""
    from dicepod_host.fakeboard.emulate_main import NAMES
    from dicepod_host.pico import SETTLE_NS

    board.go(realtime=True)
    at_ns = board.status()["t"]
    presses = 0
    for kind, arg in steps:
        if kind == "wait":
            at_ns += arg * 1_000_000
            continue
        index, long = arg
        down, up = board.press(
            NAMES[index], hold_ms=LONG_MS if long else PRESS_MS, at_ms=at_ns / 1e6
        )
        at_ns = up + GAP_MS * 1_000_000
        presses += 1
        # A finger waits for the device: the next press comes GAP_MS after this one is let
        # go and GAP_MS after the firmware has handled it: its CPU woke from two idle sleeps
        # since the release (prev_wake), the first to read the pins, the second after that
        # loop pass. OK and BACK act on the release, so one idle moment after it is not
        # enough: the release may not have been read yet, and the tap acts (and draws, up
        # to ~150 ms) after the next press began. A quick tap while the firmware draws would
        # be lost (it polls the pins every 20 ms tick and a draw blocks the loop), and one
        # right after it would fall into the driver's lock-out after the release it saw late.
        # Two wakes are not always enough either: a bouncing release can be read as still held
        # by the first passes, so the pass that acts comes up to the driver's lock-out and a
        # loop period later (pico.SETTLE_NS): also wait for the CPU idle again after that.
        while True:
            status = board.status()
            if status["prev_wake"] > up and status["last_idle"] > up + SETTLE_NS:
                break
            time.sleep(0.02)
        at_ns = max(at_ns, status["last_idle"] + GAP_MS * 1_000_000)
        while board.status()["t"] < at_ns:
            time.sleep(0.02)
        if args.pace:
            time.sleep(args.pace / 1000)
            at_ns = max(at_ns, board.status()["t"])
    print(
        "emulate: %d presses done (Pico, %.1f s emulated)" % (presses, board.now_ms / 1e3),
        file=sys.stderr,
    )
    linger = args.linger
    end = None if linger < 0 else time.monotonic() + linger
    try:
        while end is None or time.monotonic() < end:
            time.sleep(0.2)
            if board.proc.poll() is not None:
                raise UserError("the emulated Pico stopped (exit code %s)" % board.proc.poll())
    except KeyboardInterrupt:
        pass
    board.halt()
    return 1 if failed else 0


# --- the firmware under the MicroPython unix port -------------------------------------------------


def _run_unix(args):
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
    if args.device_id:
        env["DICEPOD_FAKE_UID"] = args.device_id
    screen = None
    if args.show:
        screen_dir = tempfile.mkdtemp(prefix="dicepod-screen-")
        screen = os.path.join(screen_dir, "screen")
        env["DICEPOD_FAKE_SCREEN"] = screen
    master, slave = os.openpty()
    tty.setraw(slave)
    tty.setraw(master)
    child = None
    linked = None
    try:
        # The device's stdin/stdout are the pty's master side: its USB serial. This process
        # keeps the slave open, so the port stays put while a logger closes and reopens it.
        child = subprocess.Popen(
            cmd,
            stdin=master,
            stdout=master,
            env=env,
            cwd=str(flash),
            preexec_fn=_die_with_parent,
        )
        os.close(master)
        master = None
        name = os.ttyname(slave)
        if args.link:
            _link(name, args.link)
            linked = args.link
        print("port: %s" % name, flush=True)
        finish_view = _start_view(
            args, lambda: _read_screen_file(screen), "dicepod emulate  port %s" % name
        )
        try:
            return child.wait()
        finally:
            finish_view()
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
        if linked:
            try:
                os.unlink(linked)
            except OSError:
                pass
        if temp:
            shutil.rmtree(temp, ignore_errors=True)
        if screen:
            shutil.rmtree(os.path.dirname(screen), ignore_errors=True)


def _link(target, path):
    """Point the symlink path at target (replacing an old symlink, never a file)."""
    try:
        if os.path.islink(path):
            os.unlink(path)
        os.symlink(target, path)
    except OSError as err:
        raise UserError("cannot make --link %s: %s" % (path, err.strerror or err)) from err
