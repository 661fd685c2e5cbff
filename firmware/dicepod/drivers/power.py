"""Power policy: dim after idle, display off and light sleep after longer idle, wake on any
button; battery level from VSYS when a battery is fitted.

Driver (shell code). Everything hardware is injected, so a test drives it with virtual time:
- display: the OLED driver (contrast(level), poweroff(), poweron());
- adc: the VSYS/3 channel (Pico: ADC(29), channel 3; an object with read_u16()), or None;
- vbus: a Pin reading 1 while USB power is present (Pico and Pico 2: GP24), or None;
- sleep: machine.lightsleep (called as sleep(ms)); None = never sleep, only switch off;
- buttons: the Buttons driver, or None. A held button counts as activity; when the display goes
  off the buttons are muted, so the press that wakes the screen is swallowed by the driver
  itself (the app sees no event, only the screen coming back).
The buttons' falling-edge IRQs (Buttons.arm_wake) end a light sleep early; otherwise it ends
after `sleep_slice_ms` and the app's loop runs one tick (cheap) before sleeping again. On USB
power the policy dims and switches off but never sleeps (the USB link must stay up, and the
power is free).

`update(dt_ms, active)` is called once per app tick with the elapsed time and whether anything
happened (a button, USB traffic); it returns True when this activity woke the display from off,
so the app can swallow the button that woke it. Times and brightness come from the device
settings (dicepod.device.SETTINGS) via configure(values); a time of 0 means never (no dimming,
or the display never goes off).

On a Pico W, GP29 is shared with the wireless chip and GP25 must be driven high before reading
VSYS; dicepod's hardware is a plain Pico or Pico 2, where GP29 is the VSYS divider alone.
"""

from micropython import const

_AWAKE = const(0)
_DIM = const(1)
_OFF = const(2)

_IDLE_CAP = const(1 << 28)  # idle time stops counting here (~3 days): stays a small int

# VSYS sense on a Pico: VSYS -> 200k/100k divider -> GP29 (ADC3), so VSYS = 3 x the pin voltage;
# the ADC's reference is the 3.3 V rail: millivolts = raw16 * 3300 * 3 / 65535.
_ADC_FULL_SCALE = const(65535)
_VREF_MV = const(3300)
_DIVIDER = const(3)
# The battery feeds VSYS through a Schottky diode (hardware/WIRING.md): ~0.25 V at 25 mA.
_DIODE_MV = const(250)

# LiPo open-circuit voltage (mV) to charge (%), a typical 1-cell discharge curve at light load.
_CURVE = const(
    (
        (4200, 100),
        (4100, 90),
        (4000, 78),
        (3900, 64),
        (3800, 50),
        (3750, 40),
        (3700, 28),
        (3650, 18),
        (3600, 10),
        (3500, 4),
        (3300, 0),
    )
)


def percent_from_mv(mv):
    """Return the battery charge (0..100) for a cell voltage in mV (linear between points)."""
    if mv >= _CURVE[0][0]:
        return 100
    for i in range(1, len(_CURVE)):
        hi_mv, hi_pc = _CURVE[i - 1]
        lo_mv, lo_pc = _CURVE[i]
        if mv >= lo_mv:
            return lo_pc + (hi_pc - lo_pc) * (mv - lo_mv) // (hi_mv - lo_mv)
    return 0


class Power:
    """Dim/off/sleep policy and battery level."""

    def __init__(
        self,
        display,
        adc=None,
        vbus=None,
        sleep=None,
        battery_fitted=False,
        dim_ms=30_000,
        off_ms=120_000,
        brightness=207,
        sleep_slice_ms=2_000,
        buttons=None,
    ):
        self.display = display
        self.buttons = buttons
        self.adc = adc
        self.vbus = vbus
        self.sleep = sleep
        self.battery_fitted = battery_fitted
        self.dim_ms = dim_ms
        self.off_ms = off_ms
        self.brightness = brightness
        self.sleep_slice_ms = sleep_slice_ms
        self.state = _AWAKE
        self.idle_ms = 0
        self.sleeps = 0  # light sleeps entered (for tests and the status screen)
        self._mv = 0  # smoothed VSYS in mV, 0 = not read yet

    def configure(self, values):
        """Apply device settings from a mapping (e.g. Settings.values); unknown keys, and a
        value outside its spec's range (dicepod.device), are ignored."""
        from dicepod.device import SETTINGS

        checked = {}
        for spec in SETTINGS:
            value = values.get(spec[0])
            if type(value) is int and spec[2] <= value <= spec[3]:
                checked[spec[0]] = value
        values = checked
        self.dim_ms = values.get("device.dim_s", self.dim_ms // 1000) * 1000
        self.off_ms = values.get("device.off_s", self.off_ms // 1000) * 1000
        self.battery_fitted = bool(values.get("device.battery", self.battery_fitted))
        bright = values.get("device.bright", self.brightness)
        if bright != self.brightness:
            self.brightness = bright
            if self.state == _AWAKE:
                self.display.contrast(bright)
            elif self.state == _DIM:
                self.display.contrast(self.dim_level())

    def dim_level(self):
        """Contrast while dimmed: an eighth of the brightness, at least 1."""
        level = self.brightness >> 3
        return level if level > 0 else 1

    def update(self, dt_ms, active):
        """Advance the policy; return True when this activity woke the display from off."""
        buttons = self.buttons
        if not active and buttons is not None and buttons.pressed():
            active = True
        if active:
            woke = self.state == _OFF
            if self.state == _OFF:
                self.display.poweron()
                if buttons is not None:
                    buttons.unmute()
            if self.state != _AWAKE:
                self.display.contrast(self.brightness)
            self.state = _AWAKE
            self.idle_ms = 0
            return woke
        if self.idle_ms < _IDLE_CAP:
            self.idle_ms += dt_ms
        if self.dim_ms and self.state == _AWAKE and self.idle_ms >= self.dim_ms:
            self.display.contrast(self.dim_level())
            self.state = _DIM
        if self.off_ms and self.state != _OFF and self.idle_ms >= self.off_ms:
            self.display.poweroff()
            self.state = _OFF
            if buttons is not None:
                buttons.mute()
        if self.state == _OFF and self.sleep is not None and not self.usb_powered():
            self.sleeps += 1
            self.sleep(self.sleep_slice_ms)
        return False

    def is_dim(self):
        """True while dimmed."""
        return self.state == _DIM

    def is_off(self):
        """True while the display is off (and the board may sleep)."""
        return self.state == _OFF

    def usb_powered(self):
        """True when USB power is present (VBUS sense), False when unknown or absent."""
        return bool(self.vbus is not None and self.vbus.value())

    def vsys_mv(self):
        """Read VSYS in mV (smoothed over reads), or 0 without a sense channel."""
        if self.adc is None:
            return 0
        mv = self.adc.read_u16() * _VREF_MV * _DIVIDER // _ADC_FULL_SCALE
        self._mv = mv if self._mv == 0 else (self._mv * 3 + mv) >> 2
        return self._mv

    def battery(self):
        """Return the battery charge in percent, or None when no battery is fitted or sensed.

        On USB power VSYS shows the USB supply, not the cell: the last level is kept then."""
        if not self.battery_fitted or self.adc is None:
            return None
        if self.usb_powered() and self._mv:
            return percent_from_mv(self._mv + _DIODE_MV)
        return percent_from_mv(self.vsys_mv() + _DIODE_MV)
