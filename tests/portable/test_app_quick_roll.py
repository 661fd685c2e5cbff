"""A quick roll during a game (issue 43, point 9): from the game's menu, journalled, and the
game goes on where it was, also after an undo and a restart. Through the buttons of the real
app. Portable: CPython (pytest) and real MicroPython."""

from app_board import BACK, DOWN, OK, Board, LineStorage, hold, menu, press, top

from dicepod.rules import battle


def journal_kinds(app):
    """The kinds of the journal's events, in order."""
    from dicepod import journalfix

    return [entry[3][0] for _o, entry, _b in journalfix.read_entries(app.session.journal)]


def _menu_entry(app, label):
    hold(app, OK)  # the game's menu
    assert top(app) == "GameMenu"
    screen = app.stack[-1]
    while screen.items[screen.cursor] != label:
        press(app, DOWN)
    press(app, OK)


def test_a_quick_roll_off_leaves_the_battle_where_it_was():
    from dicepod.app import App

    storage = LineStorage()
    app = App(Board(storage=storage, seed=8))
    app.start()
    app.session.change_setting(battle.ROWS, 3)
    menu(app, "battle")
    press(app, OK)  # a Battle Roll
    game = app.session.game
    phase, dice, moves = game.phase, game.dice, app.session.moves
    _menu_entry(app, "Quick roll")
    assert top(app) == "Pick" and app.stack[-1].items[-1] == "Roll-off 2D6"
    screen = app.stack[-1]
    while screen.items[screen.cursor] != "Roll-off 2D6":
        press(app, DOWN)
    press(app, OK)
    assert top(app) == "Message" and app.stack[-1].title == "Quick roll"
    assert journal_kinds(app)[-1] == "quick"  # journalled
    lines = app.stack[-1].lines
    assert lines[-1] in ("P1 wins", "P2 wins")  # 2D6 each, ties thrown again
    press(app, OK)  # closed: the game, as it was
    assert top(app) == "BattleScreen" and len(app.stack) == 2
    game = app.session.game
    assert (game.phase, game.dice, app.session.moves) == (phase, dice, moves)
    hold(app, BACK)  # undo: the Battle Roll, not the quick roll
    assert app.session.game.phase == battle.ROLL
    import gc

    app = None
    gc.collect()  # one app at a time on a Pico-sized heap: a restart
    again = App(Board(storage=storage, seed=8))
    again.start()  # the journal holds the quick roll: the fold steps over it
    assert again.session.game.phase == battle.ROLL and top(again) == "BattleScreen"


def test_quick_dice_are_journalled():
    from dicepod.app import App

    app = App(Board(seed=9))
    app.start()
    menu(app, "tests")
    _menu_entry(app, "Quick roll")
    press(app, DOWN, DOWN, OK)  # 3 dice
    lines = app.stack[-1].lines
    faces = [int(f) for f in lines[0].split()]
    assert len(faces) == 3 and lines[1] == "Total %d" % sum(faces)
    assert journal_kinds(app)[-1] == "quick" and app.session.last_kind != "quick"
    press(app, BACK)
    assert top(app) == "TestsScreen"
