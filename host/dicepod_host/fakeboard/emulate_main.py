"""The virtual dicepod's main program, run by `dicepod emulate` under the real MicroPython unix
port with the fake `machine` first on the import path and stdin/stdout on a pty (the device's
USB serial). Never deployed.

It builds the real Board (dicepod.board.make on the fake machine: journal files in
DICEPOD_FAKE_FLASH, the USB link on stdin/stdout) and the real App, then presses the fake
buttons from a script or at random and ticks the app with virtual time:

    micropython emulate_main.py script FILE LINGER_MS PACE_MS
    micropython emulate_main.py monkey N SEED LINGER_MS PACE_MS

Script lines: `UP`, `DOWN`, `OK`, `BACK` (a press), `LONG OK` (held 700 ms), an optional count
after the name (`UP 3`), `WAIT MS` (idle), `# comments`. The monkey makes N presses from a
seeded xorshift generator (the same presses on every run with the same seed). After the presses
the device idles for LINGER_MS (virtual = real time: 20 ms ticks with real sleeps; -1 = forever)
so the PC can read and back-fill; PACE_MS is a real pause after each press (0 = flat out).
A summary goes to stderr; stdout belongs to the USB link.
"""

import sys
import time

_TICK_MS = 20  # the app's loop period on the Pico
_PRESS_MS = 60  # a short press: held three ticks (past the 30 ms lock-out)
_LONG_MS = 700  # a long press: past the 600 ms long-press time
_GAP_MS = 80  # released this long between presses
NAMES = ("UP", "DOWN", "OK", "BACK")
# Bounds of a script: presses per line and in all, virtual ms per WAIT line.
MAX_REPEAT = 1000
MAX_PRESSES = 100000
MAX_WAIT_MS = 600000


class Emulator:
    """The board, the app and a virtual clock driven in 20 ms ticks."""

    def __init__(self, pace_ms=0):
        # Imported here, not at the top: `dicepod emulate` imports parse_script on the PC
        # without building (or importing) any of the fake hardware.
        import machine

        from dicepod import app as app_module
        from dicepod import board as board_module

        self.machine = machine
        self.pins = board_module.BUTTON_PINS
        machine.FAKE_CLOCK.budget = 0  # unbounded: this loop decides when to stop
        self.board = board_module.make(flash=machine.FAKE_FLASH, clock=machine.FAKE_CLOCK)
        for bus in getattr(machine, "BUSES", ()):
            bus.log = None  # the fake I2C keeps every transaction unless told not to
        self.app = app_module.App(self.board)
        self.app.start()
        self.pace_ms = pace_ms
        self.presses = 0
        # `dicepod emulate --show` reads the display from this file (on, contrast, image).
        self.screen = machine._env("DICEPOD_FAKE_SCREEN", None)
        self.shown = None

    def tick(self, ms, real=False):
        """Run the app for ms of virtual time (really sleeping when real)."""
        while ms > 0:
            self.machine.FAKE_CLOCK.advance(_TICK_MS)
            self.app.tick(_TICK_MS)
            if self.screen:
                self.dump_screen()
            if real:
                time.sleep_ms(_TICK_MS)  # type: ignore[attr-defined]
            ms -= _TICK_MS

    def dump_screen(self):
        """Write the display to self.screen when it received anything (whole, then renamed)."""
        import os

        oled = self.machine.BUSES[0].devices.get(self.machine.OLED_ADDRESS)
        if oled is None or (oled.data_bytes, oled.command_bytes) == self.shown:
            return
        self.shown = (oled.data_bytes, oled.command_bytes)
        with open(self.screen + ".part", "wb") as f:
            f.write(bytes((1 if oled.on else 0, oled.contrast)))
            f.write(oled.image())
        os.rename(self.screen + ".part", self.screen)

    def press(self, index, long=False):
        """Press button index (0 UP, 1 DOWN, 2 OK, 3 BACK), release it, let the app settle."""
        pin = self.pins[index]
        self.machine.press(pin)
        self.tick(_LONG_MS if long else _PRESS_MS)
        self.machine.release(pin)
        self.tick(_GAP_MS)
        self.presses += 1
        if self.pace_ms:
            time.sleep_ms(self.pace_ms)  # type: ignore[attr-defined]

    def linger(self, ms):
        """Idle in real time for ms (forever when negative), ticking the app."""
        while ms != 0:
            self.tick(_TICK_MS, real=True)
            if ms > 0:
                ms = max(0, ms - _TICK_MS)


