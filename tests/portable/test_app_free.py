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


def test_an_auto_rolls_moves_go_to_the_flash_a_second_at_a_time():
    # A run the screen makes on its own is written in one append at most a second after its
    # first unwritten roll (a LittleFS append erases a block, which holds the CPU, so fewer
    # appends keep a press made during the run from waiting); a press writes what is held at
    # once, and the run's end does in the next pass.
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
    for _ in range(40):  # 0.8 s of a run: a roll a tick, none written yet
        app.tick(20)
    assert appends == [] and len(session.pending) >= 35, (appends, len(session.pending))
    for _ in range(15):  # over the second: the lot in one append
        app.tick(20)
    assert len(appends) == 1 and appends[0] >= 50 and len(session.pending) < 10, appends
    press(app, OK)  # pause: what the run played since goes at once
    assert session.pending == [] and app.stack[-1].paused
    press(app, OK)  # go on, to the end
    _until_done(app)
    app.tick(20)
    assert session.pending == []
    rolls = journal_kinds(app).count("roll")
    assert rolls == 100, rolls
    assert len(appends) <= 6, appends  # (a roll a tick: 100 rolls in about 2 s and 2 presses)
