"""Resume after a reset: a new App on the same storage (what a power cycle gives) shows exactly
the same pixels as the app before it, in every phase of a Battle Game, in Tests, Free roll and
the co-op action screens. Portable (plain asserts)."""

from app_board import DOWN, OK, UP, Board, file_storage, menu, press, screen_bytes, top

from dicepod.app import App


def _app(storage=None, seed=3):
    app = App(Board(storage=storage, seed=seed))
    app.start()
    return app


def _resumes_identically(app):
    """A reset: the old app goes (its game and screens with it, as on the device) and a new
    App on the same storage must show exactly the same pixels. Returns the new app."""
    import gc

    expected = screen_bytes(app)
    name = top(app)
    storage = app.board.storage
    seed = app.board.rng.state
    del app.stack[:]
    app.session.game = None
    gc.collect()
    again = _app(storage, seed=seed)
    assert top(again) == name, (top(again), name)
    assert screen_bytes(again) == expected, name
    return again


def test_resume_battle_at_every_phase():
    app = _app(file_storage("resume-battle"))
    menu(app, "battle")
    checked = {}
    for _ in range(120):
        phase = app.session.game.phase  # no local reference to a game: a reset must free its code
        if phase == "actions":
            press(app, OK)  # Heroes
            press(app, OK, UP, UP, OK)  # hero 1 advances twice
            while app.stack[-1].cursor != 5:
                press(app, DOWN)
            press(app, OK)
        elif phase == "decide" and len(app.session.game.aside) >= 2:
            press(app, UP, OK)  # stop: Battle Actions
        else:
            press(app, OK)
        phase = app.session.game.phase
        if top(app) == "BattleScreen" and app.toast is None and phase not in checked:
            app = _resumes_identically(app)  # carry on with the reset device
            checked[phase] = 1
    for phase in ("roll", "choose", "decide", "actions"):
        assert phase in checked, phase


def test_damage_in_an_older_segment_of_the_game_is_mended_with_a_notice():
    # A Free roll game that began in the segment before the last (recover() reads only the
    # last): a line of it damaged. The fold at start meets it: the segment is mended (a break
    # line for that event, the damaged bytes kept aside), a notice says so, the game resumes
    # with every other roll.
    from dicepod import journal

    storage = file_storage("older-damage")
    log = journal.Journal(storage, lambda: "00000000000000f3")
    log.recover()
    log.append(0, ("new_game", ("free",)))
    while len(storage.segments()) < 2 or log.seg_size < 500:
        log.append(10, ("roll", (log.seq % 6 + 1,)))
    older = storage.segments()[-2]
    rows = list(storage.lines(older))
    bad = len(rows) // 2
    line = rows[bad]
    rows[bad] = line[:-2] + (b"0" if line[-2:-1] != b"0" else b"1") + b"\n"  # its checksum
    storage.write(older, b"".join(rows))
    app = _app(storage)
    assert top(app) == "Message"
    lines = app.stack[-1].lines
    assert lines[:2] == ["Journal damaged:", "1 event(s) lost"], lines
    mended = list(storage.lines(older))
    seq = int(line.split(b" ")[0])
    assert mended[bad].startswith(b"! %d %d " % (seq, seq)) and len(mended) == len(rows)
    assert mended[:bad] + mended[bad + 1 :] == rows[:bad] + rows[bad + 1 :]
    assert b"".join(list(storage.lines("damaged"))) == rows[bad]
    press(app, OK)  # the notice closes on the game
    assert top(app) != "Message" and app.session.mode == "free"
    assert app.session.moves == log.seq - 2  # every roll but the damaged one
