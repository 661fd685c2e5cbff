"""The replay's device board (app_replay.py `device`): the Pico's own drivers as board.make()
builds them (SSD1306 with its dirty-region flush, the USB link with its queue and journal
scan, power, buttons, rng, beeper, and dicepod.board itself), on stand-ins that accept and drop
what the hardware would receive. Only the dice (the seeded source the session was recorded
with) and the buttons (the recorded stream) are the replay's. So the heap it measures is what a
device holds. Portable."""

from seeded import Seeded

from dicepod import board as pico_board

# usb: imported here, before the board, as on a device (assemble uses it)
from dicepod.drivers import beeper, buttons, display, power, rng, usb  # noqa: F401
from dicepod.drivers.storage import FileStorage


class _Bus:
    """I2C, Pin, ADC, PWM and the USB streams at once: writes vanish, reads find nothing."""

    IN = PULL_UP = IRQ_FALLING = 0

    def writeto(self, addr, data):
        return None

    def scan(self):
        return [pico_board.OLED_ADDR]

    def value(self, level=None):
        return 1  # a button pin at rest (pull-up); VBUS present

    def irq(self, handler=None, trigger=0):
        return None

    def read_u16(self):
        return 0

    def duty_u16(self, duty=None):
        return 0

    def freq(self, hz=None):
        return 0

    def write(self, data):
        return len(data)

    def read(self, count=-1):
        return b""


def make(root, seed, keys):
    """Return a Board of the real drivers (keys: the replay's button source, update(dt_ms))."""
    bus = _Bus()
    assert rng.HardwareRandom  # its code is on the board; the dice come from the recorded seed
    return pico_board.assemble(
        FileStorage(root),
        lambda values: display.make(0, bus, pico_board.OLED_ADDR),
        keys,
        Seeded(seed).randbelow,
        device_id="replay",
        # the real Buttons on the board (wake-up, the power policy); not read
        power=lambda oled: power.Power(
            oled, adc=bus, vbus=bus, sleep=_no_sleep, buttons=buttons.Buttons([bus] * 4)
        ),
        usb={"out": bus, "inp": bus, "poll": False},
        beeper=beeper.Beeper(bus),
    )


def _no_sleep(ms):
    return None
