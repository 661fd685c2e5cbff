"""Benchmark: bytes sent over I2C per display redraw, for the SSD1306 and SH1106 drivers.

Runs the real drivers under real MicroPython (its built-in framebuf) on the fake machine, whose
I2C counts every byte; a fake OLED decodes the stream and each redraw is checked against the
frame buffer. Numbers are wire bytes: payload (control, command and data bytes) plus one address
byte per transaction; the time is at 400 kHz with 9 clocks per byte (8 bits + ACK).
Goal (DESIGN.md, issue 4): a roll redraw <= 400 bytes; a full frame is 1,024 data bytes + framing.

Two measurements:
- a reference roll screen (tests/portable/display_scenes.py: six dice in three pages and two
  text lines): what the driver's dirty-span flush does for a compact roll screen;
- the real Battle Game screen of dicepod.app (dicepod/ui/battle.py), played by a seeded player
  through the real app, whole best-of-three series: every press is classified by what it did.
  The goal is checked on this one, over its ordinary roll redraws: "roll" (Battle Roll -> choose
  a set-aside) and "re-roll" (push your luck -> choose). The rare screens are reported apart:
  "bust" (a roll or re-roll that busts: the BUST! banner) and "all-out" (a set-aside that uses
  every die: the ALL OUT! banner); so are the other presses (set aside, UP/DOWN, the rest).
Heap: bytes show() allocates per redraw, measured with an I2C that allocates nothing itself.
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from harness import run_micropython  # noqa: E402

GOAL = 400
ROLLS = 50
SERIES = (1, 2, 3, 4)  # seeds of the played best-of-three series (dice and player choices)
ORDINARY = ("roll", "re-roll")
RARE = ("bust", "all-out")
OTHER = ("set aside", "browse", "after bust", "other")

REFERENCE = r"""
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
    d = i2c = oled = None
    gc.collect()


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
print("JSON " + json.dumps(out))
"""

# The real app on the real driver: a seeded player plays whole best-of-three series of the
# Battle Game; each press's wire bytes go under what the press did. With NULL set, the I2C
# allocates nothing and the bytes show() allocates are recorded instead.
APP = r"""
import gc
import json
import machine
import oled_decode
from seeded import Seeded
from dicepod import app as app_module
from dicepod.drivers import buttons, display
from dicepod.drivers.memstorage import MemoryStorage

UP, DOWN, OK = 1, 2, 4
KIND = %(kind)r
NULL = %(null)r


class NullI2C:
    def writeto(self, addr, buf, stop=True):
        return len(buf)

    def writevto(self, addr, vector, stop=True):
        return 0


class Fingers:
    down = 0


class Pin:
    # A button's pin, low while its finger is down (the firmware's driver reads it).

    def __init__(self, fingers, bit):
        self.fingers = fingers
        self.bit = bit

    def value(self):
        return 0 if self.fingers.down & self.bit else 1


# A tap, one pin state per 20 ms tick: down, bounce, down, released, bounce, up.
TAP = (1, 0, 1, 0, 1, 0)


class Board:
    pass


def series(seed, out):
    if NULL:
        i2c = NullI2C()
    else:
        i2c = machine.I2C(0)
        oled = oled_decode.OLED(KIND)
        i2c.attach(0x3C, oled)
    b = Board()
    b.display = display.make(KIND, i2c)
    fingers = Fingers()
    b.buttons = buttons.Buttons([Pin(fingers, 1 << i) for i in range(4)])
    b.randbelow = Seeded(seed).randbelow
    b.storage = MemoryStorage()
    b.power = None
    b.usb = None
    b.device_id = "bench"
    a = app_module.App(b)
    a.start()
    player = Seeded(seed + 1000).randbelow
    show = b.display.show
    cost = [0]

    def counted_show():
        gc.collect()
        gc.disable()
        before = gc.mem_alloc()
        show()
        cost[0] += gc.mem_alloc() - before
        gc.enable()

    if NULL:
        b.display.show = counted_show

    def press(code):
        game = a.session.game
        phase = game.phase if game is not None else None
        a.session.last_event = None
        cost[0] = 0
        if not NULL:
            i2c.clear()
        for state in TAP:
            fingers.down = code if state else 0
            a.tick(20)
        a.tick(20)
        if NULL:
            spent = cost[0]
        else:
            assert oled.image() == b.display.buffer
            spent = i2c.wire_bytes()
        event = a.session.last_event
        what = "other"
        if event is None:
            if code != OK:
                what = "browse"
        else:
            kind = event[0]
            busted = a.session.game.phase == "bust"
            if kind == "roll" or kind == "reroll":
                if busted:
                    what = "bust"
                elif kind == "reroll":
                    what = "re-roll"
                elif phase == "roll":
                    what = "roll"
                else:
                    what = "all-out"  # all six again after ALL OUT!: the banner goes
            elif kind == "set_aside":
                what = "all-out" if a.session.game.all_out else "set aside"
            elif kind == "bust":
                what = "after bust"
        out.setdefault(what, []).append(spent)

    press(OK)  # main menu: Battle Game
    for _ in range(3000):
        top = a.stack[-1]
        name = type(top).__name__
        game = a.session.game
        if name == "BattleScreen":
            phase = game.phase
            if phase == "over" and game.series_over():
                break
            if phase == "choose" and len(top.options) > 1 and player(3) == 0:
                press(DOWN)
            elif phase == "decide" and top.cursor != 0 and len(game.aside) >= 2 + player(3):
                press(UP)  # towards "stop": enough set aside
            else:
                press(OK)
        elif name == "Heroes":
            # one of the player's heroes (rows 0-4), then End turn (after the opponent's 5)
            target = game.across(game.player) %% 5 if not getattr(top, "moved", 0) else 10
            if top.cursor != target:
                press(DOWN)
            else:
                top.moved = 1
                press(OK)
        elif name == "Move":
            press(UP)
            press(OK)
        elif name == "Pick":  # the next game: who sets up first (the first listed)
            press(OK)
        elif name == "AskValue":  # rows per half, from the players' cards: asked once
            press(UP)
            press(UP)
            press(OK)
        else:
            raise RuntimeError("unexpected screen " + name)