def _number(word, high, number, raw):
    if not word.isdigit() or len(word) > 9 or int(word) > high:
        raise ValueError("line %d: %s (a number 0 to %d)" % (number, raw.strip(), high))
    return int(word)


def parse_script(text):
    """Return [(kind, arg)]: ("press", (index, long)) or ("wait", ms); raise ValueError.

    Bounded: a count after a name is at most MAX_REPEAT, a WAIT at most MAX_WAIT_MS, a script
    at most MAX_PRESSES presses."""
    steps = []
    presses = 0
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.split("#")[0].strip().upper()
        if not line:
            continue
        words = line.split()
        long = False
        if words[0] == "LONG":
            long = True
            words = words[1:]
        if words and words[0] == "WAIT" and not long and len(words) == 2:
            steps.append(("wait", _number(words[1], MAX_WAIT_MS, number, raw)))
            continue
        if not words or words[0] not in NAMES or len(words) > 2:
            raise ValueError("line %d: %s" % (number, raw.strip()))
        count = _number(words[1], MAX_REPEAT, number, raw) if len(words) == 2 else 1
        presses += count
        if presses > MAX_PRESSES:
            raise ValueError("more than %d presses" % MAX_PRESSES)
        for _ in range(count):
            steps.append(("press", (NAMES.index(words[0]), long)))
    return steps


class XorShift:
    """Seeded 32-bit xorshift (MicroPython has no random.Random)."""

    def __init__(self, seed):
        self.state = (seed * 2654435761) & 0xFFFFFFFF or 1

    def below(self, n):
        """Return an int in 0..n-1 (slightly biased: fine for picking buttons)."""
        x = self.state
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.state = x
        return x % n


def monkey_steps(n, seed):
    """Return n random presses: mostly OK/UP/DOWN, some BACK, a few long presses."""
    rng = XorShift(seed)
    steps = []
    # weights out of 20: OK 8, UP 4, DOWN 4, BACK 2, long OK 1, long BACK 1
    table = (2,) * 8 + (0,) * 4 + (1,) * 4 + (3,) * 2
    for _ in range(n):
        pick = rng.below(20)
        if pick < len(table):
            steps.append(("press", (table[pick], False)))
        else:
            steps.append(("press", (2 if pick == 18 else 3, True)))
    return steps


def main(argv):
    """Run the emulator; return the exit code."""
    if len(argv) < 2 or argv[1] not in ("script", "monkey"):
        sys.stderr.write("usage: emulate_main.py script FILE LINGER PACE | monkey N SEED ...\n")
        return 2
    if argv[1] == "script":
        with open(argv[2]) as f:
            steps = parse_script(f.read())
        linger, pace = int(argv[3]), int(argv[4])
    else:
        steps = monkey_steps(int(argv[2]), int(argv[3]))
        linger, pace = int(argv[4]), int(argv[5])
    emulator = Emulator(pace)
    for kind, arg in steps:
        if kind == "wait":
            emulator.tick(arg)
        else:
            emulator.press(arg[0], arg[1])
    journal = emulator.app.session.journal
    sys.stderr.write(
        "emulate: %d presses done, journal seq %d, game %d\n"
        % (emulator.presses, journal.seq, journal.game)
    )
    emulator.linger(linger)
    usb = emulator.board.usb
    if usb is not None:
        sys.stderr.write("emulate: usb sent %d lines, dropped %d\n" % (usb.sent, usb.dropped))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
