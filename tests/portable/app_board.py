"""A test Board for the app and screen tests, put together by board.assemble like every board
(docs/ARCHITECTURE.md): a framebuf.FrameBuffer display with a counting show(), the firmware's
real Buttons driver reading four pins a test's fingers press, scripted or seeded randbelow, a
list-of-lines storage, a power policy that counts activity, no USB, a virtual clock. The button
codes are the firmware's (dicepod.ui.screen). Runs on CPython (host/framebuf.py) and
MicroPython alike.

Tests press buttons as fingers do (press(), hold()): the pin goes low with contact bounce, stays
down, comes up with bounce, in 20 ms ticks as on the Pico; the driver turns that into the events
the app sees. No test hands the app an event code a finger cannot make."""

import framebuf
from seeded import Seeded

from dicepod.board import assemble
from dicepod.drivers.buttons import Buttons
from dicepod.drivers.memstorage import MemoryStorage
from dicepod.parts import Board as Parts
from dicepod.ui.screen import BACK, DOWN, OK, UP

TICK_MS = 20  # the Pico's loop period; every tick of a press is one
HOLD_MS = 700  # a hold: past the driver's 600 ms long-press time
# A tap, one pin state per tick: down, a bounce up, down, released, a bounce down, up (the
# driver's 30 ms lock-out spans each bounce; 80 ms down in all).
_TAP = (1, 0, 1, 0, 1, 0)


class LineStorage(MemoryStorage):
    """The storage interface (dicepod.drivers.storage) in RAM (MemoryStorage keeps each
    segment as a list of lines: a long journal needs no single growing buffer, which fragments
    a small MicroPython heap). journal=b"..." is segment 1; journal() returns every segment's
    bytes."""

    def journal(self):
        return self.data()

    def journal_size(self):
        """The journal's bytes (every segment, side files left out)."""
        n = 0
        for seg in self.segments():
            n += self.size(seg)
        return n


class Display(framebuf.FrameBuffer):
    """128×64 MONO_VLSB framebuffer; show() only counts."""

    def __init__(self):
        self.buffer = bytearray(1024)
        super().__init__(self.buffer, 128, 64, framebuf.MONO_VLSB)
        self.shows = 0

    def show(self):
        self.shows += 1

    def contrast(self, level):
        pass

    def poweroff(self):
        pass

    def poweron(self):
        pass


class Fingers:
    """What the fingers hold down now: a bitmask in the driver's bit order (UP, DOWN, OK,
    BACK)."""

    def __init__(self):
        self.down = 0


class Pin:
    """One button's input pin: reads 0 while its finger presses it (active low, pull-up)."""

    def __init__(self, fingers, bit):
        self.fingers = fingers
        self.bit = bit

    def value(self):
        return 0 if self.fingers.down & self.bit else 1

    def irq(self, handler=None, trigger=0):
        pass


def buttons(fingers):
    """The real driver on four pins the fingers press."""
    return Buttons([Pin(fingers, 1 << i) for i in range(4)])


class Power:
    """A power policy that never dims: it counts the ticks with activity."""

    def __init__(self, display=None):
        self.active = 0

    def configure(self, values):
        pass

    def update(self, dt_ms, active):
        if active:
            self.active += 1

    def battery(self):
        return None


class Clock:
    """The board's virtual clock: the milliseconds slept so far."""

    def __init__(self):
        self.now = 0

    def ticks_ms(self):
        return self.now

    def ticks_diff(self, a, b):
        return a - b

    def sleep_ms(self, ms):
        self.now += ms


class Board(Parts):
    """The test board, the parts put together by board.assemble (the settings file read once
    there); storage may be shared between boards (a reset = a new Board + App). fingers, rng
    and strict are the tests' own."""

    def __init__(self, storage=None, seed=1, randbelow=None, strict=True):
        fingers = Fingers()
        rng = Seeded(seed)
        built = assemble(
            storage if storage is not None else LineStorage(),
            Display(),
            buttons(fingers),
            randbelow or rng.randbelow,
            device_id="test",
            power=Power,
            clock=Clock(),
        )
        super().__init__(**built.__dict__)
        self.fingers = fingers
        self.rng = rng
        self.strict = strict


def _finger(app, button, states):
    """Move one finger through pin states, one 20 ms tick each."""
    if button not in (UP, DOWN, OK, BACK):
        raise ValueError("a finger presses one of UP, DOWN, OK, BACK, not %r" % (button,))
    fingers = app.board.fingers
    for state in states:
        if state:
            fingers.down |= button
        else:
            fingers.down &= ~button
        app.tick(TICK_MS)


def _check(app):
    if app.board.strict and type(app.stack[-1]).__name__ == "CrashScreen":
        raise RuntimeError("crash: " + " | ".join(app.stack[-1].lines))


