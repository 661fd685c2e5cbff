"""The Battle Game's screens in words (issue 13, item 3): what a keep option keeps and re-rolls,
Stop one UP from the default keep, what BUST loses and who plays next, ALL OUT!'s extra turn
under a banner, the scoring rolls by their full names, the heroes without codes. The game is set
up with the same events a roll makes; every step a player takes is a press on the real buttons
driver. Portable."""

from app_board import DOWN, OK, UP, Board, menu, press, top

from dicepod.app import App


def _battle():
    app = App(Board(seed=3))
    app.start()
    menu(app, "battle")
    app.session.change_setting("battle.rows", 3)  # the printed board's rows, asked once (BG-13)
    app.session.change_setting("battle.table", 0)  # moves not refereed here
    return app


def test_a_keep_option_says_what_is_kept_and_what_is_re_rolled():
    app = _battle()
    app.session.play(("roll", (6, 3, 1, 5, 2, 2)))
    app.session.play(("set_aside", (6,)))  # a Lucky Six aside; 3 1 5 2 2 left
    screen = app.stack[-1]
    assert app.session.game.phase == "decide" and screen.cursor == 1
    lines = screen.lines
    # the dice row shows it too: the kept dice first (thick frames), the re-rolled ones after
    kept = [screen.faces[i] for i in range(len(screen.faces)) if screen.styles[i] == 1]
    rerolled = [screen.faces[i] for i in range(len(screen.faces)) if screen.styles[i] < 0]
    words = (" ".join(str(v) for v in kept), " ".join(str(v) for v in rerolled))
    said = "Keep %s, re-roll %s" % words
    if len(said) > 21:  # 21 columns of the 6x8 font
        said = "Keep %s, roll %s" % words
    assert lines[0] == said
    assert sorted(kept + rerolled) == [1, 2, 2, 3, 5] and kept and rerolled
    assert lines[1].startswith("Bust ") and lines[1].endswith("%, UP: stop")
    assert lines[2] == "Aside: Lucky Six"
    assert lines[3] == "P1 turn 1    0:0"
    press(app, DOWN)  # another keep: its exact fraction, no hint
    assert screen.cursor == 2 and " = " in screen.lines[1] and "/" in screen.lines[1]
    assert screen.lines[0].startswith("Keep ") or screen.lines[0].startswith("Re-roll ")


def test_stop_is_one_up_from_the_default_keep():
    app = _battle()
    app.session.play(("roll", (6, 3, 1, 5, 2, 2)))
    app.session.play(("set_aside", (6,)))
    press(app, UP)
    screen = app.stack[-1]
    assert screen.cursor == 0 and screen.lines[0] == "OK: stop and act"
    press(app, OK)
    game = app.session.game
    assert game.phase == "actions"
    assert screen.lines[:3] == ["P1 actions:", "Lucky Six", "OK: move heroes"]


def test_bust_says_what_is_lost_and_whose_turn_is_next():
    app = _battle()
    app.session.play(("roll", (6, 3, 4, 1, 1, 2)))
    app.session.play(("set_aside", (6,)))  # a Lucky Six aside
    app.session.play(("reroll", (0, 1, 1, 2, 2, 4)))  # the five dice left re-rolled: no score
    game = app.session.game
    screen = app.stack[-1]
    assert game.phase == "bust"
    assert screen.banner == "BUST!"
    assert screen.lines[2] == "Lost: Lucky Six"
    assert screen.lines[3] == "OK: P2's turn"
    press(app, OK)
    assert game.phase == "roll" and game.player == 1
    assert screen.banner is None and screen.lines[0] == "OK: Battle Roll"
    assert screen.lines[2] == "P1 bust, lost 1 roll"


def test_a_bust_on_the_first_roll_loses_nothing():
    app = _battle()
    app.session.play(("roll", (1, 1, 2, 2, 4, 4)))
    screen = app.stack[-1]
    assert app.session.game.phase == "bust"
    assert screen.lines[2:] == ["Nothing set aside", "OK: P2's turn"]


def test_all_out_extra_turn_has_a_banner():
    app = _battle()
    app.session.play(("roll", (1, 2, 3, 4, 5, 6)))
    app.session.play(("set_aside", (6, 0, 1, 2, 3, 4, 5)))
    screen = app.stack[-1]
    assert screen.banner == "ALL OUT!"
    assert screen.lines[2:] == ["OK: stop and act", "then extra turn"]
    press(app, OK)  # stop: the actions
    assert app.session.game.phase == "actions"
    assert screen.lines[1] == "Straight 1-2-3-4-5,"
    assert screen.lines[2] == "Lucky Six"
    assert screen.lines[3] == "OK: move heroes"
    press(app, OK)  # the heroes
    assert top(app) == "Heroes"
    heroes = app.stack[-1]
    assert heroes.title == "P1 0:0, 0 of 3 across" and heroes.items[0] == "P1 hero 1: 0"
    while heroes.cursor != len(heroes.items) - 1:
        press(app, DOWN)
    press(app, OK)  # End turn
    game = app.session.game
    assert top(app) == "BattleScreen" and game.phase == "roll" and game.player == 0
    assert screen.banner == "P1 AGAIN"
    assert screen.lines[2:] == ["Extra turn. OK: roll", "P1 turn 2    0:0"]
    press(app, OK)  # the extra turn's roll: no banner
    assert game.phase in ("choose", "bust") and screen.banner in (None, "BUST!")


def test_a_choice_is_named_in_full():
    app = _battle()
    app.session.play(("roll", (2, 3, 4, 1, 1, 1)))
    screen = app.stack[-1]
    joined = []
    for _ in range(len(screen.options)):
        words = (screen.lines[0] + " " + screen.lines[1]).split()
        joined.append(" ".join([w for w in words if "/" not in w]))  # not the index: 2/5
        press(app, DOWN)
    assert len(joined) == 5
    assert "Three 1s" in joined and "Straight 1-2-3" in joined and "Straight 2-3-4" in joined
    assert "Three 1s, Straight 2-3-4" in joined
    assert not any("-" in n and "Straight" not in n for n in joined)  # no '2-4' codes
