"""The Tests mode against its rules, one case per rule id of docs/RULES.md (TS-n): each plays
the rule through dicepod.rules.tn, and the ones a player meets on the screen through the app
with button presses. Portable: CPython (pytest) and real MicroPython."""

from app_board import DOWN, OK, UP, Board, menu, press, top
from seeded import scripted

from dicepod.rules import tn


def _app(faces):
    """The Tests screen on a board whose dice come up as faces (in order)."""
    from dicepod.app import App

    app = App(Board(randbelow=scripted([face - 1 for face in faces])))
    app.start()
    menu(app, "tests")
    return app


def _action(app, action):
    """Move the bottom line to an action (0 roll, 1 dice, 2 TN, 3 modifier) and press OK."""
    screen = app.stack[-1]
    while screen.action != action:
        press(app, DOWN)
    press(app, OK)


def _modifier(app, source, value):
    """Modifier -> pick the source by its label -> the value (the list starts at +1)."""
    _action(app, 3)
    items = app.stack[-1].items
    for _ in range(items.index(source)):
        press(app, DOWN)
    press(app, OK)
    assert top(app) == "_ModValue"
    step = UP if value < 1 else DOWN
    for _ in range(abs(value - 1)):
        press(app, step)
    press(app, OK)


def _four_plus_and_four_dice(app):
    _action(app, 2)  # TN: the list opens at 4+
    press(app, OK)
    _action(app, 1)  # dice: 1..20
    press(app, DOWN, DOWN, DOWN, OK)


def test_TS_7_the_rulebooks_example_on_the_screen():
    """+1 from one ability and -1 from another: a 4+ hit stays 4+, and 4 6 1 3 give two."""
    app = _app((4, 6, 1, 3))
    _four_plus_and_four_dice(app)
    _modifier(app, "ability1", 1)
    _modifier(app, "ability2", -1)
    game = app.session.game
    assert game.mod_names == ["ability1", "ability2"] and game.mod_values == [1, -1]
    assert game.tn_final == 4 and app.stack[-1].title == "TN 4+"
    _action(app, 0)  # Roll 4 dice
    assert list(game.dice[:4]) == [4, 6, 1, 3]
    assert game.successes == 2 and app.stack[-1].lines[0] == "2 of 4 hit"


def test_TS_3_sources_add_and_one_name_counts_once():
    game = tn.Game()
    game.apply(("tn", (4,)))
    game.apply(("mod", ("ability1", 1)))
    game.apply(("mod", ("item1", 1)))
    assert game.tn_final == 2
    game.apply(("mod", ("item1", -2)))  # the same item again: its value now, not both
    assert game.modifier == -1 and game.tn_final == 5


def test_TS_6_a_modifier_changed_after_the_roll_counts_for_the_next_roll():
    game = tn.Game()
    game.apply(("tn", (4,)))
    game.apply(("roll", (4, 6, 1, 3)))
    assert game.successes == 2
    game.apply(("mod", ("ability1", 2)))  # now 2+: for the next roll only
    assert game.tn_final == 2 and game.roll_tn == 4 and game.successes == 2
    game.apply(("reroll", (3, 3)))  # the re-rolled die belongs to the same roll: 4+
    assert game.successes == 2
    game.apply(("roll", (4, 6, 1, 3)))
    assert game.roll_tn == 2 and game.successes == 3


def test_TS_6_on_the_screen_the_dice_rolled_stay_judged():
    app = _app((4, 6, 1, 3))
    _four_plus_and_four_dice(app)
    _action(app, 0)
    assert app.stack[-1].lines[0] == "2 of 4 hit"
    _modifier(app, "cover", 2)
    screen = app.stack[-1]
    assert screen.title == "TN 4+ +2 =2+"  # the next roll's TN
    assert screen.lines[0] == "2/4 hit at 4+" and app.session.game.successes == 2  # the dice's
