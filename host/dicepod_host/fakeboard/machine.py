"""Fake `machine` module: the Pico's hardware API with settable inputs and recorded outputs.

Test and emulator code only (never deployed). Runs under MicroPython (this folder is on the
import path ahead of the unix port's own `machine`) and under CPython
(`dicepod_host.fakeboard.machine`). It offers what dicepod's board.py and drivers use:

- Pin: inputs follow the pull resistor until a test drives them (`drive(level)`/`release()`);
  every constructed pin is kept in PINS by id, so a test can press a button by GPIO number
  (`press(10)`, `release(10)`); `irq()` handlers run on driven edges.
- I2C: `writeto`/`writevto` record every transaction as (addr, bytes) in `log` (the last
  LOG_LIMIT of them, so a long emulator run stays small; None = no log) and count bytes;
  each write is also passed to the device attached at that address (by default a fake OLED at
  0x3C decoding the stream into pixels, see oled_decode.py). A write to an address with no
  device raises OSError(5) (EIO), as the rp2 port does on a NACK.
- ADC: `read_u16()` returns ADC_VALUES[channel] (settable; channel 3 = GP29 = VSYS/3).
- PWM, Timer (fires only when a test calls `fire()`), unique_id(), freq(), idle(),
  lightsleep()/deepsleep() stubs, reset_cause(), disable_irq()/enable_irq().
- FAKE_CLOCK: a virtual clock (ticks_ms/ticks_diff/ticks_add/sleep_ms), passed to board.make()
  as its clock (board_options.py, emulate_main.py), so a run on the fake board is bounded and fast:
  every sleep_ms() or lightsleep() is one loop pass; after DICEPOD_FAKE_TICKS passes (env var,
  default 300; 0 = unbounded) it raises SystemExit(0). DICEPOD_FAKE_REALTIME=1 makes the clock
  follow real time (for the interactive emulator). DICEPOD_FAKE_OLED=sh1106 makes the default
  display at 0x3C an SH1106.
- FAKE_FLASH: the directory passed to board.make() for the journal and settings on the fake board
  (DICEPOD_FAKE_FLASH, default /tmp/dicepod-fake-flash), so a run never writes into the repo.
"""

import os
import time

try:
    import oled_decode
except ImportError:
    from dicepod_host.fakeboard import oled_decode


def _env(name, default):
    """Read an environment variable on MicroPython (os.getenv) and CPython alike."""
    getenv = getattr(os, "getenv", None)
    value = getenv(name) if getenv else None
    return default if value is None or value == "" else value


# ---------------------------------------------------------------------------------------------
# Pins

PINS = {}  # id -> the Pin most recently constructed for that id


class Pin:
    """A GPIO with a settable external level."""

    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, id, mode=-1, pull=-1, *, value=None, drive=None, alt=None):
        self.id = id
        self.mode = self.IN
        self.pull_mode = None
        self.out_value = 0
        self.driven = None  # external level forced by a test, or None (follows the pull)
        self.handler = None
        self.trigger = 0
        self.init(mode, pull, value=value)
        PINS[id] = self

    def init(self, mode=-1, pull=-1, *, value=None, drive=None, alt=None):
        """Configure mode, pull and output value (-1 / None = leave as is)."""
        if mode != -1:
            self.mode = mode
        if pull != -1:
            self.pull_mode = pull
        if value is not None:
            self.out_value = 1 if value else 0

    def value(self, x=None):
        """Read the level, or set the output level."""
        if x is None:
            if self.mode == self.OUT:
                return self.out_value
            if self.driven is not None:
                return self.driven
            return 1 if self.pull_mode == self.PULL_UP else 0
        self.out_value = 1 if x else 0
        return None

    def __call__(self, x=None):
        return self.value(x)

    def on(self):
        """Drive high."""
        self.out_value = 1

    def off(self):
        """Drive low."""
        self.out_value = 0

    high = on
    low = off

    def toggle(self):
        """Invert the output."""
        self.out_value ^= 1

    def irq(
        self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, *, priority=1, wake=None, hard=False
    ):
        """Set the edge handler (called by drive() on a matching edge)."""
        self.handler = handler
        self.trigger = trigger if handler else 0
        return None

    # Test helpers ----------------------------------------------------------------------------

    def drive(self, level):
        """Force the external level (a pressed active-low button drives 0); run the irq."""
        before = self.value()
        self.driven = 1 if level else 0
        after = self.value()
        if self.handler and before != after:
            edge = self.IRQ_RISING if after else self.IRQ_FALLING
            if self.trigger & edge:
                self.handler(self)

    def release(self):
        """Stop driving: the pin follows its pull resistor again."""
        before = self.value()
        self.driven = None
        after = self.value()
        if self.handler and before != after:
            edge = self.IRQ_RISING if after else self.IRQ_FALLING
            if self.trigger & edge:
                self.handler(self)


