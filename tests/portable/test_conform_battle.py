"""The Battle Game against its rules, one case per rule id of docs/RULES.md (BG-n): each plays
the rule through dicepod.rules.battle, and the ones a player meets on the screen through the app
with button presses. Portable: CPython (pytest) and real MicroPython."""

from app_board import DOWN, OK, UP, Board, menu, press, top
from checks import raises

from dicepod.rules import battle, odds
from dicepod.settings import MissingValue

ROWS = {battle.ROWS: 3, "battle.table": 0}  # the printed board (asked: BG-13); no table


def _missing(function, *args):
    try:
        function(*args)
    except MissingValue as exc:
        return exc.args[0]
    return None


def test_BG_9_kept_dice_alone_can_score_by_default():
    game = battle.Game(ROWS)
    assert game.settings.get(battle.KEPT_CAN_SCORE) == 1
    game.apply(("roll", (6, 6, 2, 2, 4, 5)))
    game.apply(battle.set_aside(((6,),)))
    game.apply(("reroll", (1, 6, 1, 1, 3, 5)))  # the other 6 kept; 1 1 3 5 re-rolled
    assert game.phase == battle.CHOOSE and game.choices() == [((6,),)]  # the kept 6 scores
    game.apply(battle.set_aside(((6,),)))
    assert odds.bust(1, (6,), game.settings.get(battle.KEPT_CAN_SCORE)) == (0, 1)
    strict = battle.Game({battle.ROWS: 3, battle.KEPT_CAN_SCORE: 0})  # the setting's "no"
    strict.apply(("roll", (6, 6, 2, 2, 4, 5)))
    strict.apply(battle.set_aside(((6,),)))
    strict.apply(("reroll", (1, 6, 1, 1, 3, 5)))
    assert strict.phase == battle.BUST


def test_BG_13_rows_per_half_is_asked_never_invented():
    game = battle.Game({"battle.table": 0})
    assert game.settings.values[battle.ROWS] is None
    game.apply(("roll", (6, 1, 1, 2, 4, 4)))
    game.apply(battle.set_aside(((6,),)))
    game.apply(battle.actions())
    assert _missing(game.apply, battle.advance(0, 0)) == battle.ROWS
    assert _missing(game.apply, battle.end_turn()) == battle.ROWS
    game.apply(("set", (battle.ROWS, 4)))
    game.apply(battle.advance(0, 0, 7))  # 4 rows a half: the far edge is 7 spaces on
    assert raises(game.apply, battle.advance(0, 1, 8))


def _app(table=0):
    from dicepod.app import App

    app = App(Board(seed=2))
    app.start()
    if table is not None:
        app.session.change_setting("battle.table", table)
    menu(app, "battle")
    return app


def test_BG_13_on_the_screen_the_device_asks_for_the_rows():
    app = _app()
    press(app, OK)  # the first Battle Roll needs the board
    assert top(app) == "AskValue" and app.stack[-1].key == battle.ROWS
    assert app.session.game.phase == battle.ROLL  # nothing rolled yet
    press(app, UP, UP, OK)  # 3, from the players' board
    assert app.session.values[battle.ROWS] == 3 and app.session.game.rows() == 3
    # answered, the roll that asked is made at once (questions once, issue 13)
    assert top(app) == "BattleScreen"
    assert app.session.game.phase in (battle.CHOOSE, battle.BUST)


def _turn(app, moves=()):
    """A whole turn by events: a Lucky Six, then the moves, then end turn."""
    app.session.play(("roll", (6, 1, 1, 2, 4, 4)))
    app.session.play(battle.set_aside(((6,),)))
    app.session.play(battle.actions())
    for move in moves:
        app.session.play(move)


def test_BG_12_the_player_pushes_an_enemy_hero_back_before_the_win_check():
    app = _app()
    app.session.change_setting(battle.ROWS, 2)
    _turn(app)
    app.session.play(battle.end_turn())
    _turn(app, (battle.advance(1, 0, 3), battle.advance(1, 1, 3)))  # P2: score 6
    app.session.play(battle.end_turn())
    # P1: three heroes across, score 6: not higher than P2's 6, yet
    _turn(app, (battle.advance(0, 0, 2), battle.advance(0, 1, 2), battle.advance(0, 2, 2)))
    press(app, OK)  # the heroes
    screen = app.stack[-1]
    assert top(app) == "Heroes" and len(screen.items) == 11
    assert screen.items[5] == "P2 hero 1: 3 across" and screen.items[10] == "End turn"
    for _ in range(5):
        press(app, DOWN)
    press(app, OK)  # P2's first hero
    press(app, DOWN)  # pushed back one space
    assert app.session.game.heroes[1] == [2, 3, 0, 0, 0] and app.session.game.score(1) == 5
    press(app, OK)  # done: back at the list
    for _ in range(5):
        press(app, DOWN)
    press(app, OK)  # End turn: the win check sees 6 against 5
    assert app.session.game.phase == battle.OVER and app.session.game.winner == 0


