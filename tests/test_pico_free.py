"""Free roll for a class on the emulated Pico (MicroPython v1.28.0 RPI_PICO, dicepod deployed,
the real board: display on I2C, buttons on GP10-GP13, journal on LittleFS): a finger at the
pins opens Free roll, holds OK for the game menu and chooses Auto-roll 10; the app rolls by
itself, one roll a tick, and stops after ten. One App.tick(20) per host tick with CPython's
seeded dice (tests/pico_lockstep.py), so the Pico's decoded display equals CPython's rendering
of the same tick (checked once Auto-roll 10 is chosen, then after every tick of the run), and
at the end the journal on the Pico's flash equals CPython's byte for byte and holds the ten
rolls."""

import json

import pytest
from pico_sessions import FingerBoard, Player, Recording, journal_of, lockstep_files
from pico_support import diff_image, need_pico, play_checked

from dicepod.app import App


def _record():
    """The presses on CPython, recorded tick by tick with the finger of the Pico tests."""
    from app_board import DOWN, OK, hold, menu, press, wait

    board = FingerBoard()
    app = App(board)
    app.start()
    board.boot_frame = bytes(board.display.buffer)
    board.boot_screen = type(app.stack[-1]).__name__
    menu(app, "free")
    hold(app, OK)  # the game menu
    press(app, DOWN)  # Auto-roll 10
    started = len(board.pins)
    press(app, OK)  # chosen: the rolls start when OK is let go
    wait(app, 14)  # ten ticks of rolls, then idle
    assert app.stack[-1].left == 0 and app.session.game.rolls == 10
    return Recording(board, app, {"free": (0, len(board.pins))}), started


@pytest.mark.timeout(300)
def test_auto_roll_10_at_the_pins():
    need_pico()
    from dicepod_host.pico import Pico

    rec, started = _record()
    first, end = rec.marks["free"]
    with Pico(files=lockstep_files()) as pico:
        player = Player(pico)
        player.boot()
        assert pico.frame() == rec.frames[0], diff_image(pico.frame(), rec.frames[0])
        # to the menu's Auto-roll 10 in one command (the frame checked there), then tick by tick
        assert player.play(rec.pins[first:started]) == "edge"
        want = rec.frames[started]
        assert pico.frame() == want, diff_image(pico.frame(), want)
        shown = play_checked(player, rec, started, end)
        journal, _settings = journal_of(pico)
    assert journal == rec.journal
    events = [
        json.loads(line.split(b" ")[4]) for line in journal.splitlines() if line[:1].isdigit()
    ]
    rolls = [data for kind, data in events if kind == "roll"]
    kinds = [kind for kind, _data in events]
    sets = kinds.count("set")  # the new game's settings
    assert kinds == ["new_game"] + ["set"] * sets + ["roll"] * 10, kinds
    assert len(rolls) == 10 and all(len(r) == 6 for r in rolls)
    # the run was watched: a frame for each roll (the counts and the "Auto-roll n/10" line), the
    # menu's last frame and the end's
    assert len(shown) >= 11, len(shown)
