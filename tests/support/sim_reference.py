"""The firmware's own rendering of a simulator session, under CPython: the real App on a board
built from the real drivers (Buttons, rng, Power, UsbLink, MemoryStorage) with host/framebuf.py,
the simulator's seeded random bytes (xorshift32 as in tests/portable/seeded.py, low 8 bits per
draw: sim.js's ?seed=) and the same PC commands the simulator page sends. A test presses the
same buttons here and in the browser and compares frames and USB lines."""

import io

import framebuf
from seeded import Seeded

from dicepod import board as pico_board
from dicepod.app import App
from dicepod.drivers import beeper, buttons, memstorage, power, rng

TICK_MS = 20  # the Pico's loop period (the simulator ticks every 20 ms too)
BITS = {"UP": buttons.UP, "DOWN": buttons.DOWN, "OK": buttons.OK, "BACK": buttons.BACK}


class Display(framebuf.FrameBuffer):
    """128x64 MONO_VLSB; show() counts."""

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


class ScriptedButtons(buttons.Buttons):
    """The real Buttons driver; read() returns what the script holds down."""

    raw = 0

    def read(self):
        return self.raw


class Tones:
    """The piezo's PWM as the simulator page hears it (simboard.SimPWM, sim.js tone()): each
    change of what sounds, [freq_hz, duty_u16], silences left out."""

    def __init__(self):
        self.f = 2000
        self.duty = 0
        self.now = (0, 0)
        self.heard = []

    def _tell(self):
        now = (self.f, self.duty) if self.duty else (0, 0)
        if now != self.now:
            self.now = now
            if now[0]:
                self.heard.append(list(now))

    def freq(self, value=None):
        if value is None:
            return self.f
        self.f = value
        self._tell()

    def duty_u16(self, value=None):
        if value is None:
            return self.duty
        self.duty = value
        self._tell()


class Out:
    """USB output: collects complete lines."""

    def __init__(self):
        self.data = b""

    def write(self, data):
        self.data += bytes(data)
        return len(data)

    def lines(self):
        return [line.decode() for line in self.data.split(b"\n") if line]


def seeded_bytes(seed):
    """The simulator's seeded byte source: one xorshift32 draw per byte, its low 8 bits."""
    gen = Seeded(seed)

    def source(k):
        return bytes(gen.next32() & 0xFF for _ in range(k))

    return source


class Reference:
    """One simulated device under CPython; press() and idle() advance it like the browser."""

    def __init__(self, seed, store=None, epoch=0):
        self.seed = seed
        self.device_id = "%016x" % seed
        self.store = store if store is not None else memstorage.MemoryStorage()
        self.out = Out()
        self.start(epoch)

    def start(self, epoch=0):
        """Boot (again): a new board and app on the same storage; the seeded random stream
        starts over (as the page's does on a reload)."""
        store = self.store
        self.source = seeded_bytes(self.seed)
        commands = io.BytesIO(b"hello\ntime %d\nsince 0\n" % epoch)
        self.buttons = ScriptedButtons()
        self.tones = Tones()
        self.board = pico_board.assemble(
            store,
            Display(),
            self.buttons,
            rng.HardwareRandom(self.source).randbelow,
            device_id=self.device_id,
            power=power.Power,
            usb={"out": self.out, "inp": commands, "poll": False},
            beeper=beeper.Beeper(self.tones),
        )
        self.app = App(self.board)
        self.app.start()
        self.idle(200)

    def press(self, name, settle_ms=300):
        """Click a button: held for one tick, then released; then settle_ms of idle ticks."""
        self.buttons.raw = BITS[name]
        self.app.tick(TICK_MS)
        self.buttons.raw = 0
        self.idle(settle_ms)

    def hold(self, name, ms=900, settle_ms=300):
        """Hold a button for ms (a long press), release, settle."""
        self.buttons.raw = BITS[name]
        self.idle(ms)
        self.buttons.raw = 0
        self.idle(settle_ms)

    def idle(self, ms):
        """Tick with no buttons for ms."""
        for _ in range(max(1, ms // TICK_MS)):
            self.app.tick(TICK_MS)

    def frame(self):
        """The display's bytes."""
        return bytes(self.board.display.buffer)

    def ascii(self):
        """The frame as text (# lit), for failure messages."""
        buf = self.frame()
        return "\n".join(
            "".join("#" if buf[(y // 8) * 128 + x] >> (y % 8) & 1 else "." for x in range(128))
            for y in range(64)
        )


def frame_ascii(buf):
    """A 1024-byte MONO_VLSB frame as text."""
    return "\n".join(
        "".join("#" if buf[(y // 8) * 128 + x] >> (y % 8) & 1 else "." for x in range(128))
        for y in range(64)
    )
