"""Gestures as fingers make them, through the real buttons driver on pins (app_board): on every
game screen a hold of OK opens the game's menu and a hold of BACK undoes, and neither does the
short action first or journals anything else; the hold takes effect while the finger is still
down (the screen shows it crossed the threshold). Portable (plain asserts)."""

from app_board import (
    BACK,
    DOWN,
    OK,
    UP,
    Board,
    answer,
    hold,
    hold_down,
    last,
    menu,
    press,
    release,
    top,
)
from app_sessions import journal_kinds

from dicepod.app import App

MODES = ("free", "battle", "tests", "tyranid", "orks")


def _app(seed=5):
    app = App(Board(seed=seed))
    app.start()
    return app


def _open(app, mode):
    menu(app, mode)
    answer(app)
    assert app.stack[-1].game_screen, (mode, top(app))


def test_hold_ok_opens_the_game_menu_and_journals_nothing():
    app = _app()
    for mode in MODES:
        _open(app, mode)
        screen = top(app)
        seq = app.session.journal.seq
        hold_down(app, OK, 640)  # past the 600 ms long-press time, finger still down
        assert top(app) == "GameMenu", (mode, top(app))  # shown at the threshold
        release(app, OK)
        assert top(app) == "GameMenu", mode  # the release does nothing more
        assert app.session.journal.seq == seq, (mode, journal_kinds(app)[-3:])  # no move made
        press(app, BACK)
        assert top(app) == screen, (mode, top(app))


def test_a_tap_of_ok_just_under_the_hold_time_is_the_short_action():
    app = _app()
    _open(app, "free")
    seq = app.session.journal.seq
    hold(app, OK, 500)
    assert top(app) == "FreeRoll"
    assert journal_kinds(app)[-1] == "roll" and app.session.journal.seq == seq + 1


def test_hold_back_undoes_one_move_on_every_game_screen():
    app = _app()
    for mode in MODES:
        _open(app, mode)
        screen = top(app)
        if mode == "tests":  # a target number first (the third action, its next entry)
            press(app, DOWN, DOWN, OK, DOWN, OK)
            while app.stack[-1].action != 0:
                press(app, UP)
        # one move: OK does the chosen action (a pick list it opens: its first entry; the
        # values it asks from the cards: answered, then OK again)
        guard = 0
        while app.session.moves == 0:
            press(app, OK)
            answer(app)
            while not app.stack[-1].game_screen:  # a list the action opened
                if top(app) == "Team":
                    last(app)  # Start, with the first Marines chosen
                press(app, OK)
                answer(app)
            guard += 1
            assert guard < 10, (mode, top(app))
        moves = app.session.moves
        assert moves > 0, (mode, top(app), journal_kinds(app)[-5:])
        seq = app.session.journal.seq
        kinds = journal_kinds(app)
        hold_down(app, BACK, 640)
        assert app.toast.startswith("Undone"), (mode, app.toast)  # shown while BACK is still held
        release(app, BACK)
        assert app.stack[-1].game_screen, (mode, top(app))  # still in the game, not the menu
        assert app.session.moves == moves - 1, mode
        assert app.session.journal.seq == seq + 1, mode  # the undo, nothing else
        assert journal_kinds(app) == kinds + ["undo"], mode
        del screen


def test_tap_back_leaves_the_game_and_up_down_act_on_press():
    app = _app()
    _open(app, "free")
    dice = app.session.game.settings.get("free.dice")
    hold_down(app, DOWN, 60)  # UP/DOWN act on the press, before the release
    assert app.session.game.settings.get("free.dice") == dice - 1
    release(app, DOWN)
    press(app, UP)
    assert app.session.game.settings.get("free.dice") == dice
    press(app, BACK)
    assert top(app) == "MainMenu"
    assert app.session.mode == "free"  # the game stays


def test_held_up_repeats_in_a_list():
    app = _app()
    menu(app, "Settings")
    screen = app.stack[-1]
    count = len(screen.items)
    hold_down(app, DOWN, 400 + 120)  # the press, then repeats at 400 and 520 ms
    release(app, DOWN)
    assert screen.cursor == 3 % count, screen.cursor


def test_outside_a_game_a_hold_is_a_slow_tap():
    """Menus, settings and editors give a hold no meaning of its own: a slow finger's hold acts
    as the tap would (once, at the threshold), and the release after it does nothing more."""
    app = _app()
    menu(app, "Settings")
    assert top(app) == "SettingsMenu"
    hold_down(app, BACK, 640)
    assert top(app) == "MainMenu"  # back while still held
    release(app, BACK)
    assert top(app) == "MainMenu" and len(app.stack) == 1
    screen = app.stack[0]
    while screen.items[screen.cursor] != "Settings":
        press(app, DOWN)
    hold_down(app, OK, 640)
    assert top(app) == "SettingsMenu"  # opened while still held
    release(app, OK)
    assert top(app) == "SettingsMenu"  # and the release opened nothing inside it
    hold(app, BACK)
    assert top(app) == "MainMenu"
    menu(app, "free")  # a new game: its first events
    seq = app.session.journal.seq
    hold(app, OK)
    assert top(app) == "GameMenu"  # in a game the hold keeps its own meaning
    hold(app, BACK)
    assert top(app) == "FreeRoll" and app.session.journal.seq == seq  # the menu: a slow tap
