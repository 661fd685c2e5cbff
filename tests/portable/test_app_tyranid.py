"""The tyranid session through the real app (scripted buttons, seeded dice): it plays to the end
without a crash, the journal holds the game, and the screens are pixel-identical under CPython
and MicroPython (result_screens: CRC-32 of the frame buffer at each snap). Portable."""

from app_board import file_storage
from app_sessions import journal_kinds, run_recorded
from app_sessions import tyranid_session as _session


def _run():
    return run_recorded(_session, storage=file_storage("tyranid"))


def test_tyranid_session_level_one_and_three():
    app, shots = _run()
    kinds = journal_kinds(app)
    assert "crash" not in kinds
    for kind in ("start", "shuffle", "activate", "attack", "place", "exit", "special", "set"):
        assert kind in kinds, kind
    assert kinds.count("start") == 2
    game = app.session.game
    assert game.level == 3 and game.phase == 3  # over
    assert game.result is not None


def result_screens():
    return _run()[1]