def test_BG_2_the_first_player_of_the_next_game_is_asked():
    app = _app()
    app.session.change_setting(battle.ROWS, 1)
    _turn(app, (battle.advance(0, 0), battle.advance(0, 1), battle.advance(0, 2)))
    app.session.play(battle.end_turn())
    assert app.session.game.phase == battle.OVER and app.session.game.winner == 0
    press(app, OK)  # next game: who finished setting up first?
    assert top(app) == "Pick" and app.stack[-1].items == ["P1 set up first", "P2 set up first"]
    press(app, OK)  # P1 again (the winner: not "the loser starts")
    assert app.session.game.game_number == 2 and app.session.game.player == 0
    app.session.play(("roll", (6, 1, 1, 2, 4, 4)))
    app.session.play(battle.set_aside(((6,),)))
    app.session.play(battle.actions())
    for hero in range(3):
        app.session.play(battle.advance(0, hero))
    app.session.play(battle.end_turn())
    press(app, OK)
    press(app, DOWN, OK)  # game 3: P2 finished first this time
    assert app.session.game.game_number == 3 and app.session.game.player == 1


def test_BG_11_the_actions_table_is_on_and_filled_by_the_players():
    game = battle.Game({battle.ROWS: 3})
    assert battle.Game().settings.values["battle.table"] == 1  # refereed by default
    game.apply(("roll", (6, 1, 2, 3, 4, 4)))
    game.apply(battle.set_aside(((6,), (1, 2, 3))))
    assert _missing(game.apply, battle.actions()) == "battle.buys_lucky"  # never made up
    assert game.phase == battle.DECIDE  # nothing changed
    game.apply(("set", ("battle.buys_lucky", 1)))
    game.apply(("set", ("battle.buys_straight", 2)))
    game.apply(battle.actions())
    assert battle.bought(game) == 3 and game.actions_left == 3
    assert raises(game.apply, battle.advance(0, 0, 4))  # one space an action
    game.apply(battle.advance(0, 0, 2))
    assert game.actions_left == 1 and raises(game.apply, battle.advance(0, 1, 2))
    off = battle.Game({battle.ROWS: 3, "battle.table": 0})
    off.apply(("roll", (6, 1, 2, 3, 4, 4)))
    off.apply(battle.set_aside(((6,),)))
    off.apply(battle.actions())
    assert battle.bought(off) is None and off.actions_left is None  # the table off: free


def test_BG_11_one_lucky_six_cannot_win_in_one_turn():
    app = _app(table=None)  # the device as it comes: refereed
    app.session.change_setting(battle.ROWS, 3)
    app.session.change_setting("battle.buys_lucky", 1)  # the players' value
    app.session.play(("roll", (6, 1, 1, 2, 4, 4)))
    app.session.play(battle.set_aside(((6,),)))
    press(app, UP, OK)  # stop: the Battle Actions
    screen = app.stack[-1]
    assert app.session.game.phase == battle.ACTIONS and app.session.game.actions_left == 1
    assert screen.lines[0] == "P1 1 actions:"
    press(app, OK)  # the heroes
    assert top(app) == "Heroes"
    press(app, OK, UP)  # P1's first hero: one space on
    press(app, UP)  # a second space: refused, the action is spent
    assert app.session.game.heroes[0] == [1, 0, 0, 0, 0]
    assert raises(app.session.play, battle.advance(0, 1, 1))


def test_BG_12_the_enemys_heroes_are_pushed_back_never_advanced():
    game = battle.Game(ROWS)
    game.apply(("roll", (6, 1, 2, 3, 4, 4)))
    game.apply(battle.set_aside(((6,),)))
    game.apply(battle.actions())
    assert raises(game.apply, battle.advance(1, 0, 2))  # P1 cannot move P2's hero forward
    game.apply(battle.advance(0, 0, 2))
    assert game.heroes == [[2, 0, 0, 0, 0], [0, 0, 0, 0, 0]]


def test_BG_11_on_the_screen_the_actions_show_what_the_rolls_buy():
    app = _app(table=None)
    app.session.change_setting("battle.table", 1)
    app.session.change_setting("battle.buys_lucky", 2)
    _turn(app)
    assert app.stack[-1].lines[0] == "P1 2 actions:"