def press(pin_id):
    """Press the active-low button on GPIO pin_id (drive it low)."""
    PINS[pin_id].drive(0)


def release(pin_id):
    """Release the button on GPIO pin_id (it follows its pull-up again)."""
    PINS[pin_id].release()


# ---------------------------------------------------------------------------------------------
# I2C

OLED_CONTROLLER = _env("DICEPOD_FAKE_OLED", "ssd1306")
OLED_ADDRESS = 0x3C  # 7-bit address of the usual 128x64 modules (0x78 as an 8-bit write address)
_EIO = 5  # errno the rp2 port raises when an address is not acknowledged
LOG_LIMIT = 512  # transactions kept in I2C.log (the oldest half is dropped beyond this)

BUSES = []  # every I2C constructed, in order


class I2C:
    """An I2C controller that records writes and hands them to attached fake devices."""

    def __init__(self, id=0, *, scl=None, sda=None, freq=400_000, timeout=50_000):
        self.id = id
        self.scl = scl
        self.sda = sda
        self.freq = freq
        self.log = []  # (addr, bytes) per write transaction; set to None to stop recording
        self.bytes_written = 0  # payload bytes (control bytes included, address bytes not)
        self.writes = 0  # transactions
        self.devices = {OLED_ADDRESS: oled_decode.OLED(OLED_CONTROLLER)}
        BUSES.append(self)

    def attach(self, addr, device):
        """Attach a device (an object with write(data)) at addr; None detaches."""
        if device is None:
            self.devices.pop(addr, None)
        else:
            self.devices[addr] = device

    def scan(self):
        """Return the addresses of attached devices."""
        return sorted(self.devices)

    def writeto(self, addr, buf, stop=True):
        """Write buf to addr as one transaction; return the number of bytes acknowledged."""
        data = bytes(buf)
        device = self.devices.get(addr)
        if device is None:
            raise OSError(_EIO)
        device.write(data)
        self.writes += 1
        self.bytes_written += len(data)
        if self.log is not None:
            if len(self.log) >= LOG_LIMIT:
                del self.log[: LOG_LIMIT // 2]
            self.log.append((addr, data))
        return len(data)

    def writevto(self, addr, vector, stop=True):
        """Write the buffers in vector to addr as one transaction."""
        joined = bytearray()
        for part in vector:
            joined.extend(part)
        return self.writeto(addr, joined, stop)

    def readfrom(self, addr, nbytes, stop=True):
        """Read nbytes from addr (attached devices answer zeros)."""
        if addr not in self.devices:
            raise OSError(_EIO)
        return bytes(nbytes)

    def wire_bytes(self):
        """Bytes on the wire so far: payload plus one address byte per transaction."""
        return self.bytes_written + self.writes

    def clear(self):
        """Forget the log and the counters."""
        if self.log is not None:
            self.log = []
        self.bytes_written = 0
        self.writes = 0


class SoftI2C(I2C):
    """Bit-banged I2C: the same fake."""

    def __init__(self, scl=None, sda=None, *, freq=400_000, timeout=50_000):
        super().__init__(-1, scl=scl, sda=sda, freq=freq, timeout=timeout)


# ---------------------------------------------------------------------------------------------
# ADC, PWM, Timer

# Raw 16-bit readings per ADC channel. Channel 3 is GP29 = VSYS/3 on a Pico: 0x6AAA is about
# 1.375 V at the pin, 4.1 V on VSYS (a nearly full LiPo). Channel 4 is the temperature sensor.
ADC_VALUES = {0: 0, 1: 0, 2: 0, 3: 0x6AAA, 4: 0x3700}
_ADC_GPIO_BASE = 26  # GP26..GP29 are ADC channels 0..3


class ADC:
    """An ADC channel whose reading a test sets in ADC_VALUES."""

    CORE_TEMP = 4

    def __init__(self, id, *, sample_ns=None, atten=None):
        if isinstance(id, Pin):
            id = id.id
        self.channel = id - _ADC_GPIO_BASE if id >= _ADC_GPIO_BASE else id

    def read_u16(self):
        """Return the channel's 16-bit reading."""
        return ADC_VALUES.get(self.channel, 0)


class PWM:
    """A PWM output that remembers its frequency and duty (the piezo)."""

    def __init__(self, dest, *, freq=None, duty_u16=None, duty_ns=None, invert=False):
        self.pin = dest
        self._freq = freq or 0
        self._duty = duty_u16 or 0

    def freq(self, value=None):
        """Get or set the frequency in Hz."""
        if value is None:
            return self._freq
        self._freq = value
        return None

    def duty_u16(self, value=None):
        """Get or set the duty cycle (0..65535)."""
        if value is None:
            return self._duty
        self._duty = value
        return None

    def deinit(self):
        """Stop the output."""
        self._duty = 0


class Timer:
    """A timer that fires only when a test calls fire()."""

    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, id=-1, *, mode=PERIODIC, freq=-1, period=-1, callback=None):
        self.callback = callback
        self.mode = mode
        self.period = period

    def init(self, *, mode=PERIODIC, freq=-1, period=-1, callback=None):
        """Reconfigure the timer."""
        self.__init__(-1, mode=mode, freq=freq, period=period, callback=callback)

    def deinit(self):
        """Stop the timer."""
        self.callback = None

    def fire(self):
        """Test helper: run the callback once."""
        if self.callback:
            self.callback(self)


