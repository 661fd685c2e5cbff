"""The tests session through the real app (scripted buttons, seeded dice): it plays to the end
without a crash, the journal holds the game, and the screens are pixel-identical under CPython
and MicroPython (result_screens: CRC-32 of the frame buffer at each snap). Portable."""

from app_board import file_storage
from app_sessions import journal_kinds, run_recorded
from app_sessions import tests_session as _session


def _run():
    return run_recorded(_session, storage=file_storage("tests"))


def test_tests_session_covers_every_action():
    app, shots = _run()
    kinds = journal_kinds(app)
    assert "crash" not in kinds
    for kind in ("tn", "mod", "roll", "reroll", "rule", "rolloff", "d3", "d3p1", "clear_mods"):
        assert kind in kinds, kind
    assert kinds.count("roll") == 3
    game = app.session.game
    # the dash's roll was refused (nothing written); long BACK then undid the dash itself
    assert kinds[-2:] == ["tn", "undo"]
    assert game.tn == 5 and game.tn_final == 5  # modifiers cleared before the dash
    assert game.n_dice == 15
    assert len(shots) == 10


def result_screens():
    return _run()[1]
