"""Free roll for a class (issue 46) through the real app, every frame judged by the text-fit
judge (tests/textfit.py): counts readable to 99,999 and beyond, the dice count shown the moment
UP/DOWN changes it, percentages, Help page by page with its position, the class mode (the
display kept on, big counts, one menu choice away) and the loaded die (marked on the screen,
its weights in every journalled roll, caught by the fairness test, named by `dicepod verify`
and `dicepod stats`). CPython."""

import textfit
from app_board import BACK, DOWN, OK, UP, Board, hold, idle, menu, press

from dicepod.app import App
from dicepod.rules import free

MENU_ROWS = {"percent": 6, "class": 7, "loaded": 8}  # Free roll's own rows, Fairness test at 0


def _app(seed=46):
    board = Board(seed=seed)
    board.display = textfit.FitDisplay()
    app = App(board)
    board.display.where = lambda: type(app.stack[-1]).__name__ if app.stack else "?"
    app.start()
    menu(app, "free")
    return app


def _choose(app, row):
    hold(app, OK)
    press(app, *((DOWN,) * row))
    press(app, OK)


def _report(found):
    return "\n".join("%s: %s: %r" % item for item in found)


def _shown(app):
    return app.board.display.shown


def test_counts_fit_to_99999_and_beyond():
    app = _app()
    press(app, OK)
    game = app.session.game
    screen = app.stack[-1]
    # (counts of faces 1..6, the labels in the small font, in the big one)
    cases = [
        ((99999, 99998, 99997, 99996, 99995, 99994), None, None),
        (
            (100000, 99999, 123456, 9999, 1234567, 12),
            ["100k", "99999", "123k", "9999", "1234k", "12"],
            ["100k", "99k", "123k", "9999", "1M", "12"],
        ),
        ((7, 99999, 0, 99999, 1000, 99999), ["7", "99999", "0", "99999", "1000", "99999"], None),
    ]
    for big in (False, True):
        if big != bool(game.settings.get("free.class")):
            _choose(app, MENU_ROWS["class"])
        for counts, small_labels, big_labels in cases:
            game.counts = [0, *counts]
            game.dice = sum(counts)
            game.rolls = game.dice // 6
            for percent in (False, True):
                screen.percent = percent
                screen.dirty = True
                app.redraw()
                labels = small_labels if not big else big_labels
                strings = app.board.display.strings
                if percent:
                    shares = [(c * 200 + game.dice) // (2 * game.dice) for c in counts]
                    labels = ["%d%%" % p for p in shares]
                if labels:
                    assert [s for s in strings if s in labels] == labels, (big, percent, strings)
    found = app.board.display.found
    assert app.board.display.shows > 10
    assert not found, _report(found)


def test_up_down_shows_the_dice_count_at_once():
    app = _app()
    press(app, OK)
    assert len(app.session.game.last) == 6
    before = bytes(app.board.display.buffer)
    press(app, DOWN)  # five dice: shown at once, before any roll
    assert "Dice a roll: 5" in _shown(app)
    assert bytes(app.board.display.buffer) != before
    press(app, DOWN, DOWN, DOWN, DOWN)
    assert "Dice a roll: 1" in _shown(app)
    press(app, UP)
    assert "Dice a roll: 2" in _shown(app)
    press(app, OK)  # a roll of two: the count of rolls again
    assert len(app.session.game.last) == 2
    assert "Dice a roll: 2" not in _shown(app)
    assert not app.board.display.found, _report(app.board.display.found)


def test_help_page_by_page_with_its_position():
    app = _app()
    game_screen = app.stack[-1]
    hold(app, OK)
    screen = app.stack[-1]
    while screen.items[screen.cursor] != "Help":
        press(app, DOWN)
    press(app, OK)
    page = app.stack[-1]
    pages = page.pages
    assert pages >= 3 and pages == (len(page.lines) + 5) // 6
    seen = []
    for n in range(1, pages + 1):
        assert page.title == "Help %d/%d" % (n, pages)
        assert "Help %d/%d" % (n, pages) in _shown(app)
        seen.extend(page.lines[page.top : page.top + 6])
        if n < pages:
            press(app, DOWN)
    assert seen == page.lines  # every line once, a page at a time
    press(app, DOWN)  # the last page: no further
    assert page.title == "Help %d/%d" % (pages, pages)
    press(app, UP)
    assert page.title == "Help %d/%d" % (pages - 1, pages)
    press(app, DOWN, OK)  # OK on the last page closes it
    assert app.stack[-1] is screen
    press(app, BACK)
    assert app.stack[-1] is game_screen
    assert not app.board.display.found, _report(app.board.display.found)


def test_class_mode_is_one_choice_keeps_the_display_on_and_draws_big_counts():
    app = _app()
    press(app, OK)
    idle(app, 50)
    power = app.board.power
    quiet = power.active
    idle(app, 50)
    assert power.active == quiet  # no activity without a press
    seq = app.session.journal.seq
    _choose(app, MENU_ROWS["class"])
    assert app.session.game.settings.get("free.class") == 1
    assert app.session.journal.seq == seq + 1  # a journalled setting
    active = power.active
    idle(app, 50)
    assert power.active == active + 50  # every tick: the display stays on
    counts = app.session.game.counts[1:]
    display = app.board.display
    # Each face's number, then its count: in the 8x8 font, a text call each (the 6x8 font's
    # glyphs go one by one), so the count shows whole among the strings drawn at 8 pixels.
    pairs = []
    for face in range(1, 7):
        pairs += [str(face), str(counts[face - 1])]
    assert display.strings[-12:] == pairs
    big = bytes(display.buffer)
    _choose(app, MENU_ROWS["class"])
    assert app.session.game.settings.get("free.class") == 0
    assert bytes(display.buffer) != big  # the small font again
    active = power.active
    idle(app, 50)
    assert power.active == active
    assert not display.found, _report(display.found)


def test_the_loaded_die_is_marked_journalled_and_caught():
    app = _app()
    _choose(app, MENU_ROWS["loaded"])
    assert app.session.game.settings.get("free.loaded") == 6
    shown = _shown(app)
    assert "LOADED" in shown and "6 is x3" in shown and "Weights 1 1 1 1 1 3" in shown
    _choose(app, 3)  # Auto-roll 1000
    for _ in range(400):
        idle(app)
        if not app.stack[-1].left:
            break
    game = app.session.game
    assert game.rolls == 1000 and game.loaded_rolls == 1000
    assert all(e[1][:6] == (1, 1, 1, 1, 1, 3) for e in app_events(app) if e[0] == "loaded")
    assert "LOADED" in _shown(app)
    assert not free.passes(game.counts)  # the fairness test catches it
    assert "Not fair?" in free.verdict(game.counts)
    assert game.counts[6] > 2 * game.counts[1]
    # The fairness self-test rolls the loaded die too: it says so, journals the weights with
    # its counts, and finds the die unfair.
    _choose(app, 0)
    idle(app, 12)
    test = app.stack[-1]
    assert test.finished and "Fairness test: LOADED" in _shown(app)
    assert "Not fair?" in _shown(app)
    last = list(app.session.journal.game_events())[-1]
    assert last[0] == "selftest" and last[1][7:] == (1, 1, 1, 1, 1, 3)
    assert game.last_test[0] == 600 and game.last_test[6] > 150
    press(app, BACK, BACK)
    # Fair again: rolls are plain rolls.
    _choose(app, MENU_ROWS["loaded"])
    press(app, OK)
    assert game.loaded_rolls == 1000 and game.rolls == 1001
    assert "LOADED" not in _shown(app)
    assert not app.board.display.found, _report(app.board.display.found)


def test_a_loaded_roll_folds_with_its_weights_and_is_checked():
    game = free.Game()
    game.apply(("loaded", (1, 1, 1, 1, 1, 3, 6, 6, 2)))
    assert game.counts[6] == 2 and game.counts[2] == 1 and game.loaded_rolls == 1
    for bad in ((1, 1, 1, 1, 1, 3), (0, 1, 1, 1, 1, 3, 6), (1, 1, 1, 1, 1, 3, 7)):
        try:
            free.Game().apply(("loaded", bad))
        except ValueError:
            continue
        raise AssertionError(bad)
    # The command draws by the weights: face 6 three times as often, from the same randbelow.
    game.settings.set("free.loaded", 6)
    game.settings.set("free.dice", 6)
    draws = iter(range(8))
    event = free.roll(game, lambda n: next(draws) % n)
    assert event == ("loaded", (1, 1, 1, 1, 1, 3, 1, 2, 3, 4, 5, 6))
    draws = iter((6, 7, 5, 0, 6, 7))
    assert free.roll(game, lambda n: next(draws))[1][6:] == (6, 6, 6, 1, 6, 6)


def test_verify_and_stats_name_the_loaded_die(tmp_path, capsys):
    import loggen

    from dicepod import journal, protocol
    from dicepod_host import stats, verify
    from dicepod_host.cli import main

    app = _app(seed=7)
    _choose(app, MENU_ROWS["loaded"])
    for _ in range(20):
        press(app, OK)
    _choose(app, MENU_ROWS["loaded"])  # fair again
    press(app, OK)
    events = [("new_game", ("free",))]
    game = free.Game()
    for event in [e for e in app_events(app) if e[0] != "new_game"]:
        events.append(event)
        game.apply(event)
    loaded = [e for e in events if e[0] == "loaded"]
    assert len(loaded) == 20 and all(e[1][:6] == (1, 1, 1, 1, 1, 3) for e in loaded)
    assert [e for e in events if e[0] == "roll"] and game.loaded_rolls == 20
    j = journal.Journal(loggen.MemoryStorage())
    j.recover()
    lines = [protocol.event_line(loggen.DEV, j.append(10 * i, e)) for i, e in enumerate(events)]
    records = verify._load_jsonl(b"".join(lines).decode())
    report = verify.verify_records(records)
    assert report.ok, [str(p) for p in report.problems]
    named = [n for n in report.notes if "LOADED" in n]
    assert len(named) == 1 and "20 roll(s)" in named[0] and "weights 1 1 1 1 1 3" in named[0]
    collected = stats.collect(records).report()
    assert any("20 roll(s) of a LOADED die" in n for n in collected["notes"])
    fair_dice = sum(len(e[1]) for e in events if e[0] == "roll")
    assert collected["faces"]["dice"] == fair_dice  # the loaded dice left out
    # A loaded roll with a die out of range is named by verify.
    bad = events + [("loaded", (1, 1, 1, 1, 1, 3, 7))]
    j = journal.Journal(loggen.MemoryStorage())
    j.recover()
    lines = [protocol.event_line(loggen.DEV, j.append(10 * i, e)) for i, e in enumerate(bad)]
    report = verify.verify_records(verify._load_jsonl(b"".join(lines).decode()))
    assert not report.ok and "outside 1-6" in report.problems[0].message
    path = tmp_path / "loaded.jsonl"
    path.write_bytes(b"".join(lines[: len(events)]))
    assert main(["verify", str(path)]) == 0
    assert "note: device" in capsys.readouterr().out


def app_events(app):
    """The events of the app's current game, from its journal (undo applied)."""
    return list(app.session.journal.game_events())
