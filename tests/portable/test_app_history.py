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


def test_the_game_stays_while_the_history_is_read():
    # The way back to the game is a frame, not a fold.
    app = App(Board(seed=4))
    app.start()
    menu(app, "free")
    press(app, OK, OK)
    game = app.session.game
    menu(app, "History")
    assert app.stack[-1].items == ["#1 Free roll"]
    assert app.session.game is game
    menu(app, "free")
    assert top(app) == "FreeRoll" and app.session.game.rolls == 2
    assert app.session.game is game


def _split_scan(storage):
    """The games as History.scan lists them, from each line split at its spaces (the oracle:
    no offsets, no finds): [id, mode, seg, offset, first ms, last ms, boots, boots, moves]."""
    games = []
    boots = 0
    last_ms = -1
    game = None
    before = None
    for seg in storage.segments()[-12:]:
        offset = 0
        first = True
        for line in storage.lines(seg):
            at = offset
            offset += len(line)
            if line[:1] in (b"@", b"!") or not line.endswith(b"\n"):
                continue
            seq, gid, ms, _prev, event = line.split(b" ", 4)
            if first:
                first = False
                if seq == before:
                    continue
            before = seq
            ms = int(ms)
            if ms < last_ms:
                boots += 1
            last_ms = ms
            if event.startswith(b'["new_game",["'):
                name = event[14:].split(b'"')[0].decode()
                game = [int(gid), name, seg, at, ms, ms, boots, boots, 0]
                games.append(game)
                continue
            if game is None:
                continue
            game[5] = ms
            game[7] = boots
            if event.startswith(b'["undo"'):
                game[8] -= 1
            elif not event.startswith(b'["set"'):
                game[8] += 1
    return games[-20:], boots


class _NoBuffer:
    """The board's storage where no segment fits History's buffer: each is read whole."""

    def __init__(self, storage):
        self.storage = storage

    def segments(self):
        return self.storage.segments()

    def lines(self, seg, start=0):
        return self.storage.lines(seg, start)

    def segment(self, seg):
        return self.storage.segment(seg)

    def read_into(self, seg, buf):
        return -1


class _NoRoom(_NoBuffer):
    """... nor the heap, in one piece: each is read a line at a time."""

    def segment(self, seg):
        raise MemoryError


def test_the_list_of_games_read_whole_or_line_by_line_is_the_split_lines():
    from dicepod.ui.history import scan

    board = Board(seed=11)
    app = App(board)
    app.start()
    free_session(app, runs=(10, 10))
    idle(app, 30, 20000)
    app = App(Board(storage=board.storage, seed=5))  # a restart: the clock starts again
    app.start()
    battle_session(app, games=3)
    free_session(app, runs=(100, 10))
    storage = app.session.journal.storage
    segs = storage.segments()
    assert len(segs) >= 2  # (games over more than one segment)
    # a failed write: the last line torn, and the segment's first line repeating the last
    # complete line of the one before it (the write landed, then was made again)
    storage.segs[segs[-1]].insert(1, storage.segs[segs[-2]][-1])  # (after its header)
    storage.segs[segs[-1]].append(b"99999 3 123")
    expected = _split_scan(storage)
    assert len(expected[0]) == 3 and expected[1] == 1, expected
    assert expected[0][0][1] == "free" and expected[0][0][8] > 0
    assert scan(app.session.journal) == expected
    journal = app.session.journal
    try:
        for kind in (_NoBuffer, _NoRoom):
            journal.storage = kind(storage)
            assert scan(journal) == expected, kind
    finally:
        journal.storage = storage


def test_a_press_while_a_page_is_built_stops_it_and_does_nothing_else():
    """A long game's page takes a while on a Pico, behind the Loading... band: a press the
    pins' IRQ latched meanwhile stops it, the list comes back, and that press is swallowed."""
    app = App(Board(seed=11))
    app.start()
    free_session(app, runs=(10, 10))
    menu(app, "History")
    keys = app.board.buttons
    keys.latched = lambda: BACK  # a finger's press, latched while the page is built
    press(app, OK)
    idle(app, 2)
    del keys.latched
    assert top(app) == "History"  # no page: the list again
    cursor = app.stack[-1].cursor
    press(app, DOWN)  # (the press that stopped the page: swallowed)
    assert top(app) == "History" and app.stack[-1].cursor == cursor
    press(app, OK)  # the next press acts: the page, built whole
    idle(app, 2)
    assert top(app) == "Page" and app.stack[-1].title == "#1 Free roll"
