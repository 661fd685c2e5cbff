"""Smoke test of firmware/dicepod/board.py on the fake machine; run by tests/test_board.py under
real MicroPython and under CPython (with the fake board folder, firmware and host on the path).
Prints BOARD OK at the end; any failure raises."""

import sys

import machine
import oled_decode
from board_options import OPTIONS  # the fake machine's flash directory and clock

from dicepod import board

# Importing board.py built nothing.
assert not machine.BUSES and not machine.PINS, "board import touched hardware"
machine.FAKE_CLOCK.budget = 0  # no bounded run here: this script drives the parts itself

SHAPE = ("display", "buttons", "randbelow", "storage", "power", "usb", "device_id")
SHAPE += ("ticks_ms", "ticks_diff", "sleep_ms")

for kind, name in ((0, "ssd1306"), (1, "sh1106")):
    machine.OLED_CONTROLLER = name  # the fake module fitted to the fake board
    b = board.make({"device.display": kind, "device.dim_s": 5, "device.off_s": 10}, **OPTIONS)
    i2c = machine.BUSES[-1]
    oled = i2c.devices[board.OLED_ADDR]
    assert oled.controller == name
    for attr in SHAPE:
        assert getattr(b, attr) is not None, attr
    assert b.display.NAME == name
    assert b.device_id == "e6613852834a2c2d", b.device_id
    assert b.settings["device.display"] == kind
    assert 0 <= b.randbelow(6) < 6
    assert b.ticks_diff(b.ticks_ms(), 0) >= 0

    # Draw, flush, decode: the panel shows the frame buffer.
    b.display.fill(0)
    b.display.text("dicepod %s" % name, 0, 0, 1)
    b.display.rect(10, 20, 50, 30, 1)
    b.display.show()
    assert oled.on and oled.image() == b.display.buffer, name
    assert oled.contrast == b.settings["device.bright"]

    # A button through the fake pins: UP is GP10 (acts on the press), OK is GP12 (a tap: acts
    # on the release), active low.
    assert b.buttons.update(10) == 0
    machine.press(board.BUTTON_PINS[0])
    assert b.buttons.update(10) == 1
    machine.release(board.BUTTON_PINS[0])
    for _ in range(5):
        b.buttons.update(10)
    machine.press(board.BUTTON_PINS[2])
    assert b.buttons.update(10) == 0
    for _ in range(5):
        assert b.buttons.update(10) == 0
    machine.release(board.BUTTON_PINS[2])
    assert b.buttons.update(10) == 4
    for _ in range(5):
        b.buttons.update(10)

    # Idle: dim at 5 s, off and light sleep at 10 s (not on USB power), wake on a press.
    slept_before = machine.LIGHTSLEEPS[0]
    for _ in range(120):
        events = b.buttons.update(100)
        b.power.update(100, events != 0)
    assert not oled.on and machine.LIGHTSLEEPS[0] > slept_before, name
    machine.press(board.BUTTON_PINS[0])
    assert b.buttons.update(100) == 0  # the waking press is swallowed by the muted buttons
    assert b.power.update(100, False) is True  # ... and wakes the display
    assert oled.on and oled.contrast == b.settings["device.bright"]
    machine.release(board.BUTTON_PINS[0])
    for _ in range(3):
        assert b.buttons.update(100) == 0
        b.power.update(100, False)
    machine.press(board.BUTTON_PINS[0])
    assert b.buttons.update(100) == 1  # the next press counts again
    machine.release(board.BUTTON_PINS[0])
    for _ in range(3):
        b.buttons.update(100)

    # Battery: none fitted by default; fitted reads VSYS through ADC3.
    assert b.power.battery() is None
    b.power.configure({"device.battery": 1})
    assert 0 <= b.power.battery() <= 100

# Settings from the saved file pick the controller; a corrupt file falls back to defaults.
store = b.storage
store.save_settings(b'{"device.display":1,"device.rotate":1,"battle.x":3}\n')
assert board.device_settings(store)["device.display"] == 1
assert board.device_settings(store)["device.rotate"] == 1
store.save_settings(b"{corrupt")
assert board.device_settings(store)["device.display"] == 0
store.save_settings(b'{"device.display":7}\n')  # out of range: default
assert board.device_settings(store)["device.display"] == 0

# A module at the alternative address 0x3D is found.
machine.OLED_CONTROLLER = "ssd1306"
_real_init = machine.I2C.__init__


def _init_3d(self, *args, **kwargs):
    _real_init(self, *args, **kwargs)
    self.devices = {0x3D: oled_decode.OLED("ssd1306")}


machine.I2C.__init__ = _init_3d
b = board.make({}, **OPTIONS)
assert b.display.addr == 0x3D
machine.I2C.__init__ = _real_init

print("BOARD OK", sys.implementation.name)
