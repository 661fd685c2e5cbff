"""The real app's screens through the real display drivers: a scripted walk through every menu
entry (and a few presses inside each), with the I2C byte stream decoded back into pixels by the
fake OLED and compared with the frame buffer the screens drew, after every tick, for both
controllers. Independent of the screens' layout: whatever they draw must arrive intact."""

import app_board
from checks import skip
from seeded import Seeded

from dicepod.drivers import display
from dicepod.drivers.memstorage import MemoryStorage

try:
    import framebuf
except ImportError:
    framebuf = None

try:
    import machine
    import oled_decode
except ImportError:
    from dicepod_host.fakeboard import machine, oled_decode

UP, DOWN, OK, BACK = 1, 2, 4, 8


# A tap and a hold as pin states, one per 20 ms tick (bounce on both edges; app_board's).
_TAP = (1, 0, 1, 0, 1, 0)
_HOLD = (1, 0) + (1,) * 35 + (0, 1, 0)


class _Board:
    pass


def _session(kind):
    from dicepod import app as app_module

    i2c = machine.I2C(0)
    i2c.log = None  # only the decoded pixels matter here (and the heap is Pico-sized)
    oled = oled_decode.OLED(kind)
    i2c.attach(0x3C, oled)
    b = _Board()
    b.display = display.make(kind, i2c)
    fingers = app_board.Fingers()
    b.buttons = app_board.buttons(fingers)
    b.randbelow = Seeded(9).randbelow
    b.storage = MemoryStorage()
    b.power = None
    b.usb = None
    b.device_id = "test"
    a = app_module.App(b)
    a.start()
    checks = [0]

    def tick(button=0, states=_TAP):
        if button:
            for state in states:  # the finger on the pin, then the tick checked below
                fingers.down = button if state else 0
                step()
        step()

    def step():
        before = i2c.writes
        a.tick(20)
        b.display.show()  # a no-op when the app flushed already
        if i2c.writes == before:
            return  # nothing sent: the panel still shows the frame checked last time
        if oled.image() != b.display.buffer:
            raise AssertionError("%s: screen %s differs" % (kind, type(a.stack[-1]).__name__))
        checks[0] += 1

    tick()
    for entry in range(7):  # the main menu's entries, one after the other
        for _ in range(entry):
            tick(DOWN)
        tick(OK)
        for button in (OK, DOWN, OK, UP, OK, OK):
            tick(button)
        for _ in range(4):
            tick(BACK)
        for _ in range(3):
            tick(BACK, _HOLD)  # held BACK: undo in a game, harmless elsewhere
        for _ in range(3):
            tick(BACK)
    return checks[0], i2c.wire_bytes()


def test_every_menu_entry_arrives_intact_on_both_controllers():
    if framebuf is None:
        skip("no framebuf: host/framebuf.py is not importable")
    for kind in ("ssd1306", "sh1106"):
        checks, sent = _session(kind)
        assert checks > 60
        assert sent > 1080  # at least the first full frame went out
