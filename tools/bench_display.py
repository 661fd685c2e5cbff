"""Benchmark: bytes sent over I2C per display redraw, for the SSD1306 and SH1106 drivers.

Runs the real drivers under real MicroPython (its built-in framebuf) on the fake machine, whose
I2C counts every byte; a fake OLED decodes the stream and each redraw is checked against the
frame buffer. Numbers are wire bytes: payload (control, command and data bytes) plus one address
byte per transaction; the time is at 400 kHz with 9 clocks per byte (8 bits + ACK).
Goal (DESIGN.md): a roll redraw <= 400 bytes; a full frame is 1,024 data bytes + framing.
Two measurements: a reference roll screen (tests/portable/display_scenes.py: six dice in three
pages and two text lines; what the driver's dirty-span flush achieves), which the goal is
checked against, and the real Battle Game screen of dicepod.app (whatever its layout changes).
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from harness import run_micropython  # noqa: E402

GOAL = 400
ROLLS = 50

SCRIPT = r"""
import gc
import json
import machine
import oled_decode
from display_scenes import draw_roll_screen, redraw_after_roll, draw_die, LEFT, TOP, DIE, GAP
from seeded import Seeded
from dicepod.drivers import display

out = {}
for kind in ("ssd1306", "sh1106"):
    i2c = machine.I2C(0)
    oled = oled_decode.OLED(kind)
    i2c.attach(0x3C, oled)
    d = display.make(kind, i2c)
    rng = Seeded(11)
    faces = [rng.randbelow(6) + 1 for _ in range(6)]
    draw_roll_screen(d, faces, 0, 0)
    i2c.clear()
    d.invalidate()
    d.show()
    full = i2c.wire_bytes()
    rolls = []
    score = 0
    for roll in range(1, %(rolls)d + 1):
        faces = [rng.randbelow(6) + 1 for _ in range(6)]
        score += 50 * rng.randbelow(7)
        redraw_after_roll(d, faces, score, roll)
        i2c.clear()
        d.show()
        assert oled.image() == d.buffer
        rolls.append(i2c.wire_bytes())
    # Setting one die aside (drawn inverted): a single die changes.
    draw_die(d, LEFT + 2 * (DIE + GAP), TOP, faces[2], True)
    i2c.clear()
    d.show()
    one = i2c.wire_bytes()
    i2c.clear()
    d.show()
    none = i2c.wire_bytes()
    assert oled.image() == d.buffer
    out[kind] = {"full": full, "rolls": rolls, "one_die": one, "unchanged": none}


# Heap bytes the driver allocates in show() for a roll redraw (an I2C that allocates nothing).
class NullI2C:
    def writeto(self, addr, buf, stop=True):
        return len(buf)

    def writevto(self, addr, vector, stop=True):
        return 0


d = display.make("ssd1306", NullI2C())
rng = Seeded(11)
draw_roll_screen(d, [1, 2, 3, 4, 5, 6], 0, 0)
d.show()
allocs = []
for roll in range(1, 21):
    redraw_after_roll(d, [rng.randbelow(6) + 1 for _ in range(6)], roll * 50, roll)
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    d.show()
    allocs.append(gc.mem_alloc() - before)
    gc.enable()
out["alloc"] = allocs


# The real app: the Battle Game screen over the real driver, OK pressed again and again; the
# presses whose event was a roll are the roll redraws.
def battle_rolls(kind, presses):
    from dicepod import app as app_module
    from dicepod.drivers.storage import MemoryStorage

    class Keys:
        def __init__(self):
            self.queue = []

        def update(self, dt_ms):
            return self.queue.pop() if self.queue else 0

    class Board:
        pass

    i2c = machine.I2C(0)
    oled = oled_decode.OLED(kind)
    i2c.attach(0x3C, oled)
    b = Board()
    b.display = display.make(kind, i2c)
    b.buttons = Keys()
    b.randbelow = Seeded(5).randbelow
    b.storage = MemoryStorage()
    b.power = None
    b.usb = None
    b.device_id = "bench"
    a = app_module.App(b)
    a.start()
    rolls = []
    for _ in range(presses):
        i2c.clear()
        b.buttons.queue.append(4)  # OK
        a.tick(20)
        a.tick(20)
        assert oled.image() == b.display.buffer
        event = a.last_event
        if event is not None and event[0] == "roll":
            rolls.append(i2c.wire_bytes())
    return rolls


try:
    out["app"] = {k: battle_rolls(k, 60) for k in ("ssd1306", "sh1106")}
except Exception as exc:  # the app is another part: report, do not fail the driver numbers
    out["app_error"] = repr(exc)
print("JSON " + json.dumps(out))
"""


def _ms(nbytes):
    return nbytes * 9 / 400_000 * 1000


def main():
    """Print the table; exit 1 if the run failed or the goal is missed."""
    out = run_micropython(["-c", SCRIPT % {"rolls": ROLLS}], timeout=300)
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("JSON ")]
    if out.returncode != 0 or not line:
        print(out.stdout[-2000:] + out.stderr[-2000:])
        return 1
    data = json.loads(line[0][5:])
    print("I2C wire bytes per redraw (payload + 1 address byte per transaction), MicroPython")
    print(
        "%-8s %11s %18s %8s %8s %10s"
        % ("display", "full frame", "ref roll mean/max", "ms@400k", "one die", "unchanged")
    )
    ok = True
    for kind in ("ssd1306", "sh1106"):
        r = data[kind]
        rolls = r["rolls"]
        mean = sum(rolls) / len(rolls)
        print(
            "%-8s %11d %13.0f/%4d %8.1f %8d %10d"
            % (kind, r["full"], mean, max(rolls), _ms(mean), r["one_die"], r["unchanged"])
        )
        ok = ok and mean <= GOAL
    if "app" in data:
        for kind in ("ssd1306", "sh1106"):
            rolls = data["app"][kind]
            if rolls:
                print(
                    "%-8s real Battle Game screen, %d roll redraws: mean %.0f, min %d, max %d"
                    % (kind, len(rolls), sum(rolls) / len(rolls), min(rolls), max(rolls))
                )
    else:
        print("real Battle Game screen: not measured (%s)" % data.get("app_error"))
    alloc = data["alloc"]
    print(
        "driver heap allocation per roll redraw show(): mean %.0f, max %d bytes"
        % (sum(alloc) / len(alloc), max(alloc))
    )
    print(
        "reference roll redraw = six dice (3 pages) + two text lines, %d seeded rolls;"
        " goal <= %d: %s" % (ROLLS, GOAL, "met" if ok else "MISSED")
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
