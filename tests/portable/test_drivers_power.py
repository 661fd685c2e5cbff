"""Power policy in virtual time: dim, off and light sleep after idle, wake on activity (the
waking press is flagged), no sleep on USB power, settings applied, battery level from VSYS."""

from dicepod import device
from dicepod.device import SETTINGS
from dicepod.drivers.power import Power, percent_from_mv
from dicepod.ui.ask import value_name

try:
    import machine
except ImportError:
    from dicepod_host.fakeboard import machine


class _Display:
    def __init__(self):
        self.calls = []

    def contrast(self, level):
        self.calls.append(("contrast", level))

    def poweroff(self):
        self.calls.append(("off",))

    def poweron(self):
        self.calls.append(("on",))


class _Pin:
    def __init__(self, level):
        self.level = level

    def value(self):
        return self.level


class _ADC:
    def __init__(self, raw):
        self.raw = raw

    def read_u16(self):
        return self.raw


def _idle(power, ms, dt=100):
    for _ in range(ms // dt):
        power.update(dt, False)


def test_dim_then_off_then_sleep():
    d = _Display()
    slept = []
    p = Power(d, sleep=slept.append, dim_ms=30_000, off_ms=120_000, brightness=200)
    _idle(p, 29_900)
    assert d.calls == [] and not p.is_dim()
    p.update(100, False)
    assert d.calls == [("contrast", 25)] and p.is_dim()
    _idle(p, 89_900)
    assert not p.is_off() and slept == []
    p.update(100, False)
    assert p.is_off() and d.calls[-1] == ("off",)
    assert slept == [2000]  # sleeps in the same update that switched off
    _idle(p, 1000)
    assert len(slept) == 11 and p.sleeps == 11


def test_activity_wakes_and_flags_the_waking_press():
    d = _Display()
    p = Power(d, sleep=lambda ms: None, dim_ms=1000, off_ms=2000, brightness=100)
    _idle(p, 1500)
    assert p.update(10, True) is False  # dim only: the press counts as a press
    assert d.calls[-1] == ("contrast", 100) and not p.is_dim()
    _idle(p, 2500)
    assert p.is_off()
    assert p.update(10, True) is True  # woke from off: the app swallows this press
    assert d.calls[-2:] == [("on",), ("contrast", 100)]
    assert p.update(10, True) is False
    assert p.idle_ms == 0


def test_activity_resets_the_idle_timer():
    d = _Display()
    p = Power(d, dim_ms=1000, off_ms=3000)
    for _ in range(50):
        _idle(p, 900)
        p.update(10, True)
    assert d.calls == [] and not p.is_dim()


def test_no_sleep_on_usb_power_and_none_without_sleep_function():
    d = _Display()
    slept = []
    vbus = _Pin(1)
    p = Power(d, vbus=vbus, sleep=slept.append, dim_ms=100, off_ms=200)
    _idle(p, 1000)
    assert p.is_off() and slept == []
    vbus.level = 0  # unplugged: sleeping allowed again
    p.update(100, False)
    assert slept == [2000]
    p2 = Power(_Display(), sleep=None, dim_ms=100, off_ms=200)
    _idle(p2, 1000)
    assert p2.is_off() and p2.sleeps == 0


def test_configure_applies_settings():
    d = _Display()
    p = Power(d)
    values = {}
    for key, default, _lo, _hi, _label in SETTINGS:
        values[key] = default
    values["device.dim_s"] = 5
    values["device.off_s"] = 10
    values["device.bright"] = 80
    p.configure(values)
    assert p.dim_ms == 5000 and p.off_ms == 10_000
    assert d.calls == [("contrast", 80)]
    _idle(p, 5000)
    assert d.calls[-1] == ("contrast", 10)
    _idle(p, 5000)
    assert p.is_off()


def test_never_keeps_the_display_on():
    d = _Display()
    slept = []
    p = Power(d, sleep=slept.append)
    p.configure({"device.dim_s": 0, "device.off_s": 0})
    _idle(p, 3 * 3600 * 1000, dt=1000)  # a whole lesson, untouched
    assert not p.is_dim() and not p.is_off() and slept == []
    assert ("off",) not in d.calls
    p.configure({"device.dim_s": 0, "device.off_s": 60})  # never dims, but goes off
    _idle(p, 60_000)
    assert p.is_off() and not p.is_dim()
    assert value_name(device, "device.off_s", 0) == "Never"
    assert value_name(device, "device.off_s", 120) == "120"


def test_battery_percent_curve():
    assert percent_from_mv(4300) == 100
    assert percent_from_mv(4200) == 100
    assert percent_from_mv(3800) == 50
    assert percent_from_mv(3775) == 45
    assert percent_from_mv(3300) == 0
    assert percent_from_mv(3000) == 0
    last = 101
    for mv in range(4250, 3250, -10):
        pc = percent_from_mv(mv)
        assert pc <= last
        last = pc


def test_battery_from_vsys_adc():
    # 3.55 V on VSYS (3.8 V cell minus the 0.25 V diode): pin = 1.1833 V -> raw 23501.
    adc = _ADC(23501)
    p = Power(_Display(), adc=adc, battery_fitted=True)
    assert p.battery() == 50
    assert Power(_Display(), adc=adc, battery_fitted=False).battery() is None
    assert Power(_Display(), adc=None, battery_fitted=True).battery() is None
    # Smoothing: a single outlier moves the reading a quarter of the way.
    adc.raw = 0
    mv = p.vsys_mv()
    assert 2500 < mv < 2700


def test_battery_on_usb_keeps_the_last_cell_level():
    adc = _ADC(23501)
    vbus = _Pin(0)
    p = Power(_Display(), adc=adc, vbus=vbus, battery_fitted=True)
    assert p.battery() == 50
    vbus.level = 1
    adc.raw = 29000  # VSYS from USB
    assert p.battery() == 50 and p.usb_powered()


def test_with_fake_machine_parts():
    adc = machine.ADC(29)  # GP29 = ADC channel 3 = VSYS/3
    old = machine.ADC_VALUES[3]
    machine.ADC_VALUES[3] = 23501
    try:
        p = Power(_Display(), adc=adc, vbus=machine.Pin(24, machine.Pin.IN), battery_fitted=True)
        assert p.battery() == 50 and not p.usb_powered()
    finally:
        machine.ADC_VALUES[3] = old


def test_waking_press_is_swallowed_with_buttons_attached():
    from dicepod.drivers.buttons import OK, UP, Buttons

    d = _Display()
    keys = Buttons()
    p = Power(d, sleep=lambda ms: None, dim_ms=1000, off_ms=2000, buttons=keys)
    for _ in range(30):
        p.update(100, keys.update(100, 0) != 0)
    assert p.is_off()
    # The press that wakes the dark screen gives the app no event ...
    ev = keys.update(10, OK)
    assert ev == 0
    assert p.update(10, ev != 0) is True and not p.is_off()
    # ... nor does holding it (no long press), nor its release.
    for _ in range(100):
        assert keys.update(10, OK) == 0
        p.update(10, False)
    assert keys.update(10, 0) == 0
    for _ in range(5):
        keys.update(10, 0)
    assert keys.update(10, UP) == UP  # live again
    # A held button counts as activity: no dimming while it is held.
    for _ in range(300):
        keys.update(10, UP)
        p.update(10, False)
    assert not p.is_dim()


def test_unmute_after_other_activity_keeps_next_press():
    from dicepod.drivers.buttons import OK, Buttons

    keys = Buttons()
    p = Power(_Display(), dim_ms=100, off_ms=200, buttons=keys)
    for _ in range(5):
        p.update(100, False)
    assert p.is_off()
    assert p.update(10, True) is True  # e.g. the PC connected
    assert keys.update(10, OK) == 0  # a tap of OK: decided on release
    assert keys.update(50, 0) == OK  # not swallowed: the screen was already on (the release
    # comes after the lock-out ran out, so this update takes it)


def test_configure_ignores_values_outside_their_range():
    # A stored device.off_s of -18 (say, from an older firmware or an edited file) must not
    # blank the screen after every press: every device setting is checked where it is read.
    from dicepod.device import SETTINGS

    p = Power(_Display())
    before = (p.dim_ms, p.off_ms, p.brightness)
    p.configure({"device.off_s": -18, "device.dim_s": 10**9, "device.bright": 9999})
    assert (p.dim_ms, p.off_ms, p.brightness) == before
    spec = [s for s in SETTINGS if s[0] == "device.off_s"][0]
    p.configure({"device.off_s": spec[3]})
    assert p.off_ms == spec[3] * 1000