# ---------------------------------------------------------------------------------------------
# The clock and the bounded run


class FakeClock:
    """Virtual milliseconds; counts loop passes and ends the run after a budget."""

    def __init__(self, budget=300, realtime=False):
        self.now = 0
        self.passes = 0
        self.budget = budget
        self.realtime = realtime
        self.slept_ms = 0  # time spent in lightsleep

    def ticks_ms(self):
        """Milliseconds since start (wraps like the Pico's at 2**30)."""
        if self.realtime:
            if hasattr(time, "ticks_ms"):
                return time.ticks_ms()  # type: ignore[attr-defined]
            return int(time.monotonic() * 1000) & 0x3FFFFFFF
        return self.now & 0x3FFFFFFF

    def ticks_add(self, ticks, delta):
        """Add delta to a ticks value."""
        return (ticks + delta) & 0x3FFFFFFF

    def ticks_diff(self, a, b):
        """Signed difference a - b of two ticks values."""
        return ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000

    def sleep_ms(self, ms):
        """Advance (or, in real time, wait) ms; one loop pass."""
        self.advance(ms)
        self._count()

    def advance(self, ms):
        """Move virtual time on by ms (a real sleep in real-time mode)."""
        if self.realtime:
            if hasattr(time, "sleep_ms"):
                time.sleep_ms(ms)  # type: ignore[attr-defined]
            else:
                time.sleep(ms / 1000)
        else:
            self.now += ms

    def _count(self):
        self.passes += 1
        if self.budget and self.passes >= self.budget:
            raise SystemExit(0)


FAKE_CLOCK = FakeClock(
    int(_env("DICEPOD_FAKE_TICKS", "300")), _env("DICEPOD_FAKE_REALTIME", "0") == "1"
)

# The fake board's flash: board.py puts the journal and settings files here instead of the
# current directory (DICEPOD_FAKE_FLASH; created when missing).
FAKE_FLASH = _env("DICEPOD_FAKE_FLASH", "/tmp/dicepod-fake-flash")
try:
    os.mkdir(FAKE_FLASH)
except OSError:
    pass  # exists

# A lightsleep without a timeout sleeps until a pin edge; the fake wakes after this long.
_LIGHTSLEEP_DEFAULT_MS = 1000
# Light sleeps so far: [count, time_ms of the last one (None when none was given)].
LIGHTSLEEPS = [0, None]


def lightsleep(time_ms=None):
    """Count the sleep, move the clock on; one loop pass."""
    LIGHTSLEEPS[0] += 1
    LIGHTSLEEPS[1] = time_ms
    slept = _LIGHTSLEEP_DEFAULT_MS if time_ms is None else time_ms
    FAKE_CLOCK.slept_ms += slept
    FAKE_CLOCK.advance(slept)
    FAKE_CLOCK._count()


def deepsleep(time_ms=None):
    """A deep sleep ends the program on the fake board."""
    raise SystemExit(0)


def idle():
    """Wait for an interrupt: nothing to wait for here."""


_FREQ = [125_000_000]


def freq(hz=None):
    """Get or set the CPU frequency."""
    if hz is None:
        return _FREQ[0]
    _FREQ[0] = hz
    return None


UNIQUE_ID = b"\xe6\x61\x38\x52\x83\x4a\x2c\x2d"  # 8 bytes, like the Pico's flash unique id


def _unique_id(text):
    # DICEPOD_FAKE_UID: 16 hex digits, so several emulated devices have ids of their own.
    if text and len(text) == 16:
        try:
            return bytes(int(text[i : i + 2], 16) for i in range(0, 16, 2))
        except ValueError:
            pass
    return UNIQUE_ID


UNIQUE_ID = _unique_id(_env("DICEPOD_FAKE_UID", ""))


def unique_id():
    """Return the board's 8-byte unique id."""
    return UNIQUE_ID


PWRON_RESET = 1
WDT_RESET = 3
SOFT_RESET = 5


def reset_cause():
    """Power-on, as far as the fake knows."""
    return PWRON_RESET


def reset():
    """A hard reset ends the program on the fake board."""
    raise SystemExit(0)


def soft_reset():
    """A soft reset ends the program on the fake board."""
    raise SystemExit(0)


def disable_irq():
    """Return the interrupt state token."""
    return 0


def enable_irq(state=0):
    """Restore interrupts."""


def bootloader(value=None):
    """Entering the bootloader ends the program on the fake board."""
    raise SystemExit(0)
