"""Render every screen of the real app to PNG, from the real frame buffer, scaled ×4.

    .venv/bin/python tools/screenshots.py [OUT_DIR]      (default: docs/screens)

The screens come from the scripted button sessions the tests play (tests/portable/
app_sessions.py): the app runs on a test board under CPython with host/framebuf.py, which
draws byte for byte what MicroPython's framebuf draws (tests/portable/test_ui_framebuf.py), so
each picture is exactly what the OLED shows. A few screens no session reaches (ALL OUT!, a crash,
corrupt settings) are set up directly. PNGs are written with zlib + struct: no extra package.
Prints a Markdown list of the files (the README's section is that list).
"""

import binascii
import struct
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for sub in ("firmware", "host", "tests/portable"):
    sys.path.insert(0, str(ROOT / sub))

import app_sessions  # noqa: E402
from app_board import BACK, DOWN, OK, Board, LineStorage, menu, press  # noqa: E402

from dicepod.app import App  # noqa: E402

SCALE = 4
# An OLED look: lit pixels pale cyan, dark pixels near black.
_ON = bytes((0x9C, 0xE6, 0xFF))
_OFF = bytes((0x08, 0x10, 0x18))


def png(buffer, width=128, height=64, scale=SCALE):
    """Return PNG bytes for a MONO_VLSB frame buffer, each pixel scale×scale."""
    rows = []
    for y in range(height):
        row = bytearray(b"\x00")  # filter: none
        for x in range(width):
            lit = (buffer[(y >> 3) * width + x] >> (y & 7)) & 1
            row += (_ON if lit else _OFF) * scale
        rows.extend([bytes(row)] * scale)

    def chunk(kind, data):
        crc = binascii.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width * scale, height * scale, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
        + chunk(b"IEND", b"")
    )


class Shots:
    """Writes each named screen once (the first time a session shows it)."""

    def __init__(self, out):
        self.out = out
        self.names = []

    def take(self, app, name):
        if name in self.names:
            return
        self.names.append(name)
        (self.out / ("%s.png" % name)).write_bytes(png(app.board.display.buffer))


def main(argv):
    out = Path(argv[1]) if len(argv) > 1 else ROOT / "docs" / "screens"
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.png"):
        old.unlink()
    shots = Shots(out)

    app = App(Board(seed=11))
    app.start()
    shots.take(app, "menu_boot")
    for session in (
        lambda app, snap: app_sessions.free_session(app, snap, runs=(100, 1000)),
        app_sessions.tests_session,
        app_sessions.battle_session,
        app_sessions.tyranid_session,
        app_sessions.orks_session,
        app_sessions.extras_session,
    ):
        session(app, lambda name, app=app: shots.take(app, name))
    # History: the Battle Game's page in words, scrolled to its moves
    menu(app, "History")
    press(app, DOWN, DOWN, OK)  # newest first: orks, tyranid, battle
    press(app, DOWN, DOWN, DOWN, DOWN, DOWN, DOWN)
    shots.take(app, "history_game")

    # ALL OUT!: a straight 1-5 and a Lucky Six set aside use every die.
    app = App(Board(seed=1))
    app.start()
    press(app, OK)  # Battle Game
    app.session.play(("roll", (1, 2, 3, 4, 5, 6)))
    app.session.play(("set_aside", (6, 0, 1, 2, 3, 4, 5)))
    app.redraw()
    shots.take(app, "battle_all_out")
    # ... and its extra turn: stop, act, end the turn: the same player again, under a banner
    app.session.change_setting("battle.rows", 3)  # asked before the heroes move (BG-13)
    app.session.change_setting("battle.buys_lucky", 1)  # the players' table (BG-11)
    app.session.change_setting("battle.buys_straight", 2)
    app.session.play(("actions", ()))
    app.session.play(("end_turn", ()))
    app.redraw()
    shots.take(app, "battle_again")

    # Corrupt settings: the defaults, and a message saying so.
    app = App(Board(storage=LineStorage(settings=b'{"battle.rows": 3, "free.di')))
    app.start()
    shots.take(app, "settings_corrupt")

    # A crash: journalled, the app restarted from the journal, the traceback shown.
    app = App(Board(seed=1, strict=False))
    app.start()
    press(app, OK)
    screen_class = type(app.stack[-1])
    original = screen_class.on_button

    def broken(self, app, button):
        return {}["no such key"]

    screen_class.on_button = broken
    press(app, OK)
    screen_class.on_button = original
    shots.take(app, "crash")
    press(app, BACK)

    free_for_a_class(shots)

    for name in shots.names:
        print("- `%s.png`" % name)
    print("%d screens in %s" % (len(shots.names), out), file=sys.stderr)
    return 0


def free_for_a_class(shots):
    """Free roll for a class: the dice count chosen, counts past 99,999 and as percentages,
    class mode's big counts, the loaded die after Auto-roll 1000, and Help at its second page."""
    from app_board import hold, idle

    def choose(app, row):  # a row of Free roll's game menu
        hold(app, OK)
        press(app, *((DOWN,) * row))
        press(app, OK)

    app = App(Board(seed=46))
    app.start()
    menu(app, "free")
    press(app, OK, DOWN, DOWN)
    shots.take(app, "free_dice_picked")
    screen = app.stack[-1]
    game = app.session.game
    game.counts = [0, 99999, 100234, 99817, 123456, 99741, 100012]
    game.dice = sum(game.counts)
    game.rolls = game.dice // 4
    screen.dirty = True
    app.redraw()
    shots.take(app, "free_counts_99999")
    choose(app, 6)  # Show %
    shots.take(app, "free_percent")
    choose(app, 6)  # Show counts
    choose(app, 7)  # Class mode: big counts, the display kept on
    shots.take(app, "free_class_mode")
    choose(app, 7)
    choose(app, 5)  # Reset counts
    choose(app, 8)  # Loaded die
    shots.take(app, "free_loaded")
    choose(app, 3)  # Auto-roll 1000 with the loaded die
    while app.stack[-1].left:
        idle(app)
    shots.take(app, "free_loaded_auto")
    choose(app, 0)  # Fairness test of the loaded die: caught
    idle(app, 12)
    shots.take(app, "free_loaded_selftest")
    press(app, BACK, BACK)
    hold(app, OK)
    menu_screen = app.stack[-1]
    while menu_screen.items[menu_screen.cursor] != "Help":
        press(app, DOWN)
    press(app, OK, DOWN)
    shots.take(app, "help_free_page2")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
