"""The orks session through the real app (scripted buttons, seeded dice): it plays to the end
without a crash, the journal holds the game, and the screens are pixel-identical under CPython
and MicroPython (result_screens: CRC-32 of the frame buffer at each snap). Portable."""

from app_board import file_storage
from app_sessions import journal_kinds, run_recorded
from app_sessions import orks_session as _session


def _run():
    return run_recorded(_session, storage=file_storage("orks"))


def test_orks_session_to_the_end():
    app, shots = _run()
    kinds = journal_kinds(app)
    assert "crash" not in kinds
    for kind in ("start", "add", "next", "attack", "hit", "damage", "heal", "supply", "set"):
        assert kind in kinds, kind
    game = app.session.game
    assert game.phase == 4  # over
    assert game.result == 1  # the Terminators won


def result_screens():
    return _run()[1]
