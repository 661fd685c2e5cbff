"""The battle session through the real app (scripted buttons, seeded dice): it plays to the end
without a crash, the journal holds the game, and the screens are pixel-identical under CPython
and MicroPython (result_screens: CRC-32 of the frame buffer at each snap). Portable."""

from app_board import file_storage
from app_sessions import battle_session as _session
from app_sessions import journal_kinds, run_recorded


def _run():
    return run_recorded(_session, storage=file_storage("battle"))


def test_battle_session_plays_best_of_three():
    app, shots = _run()
    kinds = journal_kinds(app)
    assert "crash" not in kinds
    for kind in ("roll", "set_aside", "reroll", "bust", "actions", "advance", "end_turn"):
        assert kind in kinds, kind
    assert kinds.count("next_game") == 2
    assert kinds[-1] == "undo"
    game = app.game
    # the last event (the winning end_turn) was undone: back in the Battle Actions
    assert game.phase == "actions" and len(game.results) == 2
    names = [s[0] for s in shots]
    for name in ("battle_choose", "battle_decide", "battle_bust", "battle_win", "battle_move"):
        assert name in names, name


def result_screens():
    return _run()[1]