def press(app, *buttons):
    """Tap each button in turn (press with bounce, release with bounce), then one idle tick.
    On a board with a finger of its own (tests/pico_sessions.FingerBoard) that finger taps
    instead. On a strict board (the default) a crash screen raises RuntimeError with the crash
    text."""
    finger = getattr(app.board, "finger", None)
    if finger is not None:
        finger(app, buttons)
    else:
        for button in buttons:
            _finger(app, button, _TAP)
        app.tick(TICK_MS)
    _check(app)


def hold(app, button, ms=HOLD_MS):
    """Press button with bounce, keep it down for ms, release it with bounce, one idle tick.
    (A board's own finger is handed the button shifted left by 4: its hold.)"""
    finger = getattr(app.board, "finger", None)
    if finger is not None:
        finger(app, (button << 4,))
    else:
        _finger(app, button, (1, 0) + (1,) * (ms // TICK_MS) + (0, 1, 0))
        app.tick(TICK_MS)
    _check(app)


def hold_down(app, button, ms):
    """Press button (with bounce) and keep it down for ms; release() lets it go."""
    _finger(app, button, (1, 0) + (1,) * (ms // TICK_MS))


def release(app, button):
    """Let a held button come up (with bounce), then one idle tick."""
    _finger(app, button, (0, 1, 0))
    app.tick(TICK_MS)
    _check(app)


def idle(app, ticks=1, dt=20):
    """Let time pass with no buttons."""
    for _ in range(ticks):
        app.tick(dt)


def wait(app, ticks=1):
    """Let ticks pass with no finger on a button, as a session sees them: on a board with a
    finger of its own (tests/pico_sessions.FingerBoard) its ticks, recorded for the Pico."""
    own = getattr(app.board, "wait", None)
    if own is not None:
        own(app, ticks)
    else:
        idle(app, ticks)
    _check(app)


def screen_bytes(app):
    """The display's bytes (what the screen shows)."""
    return bytes(app.board.display.buffer)


def top(app):
    """The class name of the top screen."""
    return type(app.stack[-1]).__name__


# -- helpers a session uses to press its way around (shared by the app tests) --


def _nothing(name):
    pass


def menu(app, mode_or_row, rest=0):
    """From anywhere: go to the main menu and open a row (a mode name, 'History', 'Settings'),
    after rest idle ticks on it (the player reads the row)."""
    guard = 0
    while len(app.stack) > 1:
        press(app, BACK)
        guard += 1
        if guard > 20:
            raise RuntimeError("cannot reach the menu")
    from dicepod.rules import modes

    screen = app.stack[0]
    title = mode_or_row
    for mode, mode_title in modes.MODES:
        if mode == mode_or_row:
            title = mode_title
    while screen.items[screen.cursor] != title:
        press(app, DOWN)
        guard += 1
        if guard > 40:
            raise RuntimeError("no menu row %s" % title)
    if rest:
        wait(app, rest)
    press(app, OK)
    if top(app) == "Confirm":  # ending the game in progress
        press(app, OK)


def first(app):
    """On a list: press UP until the first row is chosen (the list wraps around)."""
    screen = app.stack[-1]
    while screen.cursor != 0:
        press(app, UP)


def last(app):
    """On a list: press UP from the first row once (wraps to the last)."""
    first(app)
    press(app, UP)


def answer(app, snap=_nothing, presses=2):
    """Answer every 'From your card' question: UP `presses` times from the lowest value, OK."""
    while top(app) == "AskValue":
        snap("ask_value")
        for _ in range(presses):
            press(app, UP)
        press(app, OK)


def act(app, label, snap=_nothing):
    """On an action-bar screen: move to the action called label and do it."""
    answer(app, snap)
    screen = app.stack[-1]
    labels = [a[0] for a in screen.actions]
    if label not in labels:
        raise RuntimeError("no action %s in %s" % (label, labels))
    guard = 0
    while screen.actions[screen.index][0] != label:
        press(app, DOWN)
        guard += 1
        if guard > 40:
            raise RuntimeError("cannot reach %s" % label)
    press(app, OK)
    answer(app, snap)


def file_storage(name):
    """A FileStorage in a fresh directory under /tmp (the journal on disk, not in RAM, as on
    the Pico; CPython and the MicroPython unix port alike)."""
    import os

    from dicepod.drivers.storage import FileStorage

    # tests/conftest.py gives each pytest run its own folder, so runs at the same time (a CI
    # clone next to a developer's run) never share a journal.
    root = "%s/dicepod-test-%s" % (os.getenv("DICEPOD_TEST_TMP") or "/tmp", name)
    try:
        os.mkdir(root)
    except OSError:
        pass
    for leaf in ("journal.log", "journal.log.tmp", "settings.json", "settings.json.tmp"):
        try:
            os.remove(root + "/" + leaf)
        except OSError:
            pass
    try:
        for leaf in os.listdir(root + "/journal"):
            os.remove(root + "/journal/" + leaf)
    except OSError:
        pass
    return FileStorage(root)
