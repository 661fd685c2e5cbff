"""A test Board of the documented shape (docs/ARCHITECTURE.md) for the app and screen tests:
a framebuf.FrameBuffer display with a counting show(), a button feeder, scripted or seeded
randbelow, a list-of-lines storage, no USB. Runs on CPython (host/framebuf.py) and
MicroPython alike."""

import framebuf
from seeded import Seeded

UP = 1
DOWN = 2
OK = 4
BACK = 8
LONG_UP = 16
LONG_DOWN = 32
LONG_OK = 64
LONG_BACK = 128


class LineStorage:
    """The storage interface (dicepod.drivers.storage) over a list of lines: like
    MemoryStorage, but a long journal needs no single growing buffer (which fragments a small
    MicroPython heap). journal() returns the bytes."""

    def __init__(self, journal=b"", settings=None):
        self.rows = []
        self.total = 0
        self.settings = settings
        start = 0
        while start < len(journal):
            end = journal.find(b"\n", start)
            end = len(journal) if end < 0 else end + 1
            self.append(journal[start:end])
            start = end

    def append(self, line):
        self.rows.append(bytes(line))
        self.total += len(line)

    def lines(self, start=0):
        offset = 0
        for row in self.rows:
            if offset >= start:
                yield row
            offset += len(row)

    def truncate(self, size):
        offset = 0
        keep = []
        for row in self.rows:
            if offset + len(row) <= size:
                keep.append(row)
            elif offset < size:
                keep.append(row[: size - offset])
            offset += len(row)
        self.rows = keep
        self.total = min(self.total, size)

    def size(self):
        return self.total

    def journal(self):
        return b"".join(self.rows)

    def load_settings(self):
        return self.settings

    def save_settings(self, data):
        self.settings = bytes(data)


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


class Buttons:
    """update() returns the next queued bitmask (0 when the queue is empty)."""

    def __init__(self):
        self.queue = []

    def update(self, dt_ms):
        if self.queue:
            return self.queue.pop(0)
        return 0


class Power:
    def __init__(self):
        self.active = 0

    def update(self, dt_ms, active):
        if active:
            self.active += 1

    def battery(self):
        return None


class Board:
    """The test board; storage may be shared between boards (a reset = a new Board + App)."""

    def __init__(self, storage=None, seed=1, randbelow=None, strict=True):
        self.display = Display()
        self.buttons = Buttons()
        self.rng = Seeded(seed)
        self.randbelow = randbelow or self.rng.randbelow
        self.storage = storage if storage is not None else LineStorage()
        self.power = Power()
        self.usb = None
        self.device_id = "test"
        self.clock = 0
        self.strict = strict

    def ticks_ms(self):
        return self.clock

    def ticks_diff(self, a, b):
        return a - b

    def sleep_ms(self, ms):
        self.clock += ms


def press(app, *codes):
    """Press each button in turn (one tick each), then one idle tick. On a board with a
    finger (tests/pico_sessions.FingerBoard) the finger presses instead: each code a hold
    of the pin through the real buttons driver. On a strict board (the default) a crash
    screen raises RuntimeError with the crash text."""
    finger = getattr(app.board, "finger", None)
    if finger is not None:
        finger(app, codes)
    else:
        for code in codes:
            app.board.buttons.queue.append(code)
            app.tick(20)
        app.tick(20)
    if app.board.strict and type(app.stack[-1]).__name__ == "CrashScreen":
        raise RuntimeError("crash: " + " | ".join(app.stack[-1].lines))


def idle(app, ticks=1, dt=20):
    """Let time pass with no buttons."""
    for _ in range(ticks):
        app.tick(dt)


def screen_bytes(app):
    """The display's bytes (what the screen shows)."""
    return bytes(app.board.display.buffer)


def top(app):
    """The class name of the top screen."""
    return type(app.stack[-1]).__name__


# -- helpers a session uses to press its way around (shared by the app tests) --


def _nothing(name):
    pass


def menu(app, mode_or_row):
    """From anywhere: go to the main menu and open a row (a mode name, 'History', 'Settings')."""
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
    press(app, LONG_UP)
    while screen.items[screen.cursor] != title:
        press(app, DOWN)
        guard += 1
        if guard > 40:
            raise RuntimeError("no menu row %s" % title)
    press(app, OK)
    if top(app) == "Confirm":  # ending the game in progress
        press(app, OK)


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
    return FileStorage(root)
