"""Every screen of every scripted session (the ones the screenshots and the heap test play) is
rendered and judged as it is drawn (tests/textfit.py): no text past the screen's edge, none
drawn over other text or under a shape drawn after it. CPython."""

import pytest
import textfit
from app_board import OK, Board, LineStorage, press

from dicepod.app import App

SESSIONS = ("free", "tests", "battle", "tyranid", "orks", "extras")


def _app(seed=11, storage=None):
    board = Board(seed=seed, storage=storage)
    board.display = textfit.FitDisplay()
    app = App(board)
    board.display.where = lambda: type(app.stack[-1]).__name__ if app.stack else "?"
    return app


def _report(found):
    return "\n".join("%s: %s: %r" % item for item in found)


@pytest.mark.parametrize("name", SESSIONS)
def test_every_screen_of_the_session_fits(name):
    import app_sessions

    app = _app()
    app.start()
    getattr(app_sessions, name + "_session")(app)
    found = app.board.display.found
    assert app.board.display.shows > 20
    assert not found, _report(found)


def test_every_setting_of_every_group_fits():
    from app_board import BACK, DOWN, menu

    app = _app()
    app.start()
    menu(app, "Settings")
    groups = len(app.stack[-1].items)
    for group in range(groups):
        while app.stack[-1].cursor != group:
            press(app, DOWN)
        press(app, OK)
        screen = app.stack[-1]
        for row in range(len(screen.items)):
            if row >= len(screen.module.SETTINGS):  # the device's flash row: it only informs
                assert screen.items[row][0] in app.board.display.shown
                press(app, DOWN)
                continue
            label = screen.module.SETTINGS[row][4]
            assert label in app.board.display.shown, (label, app.board.display.shown)  # whole
            press(app, OK)  # its editor: the whole label, the value, the range
            assert label in app.board.display.shown, (label, app.board.display.shown)
            editor = app.stack[-1]
            for value in (editor.low, editor.high):  # the field's narrowest and widest
                editor.value = value
                editor.update()
                app.tick(20)
            press(app, BACK)
            press(app, DOWN)
        assert screen.cursor == 0  # round the list once
        press(app, BACK)
    found = app.board.display.found
    assert app.board.display.shows > 100
    assert not found, _report(found)


def test_every_help_page_fits_and_closes_back_to_the_game():
    from app_board import BACK, DOWN, answer, hold, menu

    from dicepod.ui import help as help_module

    app = _app()
    app.start()
    for mode in ("free", "battle", "tests", "tyranid", "orks"):
        menu(app, mode)
        answer(app)
        game = app.stack[-1]
        assert game.game_screen, mode
        hold(app, OK)  # the game's menu
        screen = app.stack[-1]
        while screen.items[screen.cursor] != "Help":
            press(app, DOWN)
        seq = app.session.journal.seq
        press(app, OK)
        page = app.stack[-1]
        assert type(page).__name__ == "Help" and page.title == "Help 1/%d" % page.pages, mode
        words = help_module.text(mode)
        assert words.startswith(dict(help_module.TEXTS)[mode]) and "Hold BACK" in words
        shown = []
        for _ in range(page.pages):
            shown.append(app.board.display.shown)
            press(app, DOWN)  # every page shown, then no further
        assert page.top == (page.pages - 1) * 6, (mode, page.top)
        assert " ".join(page.lines) == words  # the whole text, wrapped, nothing cut
        assert page.lines[-1] in shown[-1]
        press(app, BACK)  # closes the page: the menu again
        assert app.stack[-1] is screen
        press(app, BACK)
        assert app.stack[-1] is game and app.session.journal.seq == seq  # nothing journalled
    found = app.board.display.found
    assert not found, _report(found)


def test_the_screens_no_session_reaches_fit():
    app = _app(seed=1)
    app.start()
    press(app, OK)  # Battle Game
    app.session.play(("roll", (1, 2, 3, 4, 5, 6)))
    app.session.play(("set_aside", (6, 0, 1, 2, 3, 4, 5)))  # ALL OUT!
    app.redraw()
    app.session.change_setting("battle.rows", 3)
    app.session.change_setting("battle.buys_lucky", 1)
    app.session.change_setting("battle.buys_straight", 2)
    app.session.play(("actions", ()))
    app.session.play(("end_turn", ()))  # its extra turn: P1 AGAIN
    app.redraw()
    assert app.stack[-1].banner == "P1 AGAIN"
    app = _app(storage=LineStorage(settings=b'{"battle.rows": 3, "free.di'))
    app.start()  # corrupt settings: the message
    found = app.board.display.found
    assert not found, _report(found)


def test_every_history_page_fits():
    """The past games of every mode, each page scrolled to its end (issue 13, item 4)."""
    import app_sessions
    from app_board import BACK, DOWN, menu

    app = _app()
    app.start()
    for name in SESSIONS[:-1]:
        getattr(app_sessions, name + "_session")(app)
    menu(app, "History")
    listed = app.stack[-1]
    assert len(listed.items) == 5
    for _ in listed.items:
        press(app, OK)
        page = app.stack[-1]
        for _ in page.lines:
            press(app, DOWN)
        assert page.top == len(page.lines) - 6
        press(app, BACK, DOWN)
    found = app.board.display.found
    assert not found, _report(found)


def test_the_judge_sees_text_past_the_edge_and_drawn_over():
    display = textfit.FitDisplay()
    display.fill(0)
    display.text("sixteen chars ok", 0, 0, 1)
    display.text("seventeen chars!!", 0, 10, 1)  # the last "!" past the edge
    display.text("a toast", 0, 54, 1)
    display.fill_rect(0, 57, 128, 4, 0)  # half the line erased: drawn over
    display.text("gone", 0, 44, 1)
    display.fill_rect(0, 43, 128, 10, 0)  # a line erased whole: hidden, no problem
    display.text("x", 60, 20, 1)
    display.text("y", 63, 22, 1)  # overlaps the x
    from dicepod.ui import draw

    draw.small(display, "twenty-one characters", 0, 30)  # 21 x 6 = 126: fits
    draw.small(display, "twenty-two characters!", 0, 40)
    display.show()
    problems = [(p, t) for _w, p, t in display.found]
    assert ("past the edge", "seventeen chars!!") in problems
    assert ("drawn over", "a toast") in problems
    assert ("overlap", "x / y") in problems
    assert ("past the edge", "!") in problems  # the 22nd character of the 6x8 line
    assert len(problems) == 4, problems
