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


def test_an_auto_rolls_moves_go_to_the_flash_eight_at_a_time():
    # A run the screen makes on its own is written in one append once 8 of its rolls are held
    # (or the first is a second old): a LittleFS append erases a block, which holds the CPU, so
    # fewer appends keep a press made during the run from waiting; 8 lines fit the USB link's
    # queue whole. A press writes what is held at once, and the run's end does in the next pass.
    from app_board import OK, Board, LineStorage, menu, press
    from app_sessions import _auto_roll, _until_done

    storage = LineStorage()
    appends = []
    append = storage.append

    def counted(seg, line):
        appends.append(bytes(line).count(b"\n"))
        return append(seg, line)

    storage.append = counted
    from dicepod.app import App

    app = App(Board(storage=storage, seed=3))
    app.start()
    menu(app, "free")
    _auto_roll(app, 100)
    del appends[:]
    session = app.session
    for _ in range(40):  # a roll a tick
        app.tick(20)
    assert appends and max(appends) == 8 and len(appends) <= 5, appends
    press(app, OK)  # pause: what the run played since goes at once
    assert session.pending == [] and app.stack[-1].paused
    press(app, OK)  # go on, to the end
    _until_done(app)
    app.tick(20)
    assert session.pending == []
    assert max(appends) <= 8 and journal_kinds(app).count("roll") == 100, appends
    assert len(appends) <= 100 // 8 + 4, appends  # (and the presses', the end's)
