"""A test Board of the documented shape (docs/ARCHITECTURE.md) for the app and screen tests:
a framebuf.FrameBuffer display with a counting show(), a button feeder, scripted or seeded
randbelow, MemoryStorage, no USB. Runs on CPython (host/framebuf.py) and MicroPython alike."""

import framebuf
from seeded import Seeded

from dicepod.drivers.storage import MemoryStorage

UP = 1
DOWN = 2
OK = 4
BACK = 8
LONG_UP = 16
LONG_DOWN = 32
LONG_OK = 64
LONG_BACK = 128


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

    def __init__(self, storage=None, seed=1, randbelow=None):
        self.display = Display()
        self.buttons = Buttons()
        self.rng = Seeded(seed)
        self.randbelow = randbelow or self.rng.randbelow
        self.storage = storage if storage is not None else MemoryStorage()
        self.power = Power()
        self.usb = None
        self.device_id = "test"
        self.clock = 0

    def ticks_ms(self):
        return self.clock

    def ticks_diff(self, a, b):
        return a - b

    def sleep_ms(self, ms):
        self.clock += ms


def press(app, *codes):
    """Press each button in turn (one tick each), then one idle tick."""
    for code in codes:
        app.board.buttons.queue.append(code)
        app.tick(20)
    app.tick(20)


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