out = {}
for seed in %(seeds)r:
    series(seed, out)
    gc.collect()
print("JSON " + json.dumps(out))
"""


def _ms(nbytes):
    return nbytes * 9 / 400_000 * 1000


def _run(script, heap="190k"):
    out = run_micropython(["-c", script], heap=heap, timeout=600)
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("JSON ")]
    if out.returncode != 0 or not line:
        print(out.stdout[-2000:] + out.stderr[-2000:])
        return None
    return json.loads(line[0][5:])


def _app(kind, null=False):
    # Sources compiled on the fly and whole series journalled in RAM: not a heap test.
    return _run(APP % {"kind": kind, "null": null, "seeds": SERIES}, heap="1m")


def _stats(values):
    return sum(values) / len(values), min(values), max(values)


def main():
    """Print the tables; exit 1 if a run failed or the real screen misses the goal."""
    data = _run(REFERENCE % {"rolls": ROLLS})
    if data is None:
        return 1
    print("I2C wire bytes per redraw (payload + 1 address byte per transaction), MicroPython")
    print(
        "%-8s %11s %18s %8s %8s %10s"
        % ("display", "full frame", "ref roll mean/max", "ms@400k", "one die", "unchanged")
    )
    for kind in ("ssd1306", "sh1106"):
        r = data[kind]
        mean, _low, high = _stats(r["rolls"])
        print(
            "%-8s %11d %13.0f/%4d %8.1f %8d %10d"
            % (kind, r["full"], mean, high, _ms(mean), r["one_die"], r["unchanged"])
        )
    print("(reference roll screen: six dice in 3 pages + two text lines, %d seeded rolls)" % ROLLS)
    print()
    print(
        "real Battle Game screen (dicepod.app), a seeded player, %d best-of-three series:"
        % len(SERIES)
    )
    print(
        "%-8s %-12s %6s %6s %6s %6s %8s"
        % ("display", "press", "count", "mean", "min", "max", "ms@400k")
    )
    ok = True
    for kind in ("ssd1306", "sh1106"):
        app = _app(kind)
        if app is None:
            return 1
        for what in ORDINARY + RARE + OTHER:
            values = app.get(what)
            if not values:
                continue
            mean, low, high = _stats(values)
            label = what + (" (rare)" if what in RARE else "")
            print(
                "%-8s %-12s %6d %6.0f %6d %6d %8.1f"
                % (kind, label, len(values), mean, low, high, _ms(mean))
            )
        rolls = []
        for what in ORDINARY:
            rolls += app.get(what, [])
        mean, low, high = _stats(rolls)
        met = mean <= GOAL
        ok = ok and met
        print(
            "%-8s roll redraws (roll + re-roll): %d, mean %.0f, max %d; goal <= %d: %s"
            % (kind, len(rolls), mean, high, GOAL, "met" if met else "NOT MET")
        )
    print()
    alloc = data["alloc"]
    app = _app("ssd1306", null=True)
    if app is None:
        return 1
    rolls = []
    for what in ORDINARY:
        rolls += app.get(what, [])
    everything = []
    for values in app.values():
        everything += values
    print(
        "driver heap allocation per show(): reference roll redraw mean %.0f, max %d bytes;"
        % (sum(alloc) / len(alloc), max(alloc))
    )
    print(
        "  real Battle Game: roll redraws max %d, every press max %d bytes"
        % (max(rolls), max(everything))
    )
    print("real Battle Game roll redraw, goal <= %d bytes: %s" % (GOAL, "met" if ok else "NOT MET"))
    return 0 if ok else 1


if __name__ == "__main__":
    from bench import recorded

    sys.exit(recorded("bench_display", main))
