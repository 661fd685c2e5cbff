"""The simulator's Board: the firmware's own drivers on a hardware layer written in JavaScript.

Shell code, run by MicroPython's WebAssembly port in the browser (never deployed to a Pico).
sim.js registers the JS module `simjs` (the hardware) before importing this module, puts the
firmware tree in the working directory (as on the Pico's flash) and then calls start() once and
tick(dt_ms) from a JS timer: the app runs in steps, never in an endless Python loop (this port
collects garbage only between calls from JS).

Everything above the hardware is the firmware's: dicepod.board.assemble (the Board), the
Buttons driver (debounce, long press, auto-repeat) fed the on-screen buttons' raw state, the
rng driver's rejection sampling over bytes from crypto.getRandomValues, the Power policy (dim
and off), the Beeper on a PWM stand-in (Web Audio), the UsbLink writing protocol lines to the
page's USB panel and reading the commands the page sends like a PC logger, and the storage
driver's MemoryStorage mirrored in localStorage so a reload resumes the game.

simjs (see sim.js): show(hex), contrast(level), power(on), buttons() -> raw bitmask,
random_hex(k), random_id(k) (a journal's identity: never the seeded dice bytes), load(name)
-> str or None, save(name, text), append(name, text), usb_line(text), usb_take() -> str,
tone(freq_hz, duty_u16) (0, 0: silence), device_id() -> str, power_saving() -> 0/1 (the page's
checkbox: without it the display never dims or goes off).
"""

import time

import framebuf
import simjs

from dicepod import board as pico_board
from dicepod.drivers import beeper, buttons, memstorage, power, rng

_WIDTH = 128
_HEIGHT = 64
_JOURNAL = "journal"
_SETTINGS = "settings"


class SimDisplay(framebuf.FrameBuffer):
    """128x64 MONO_VLSB frame; show() hands the page a changed frame as hex."""

    def __init__(self):
        self.buffer = bytearray(_WIDTH * _HEIGHT // 8)
        super().__init__(self.buffer, _WIDTH, _HEIGHT, framebuf.MONO_VLSB)
        self.sent = bytearray(len(self.buffer))
        self.shows = 0
        self.first = True

    def show(self):
        """Send the frame to the canvas when it differs from the last one sent."""
        if self.first or self.buffer != self.sent:
            self.sent[:] = self.buffer
            self.first = False
            self.shows += 1
            simjs.show(self.buffer.hex())

    def contrast(self, level):
        """Brightness 0..255 (the canvas dims)."""
        simjs.contrast(level)

    def poweroff(self):
        """Panel off (the canvas goes dark, the frame is kept)."""
        simjs.power(0)

    def poweron(self):
        """Panel on again."""
        simjs.power(1)


class SimButtons(buttons.Buttons):
    """The firmware's Buttons driver reading the page's buttons and keys instead of pins."""

    def read(self):
        """Raw state: bit set = held (a click shorter than a tick still counts once)."""
        return simjs.buttons()


class SimPower(power.Power):
    """The firmware's power policy, but the display stays on unless the page asks for power
    saving (its checkbox): a simulator on a projector must not go dark mid-lesson."""

    def update(self, dt_ms, active):
        """Advance the policy; without power saving every tick counts as activity."""
        if not simjs.power_saving():
            active = True
        return super().update(dt_ms, active)


class BrowserStorage(memstorage.MemoryStorage):
    """MemoryStorage whose journal and settings are mirrored in the browser's localStorage.
    The journal is kept there as one text, every segment in order: each segment begins with
    its header line ("@ ID FIRST ..."), which names it, so the text splits back into them."""

    def __init__(self):
        journal = simjs.load(_JOURNAL)
        settings = simjs.load(_SETTINGS)
        super().__init__(b"", settings.encode() if settings is not None else None)
        seg = 1
        for line in (journal or "").encode().split(b"\n"):
            if not line:
                continue
            parts = line.split(b" ")
            if parts[0] == b"@" and len(parts) > 2 and parts[2].isdigit():
                seg = int(parts[2])
            memstorage.MemoryStorage.append(self, seg, line + b"\n")

    def append(self, seg, line):
        """Append one journal line (kept in localStorage at once)."""
        super().append(seg, line)
        simjs.append(_JOURNAL, bytes(line).decode())

    def write(self, seg, data):
        """Create or replace a segment (a header, or a mended one): the text again."""
        super().write(seg, data)
        if type(seg) is int:  # (side files, "ack" and "damaged", stay in RAM here)
            simjs.save(_JOURNAL, self.data().decode())

    def remove(self, seg):
        """Delete a segment: the text again."""
        super().remove(seg)
        simjs.save(_JOURNAL, self.data().decode())

    def save_settings(self, data):
        """Replace the settings."""
        super().save_settings(data)
        simjs.save(_SETTINGS, self.settings.decode())


class SimPWM:
    """A machine.PWM stand-in for the piezo: a tone in the page while the duty is not 0, as
    loud as the duty makes it (the device.volume setting); the page hears each change once."""

    def __init__(self):
        self._freq = 2000
        self._duty = 0
        self._heard = (0, 0)  # the (freq, duty) the page was last told

    def _tell(self):
        now = (self._freq, self._duty) if self._duty else (0, 0)
        if now != self._heard:
            self._heard = now
            simjs.tone(now[0], now[1])

    def freq(self, value=None):
        """Set (or return) the frequency in Hz."""
        if value is None:
            return self._freq
        self._freq = value
        self._tell()

    def duty_u16(self, value=None):
        """Set (or return) the duty; 0 = silent."""
        if value is None:
            return self._duty
        self._duty = value
        self._tell()


class UsbOut:
    """The USB CDC output as the page sees it: complete lines go to the USB panel."""

    def __init__(self):
        self.pending = b""

    def write(self, data):
        """Take bytes; hand each complete line to the page; return the count."""
        self.pending += bytes(data)
        while True:
            end = self.pending.find(b"\n")
            if end < 0:
                break
            simjs.usb_line(self.pending[:end].decode())
            self.pending = self.pending[end + 1 :]
        return len(data)


class UsbIn:
    """The USB CDC input: the command lines the page sends as a PC logger would."""

    def __init__(self):
        self.pending = b""
        self.pos = 0

    def read(self, n=1):
        """Return up to n bytes of pending input (b"" when there is none)."""
        if self.pos >= len(self.pending):
            text = simjs.usb_take()
            if not text:
                return b""
            self.pending = text.encode()
            self.pos = 0
        chunk = self.pending[self.pos : self.pos + n]
        self.pos += len(chunk)
        return chunk


def _random_source(k):
    return bytes.fromhex(simjs.random_hex(k))


def make():
    """Build the simulator's Board with dicepod.board.assemble (as board.make() does the
    Pico's)."""
    store = BrowserStorage()
    device_id = simjs.device_id()
    return pico_board.assemble(
        store,
        SimDisplay(),
        SimButtons(),
        rng.HardwareRandom(_random_source).randbelow,
        device_id=device_id,
        power=SimPower,  # no ADC, no VBUS sense, no light sleep in a browser; on unless asked
        usb={"out": UsbOut(), "inp": UsbIn(), "poll": False},
        beeper=beeper.Beeper(SimPWM()),
        clock=time,
        new_id=lambda: simjs.random_id(8),
    )


_app = None


def start():
    """Build the board and the app, recover the journal and draw the first frame."""
    global _app
    from dicepod.app import App

    _app = App(make())
    _app.start()
    return _app


def tick(dt_ms):
    """One app step of dt_ms milliseconds (called from a JS timer)."""
    _app.tick(dt_ms)
