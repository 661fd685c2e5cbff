"""History people can read (issue 13, item 4): from the main menu the past games, newest first
(number and mode), OK on one: its page in words (when, how long, players, result, then its
moves, undone ones gone); from a game's menu the current game the same way. Every step is a
press on the real buttons driver; the expected words come from the journal and the live game,
not from the history code. Portable."""

from app_board import BACK, DOWN, OK, Board, hold, idle, menu, press, top
from app_sessions import battle_session, free_session

from dicepod.app import App


def _page_text(app):
    """The page's wrapped lines joined back (a move may be wrapped over two lines)."""
    return " ".join(app.stack[-1].lines)


def _rolls(app):
    """The dice of the current game's effective rolls, from the journal."""
    return [e[1] for e in app.session.journal.game_events() if e[0] == "roll"]


def test_past_games_newest_first_each_in_words():
    app = App(Board(seed=11))
    app.start()
    free_session(app, runs=(10, 10))  # (short runs: the page keeps a game's newest 60 moves)
    free_rolls = _rolls(app)
    battle_session(app, games=2)
    game = app.session.game
    results = list(game.results)
    newest = _rolls(app)[-1]  # (a page keeps the newest 60 moves: the first may be gone)
    assert len(results) == 1  # the session undid the second game's winning end_turn
    menu(app, "History")
    screen = app.stack[-1]
    assert top(app) == "History" and screen.items == ["#2 Battle Game", "#1 Free roll"]
    press(app, OK)
    assert top(app) == "Page" and app.stack[-1].title == "#2 Battle Game"
    text = _page_text(app)
    assert text.startswith("Played just now, ")
    assert "Players P1 and P2." in text
    for i, (a, b) in enumerate(results):
        assert "Game %d: %d:%d." % (i + 1, a, b) in text
    assert " rolled %s" % " ".join(map(str, newest)) in text
    assert "set aside" in text and "ended the turn" in text
    assert "P1 wins %d:%d" % results[0] in text or "P2 wins %d:%d" % results[0] in text
    # it scrolls to its end, then closes back to the list
    page = app.stack[-1]
    for _ in range(len(page.lines)):
        press(app, DOWN)
    assert page.top == len(page.lines) - 6
    press(app, BACK)
    assert top(app) == "History"
    press(app, DOWN, OK)  # the free roll
    text = _page_text(app)
    assert app.stack[-1].title == "#1 Free roll"
    assert "Any number of players." in text
    rolled = ["Rolled " + " ".join(map(str, dice)) for dice in free_rolls]
    assert rolled and all(r in text for r in rolled)
    assert text.count("Rolled ") == len(free_rolls)  # the undone roll is gone


def test_the_current_game_from_its_menu_and_a_restart():
    board = Board(seed=4)
    app = App(board)
    app.start()
    menu(app, "free")
    press(app, OK, OK, OK)
    hold(app, BACK)  # undo the third roll
    rolls = _rolls(app)
    assert len(rolls) == 2
    hold(app, OK)  # the game's menu
    while app.stack[-1].items[app.stack[-1].cursor] != "History":
        press(app, DOWN)
    press(app, OK)
    page = app.stack[-1]
    assert top(app) == "Page" and page.title == "#1 Free roll"
    text = _page_text(app)
    assert text.startswith("2 moves so far.")
    assert text.count("Rolled ") == 2
    for dice in rolls:
        assert "Rolled " + " ".join(map(str, dice)) in text
    press(app, OK)
    assert top(app) == "GameMenu"
    # ten minutes later the device restarts: the game was played before the restart
    idle(app, 30, 20000)
    app = App(Board(storage=board.storage, seed=5))
    app.start()
    menu(app, "History")
    assert app.stack[-1].items == ["#1 Free roll"]
    press(app, OK)
    assert _page_text(app).startswith("Played before a restart, 2 moves.")


def test_a_roomy_heap_keeps_the_game_while_the_history_is_read():
    # On a small heap the History drops the game in progress and its code (folded again on
    # the way back); on a roomy one (the session keeps a spare copy, back) they stay, and the
    # way back to the game is a frame, not a fold. The same list either way.
    for spare in (False, True):
        app = App(Board(seed=4))
        app.start()
        app.session.back = None if spare else False
        menu(app, "free")
        press(app, OK, OK)
        game = app.session.game
        menu(app, "History")
        assert app.stack[-1].items == ["#1 Free roll"]
        assert (app.session.game is game) == spare
        menu(app, "free")
        assert top(app) == "FreeRoll" and app.session.game.rolls == 2
        assert (app.session.game is game) == spare
