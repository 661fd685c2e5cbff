"""One truth for a setting (issue 43, point 3): a value the game refuses is not saved; an undo
says what it undid, and after it the game, the settings and the file agree, also after a
restart. Through the buttons of the real app. Portable: CPython (pytest) and real MicroPython."""

from app_board import BACK, DOWN, OK, Board, LineStorage, hold, menu, press, top

from dicepod.rules import battle


def _battle(storage):
    from dicepod.app import App

    app = App(Board(storage=storage, seed=6))
    app.start()
    app.session.change_setting(battle.ROWS, 3)
    app.session.change_setting("battle.table", 0)
    menu(app, "battle")
    return app


def _restarted(storage):
    from dicepod.app import App

    app = App(Board(storage=storage, seed=6))
    app.start()
    return app


def test_a_refused_value_is_not_saved():
    storage = LineStorage()
    app = _battle(storage)
    for event in (("roll", (6, 1, 1, 2, 4, 4)), battle.set_aside(((6,),)), battle.actions()):
        app.session.play(event)
    app.session.play(battle.advance(0, 0, 5))  # 3 rows a half: the far edge
    from dicepod.ui.ask import EditValue

    app.transition(EditValue(app, battle.ROWS, "Rows per half"))
    press(app, DOWN, OK)  # 2 rows: a hero stands beyond them, the game refuses
    assert top(app) == "EditValue" and "beyond" in app.toast
    assert app.session.values[battle.ROWS] == 3 and app.session.game.rows() == 3
    assert _restarted(storage).session.values[battle.ROWS] == 3  # the file kept 3 too


def test_an_undone_setting_is_undone_everywhere_and_named():
    storage = LineStorage()
    app = _battle(storage)
    press(app, OK)  # a Battle Roll
    rolled = app.session.game.phase
    assert rolled != battle.ROLL
    app.session.change_setting(battle.TWO_SIXES, 2)  # from the settings, mid-turn
    hold(app, BACK)  # undo
    assert app.toast == "Undone: Two 6s as"  # what it undid
    game = app.session.game
    assert game.phase == rolled  # the roll stands
    assert app.session.values[battle.TWO_SIXES] == 0 == game.settings.get(battle.TWO_SIXES)
    again = _restarted(storage)
    assert again.session.values[battle.TWO_SIXES] == 0  # the file agrees
    assert again.session.game.settings.get(battle.TWO_SIXES) == 0
    hold(app, BACK)  # the roll itself: named
    assert app.toast == "Undone: roll" and app.session.game.phase == battle.ROLL
