"""The free session through the real app (scripted buttons, seeded dice): it plays to the end
without a crash, the journal holds the game, and the screens are pixel-identical under CPython
and MicroPython (result_screens: CRC-32 of the frame buffer at each snap). Portable."""

from app_board import file_storage
from app_sessions import free_session as _session
from app_sessions import journal_kinds, run_recorded


def _lesson(app, snap):
    _session(app, snap, runs=(100, 1000))  # auto-roll 1000: 5 rolls a tick


def _run():
    return run_recorded(_lesson, storage=file_storage("free"))


def test_free_session_rolls_and_self_test():
    app, shots = _run()
    kinds = journal_kinds(app)
    assert "crash" not in kinds
    assert kinds[0] == "new_game"
    # 7 pressed (one undone), auto-roll 100 and 1000, then the counts reset
    assert kinds.count("roll") == 7 + 100 + 1000 and kinds.count("undo") == 1
    assert kinds.count("selftest") == 1 and kinds.count("reset") == 1
    game = app.session.game
    assert game.rolls == 0 and game.dice == 0 and game.sum_rolls == 0  # reset
    assert game.tests == 1 and game.last_test[0] == 600
    assert game.settings.get("free.dice") == 3
    assert len(shots) == 13


def result_screens():
    return _run()[1]
