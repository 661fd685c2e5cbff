"""A question resumes the move that asked it, by what it was (issue 43, point 1): the action and
its arguments, never a button sent again to a screen whose cursor has moved. Through the
buttons of the real app. Portable: CPython (pytest) and real MicroPython."""

from app_board import DOWN, OK, UP, Board, menu, press, top

from dicepod.rules import battle
from dicepod.rules import orks as ok


def _app(values, mode):
    from dicepod.app import App

    app = App(Board(seed=5))
    app.start()
    for key in values:
        app.session.change_setting(key, values[key])
    menu(app, mode)
    return app


def _answer_all(app, ups=2):
    """Answer every question from the card: UP `ups` times from the lowest value, OK."""
    asked = []
    while top(app) == "AskValue":
        asked.append(app.stack[-1].key)
        press(app, *((UP,) * ups + (OK,)))
    return asked


def test_orks_warrior_asked_for_its_card_starts_a_warrior_game():
    values = {"orks.command_magmus": 7, "orks.command_stormheart": 5}
    values["orks.command_lucian"] = 8
    values["orks.command_etrus"] = 6
    for name in ("magmus", "stormheart", "lucian", "etrus"):
        values["orks.actions_" + name] = 1
    app = _app(values, "orks")  # the Warrior card's values are not entered yet
    press(app, DOWN, OK)  # Warrior
    asked = _answer_all(app)
    assert len(asked) == 11 and "orks.warrior_boy" in asked  # the card, a value a question
    game = app.session.game
    assert top(app) == "OrksScreen" and game.phase == ok.WAVE
    assert game.difficulty == ok.WARRIOR  # not the Novice under the cursor after each answer
    assert game.wave_left == app.session.setting("orks.warrior_wave")


def test_battle_stop_asked_for_the_table_goes_on_to_the_actions():
    app = _app({battle.ROWS: 3}, "battle")
    app.session.play(("roll", (6, 1, 1, 2, 4, 4)))
    app.session.play(battle.set_aside(((6,),)))
    press(app, UP, OK)  # stop: the Battle Actions, whose table is not filled in
    assert top(app) == "AskValue" and app.stack[-1].key == "battle.buys_lucky"
    press(app, UP, OK)  # a Lucky Six buys 1
    game = app.session.game
    assert top(app) == "BattleScreen" and game.phase == battle.ACTIONS  # not a re-roll or bust
    assert game.actions_left == 1 and game.aside == [(6,)]
    assert app.session.last_event == ("actions", ())
