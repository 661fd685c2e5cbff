"""Tyranid Attack! against its rules, one case per rule id of docs/RULES.md (TY-n, DK-n): each
plays the rule through dicepod.rules.tyranid, and where a player meets it on the screen, through
the app with button presses. Portable: CPython (pytest) and real MicroPython."""

from app_board import DOWN, OK, UP, Board, act, first, menu, press, top
from checks import raises

from dicepod.rules import tyranid as ty
from dicepod.settings import Settings

# The players' own cards (test values: the rulebook does not print them).
CARDS = {
    "tyranid.actions_adrix": 3,
    "tyranid.actions_lukas": 3,
    "tyranid.wounded_maximus": 2,
    "tyranid.wounded_adrix": 2,
    "tyranid.wounded_raphael": 2,
    "tyranid.wounded_lukas": 2,
    "tyranid.wounded_vorne": 2,
    "tyranid.res_genestealer": 4,
    "tyranid.res_lictor": 5,
    "tyranid.res_prime": 5,
}
TEAM = (0, 1, 2, 3)  # Maximus, Adrix, Raphael, Lukas; Vorne is the unused fifth
T = ty.TYRANID_CARD
# A round whose last card is Maximus's (top first)
LAST_IS_MAXIMUS = (T, 1, 1, 2, T, 2, 3, T, 3, 0, T, 0)


def _game(level=1, campaign=0, extra=None):
    values = dict(CARDS)
    if extra:
        values.update(extra)
    game = ty.Game(Settings(ty.SETTINGS, values))
    game.apply(("start", (level, campaign) + TEAM))
    return game


def _reveal_to_last(game):
    """Shuffle LAST_IS_MAXIMUS and reveal every card but the last (each Marine ends his turn)."""
    game.apply(("shuffle", LAST_IS_MAXIMUS))
    while game.activation.n_pile > 1:
        game.apply(ty.activate(game))
        if game.current >= 0:
            game.apply(("end_turn", ()))


def test_TY_4_the_rounds_last_card_gives_the_marine_his_whole_turn():
    game = _game()
    _reveal_to_last(game)
    game.apply(ty.activate(game))
    assert game.current == 0 and game.actions_left == 4 and not game.activation.n_pile
    assert not game.needs_shuffle()
    assert raises(game.apply, ("shuffle", LAST_IS_MAXIMUS))  # no new round while he acts
    for _ in range(4):
        game.apply(("move", ()))
    assert game.current == -1 and game.needs_shuffle()  # now the new round


def _app_level_one():
    from dicepod.app import App

    app = App(Board(seed=3))
    app.start()
    for key in CARDS:
        app.session.change_setting(key, CARDS[key])
    menu(app, "tyranid")
    act(app, "Level 1")
    first(app)  # the first row (UP and DOWN have no long press: a list wraps)
    for _ in range(5):
        press(app, DOWN)
    press(app, OK)  # Start (Maximus, Adrix, Raphael, Lukas are ticked)
    assert app.session.game.phase == ty.PLAY
    return app


def test_TY_4_on_the_screen_the_last_marine_moves_attacks_and_ends_his_turn():
    app = _app_level_one()
    app.session.play(("shuffle", LAST_IS_MAXIMUS))  # the order a shuffle happened to give
    while app.session.game.activation.n_pile:
        act(app, "Reveal card")
        if app.session.game.current >= 0 and app.session.game.activation.n_pile:
            act(app, "End turn")
    screen = app.stack[-1]
    labels = [a[0] for a in screen.actions]
    assert app.session.game.current == 0 and screen.big == "Maximus"
    assert labels[:3] == ["Move", "Attack", "Other action"] and "End turn" in labels
    assert "New round" not in labels
    press(app, OK)  # the first action: Move, an action of his turn (not a new round)
    assert (
        app.session.game.current == 0
        and app.session.game.actions_left == 3
        and app.session.game.round == 1
    )
    act(app, "End turn")
    assert [a[0] for a in app.stack[-1].actions][0] == "New round"


def test_TY_5_free_attacks_cost_no_action_and_follow_the_last_action():
    game = _game()
    game.apply(("shuffle", LAST_IS_MAXIMUS))
    while game.current < 0:
        game.apply(ty.activate(game))
    marine = game.current
    left = game.actions_left
    game.apply(("attack", (ty.TERMAGANT, 6, 1)))  # the Frag Grenade's roll: no action
    assert game.actions_left == left and game.current == marine and game.last_hit
    assert game.board[ty.TERMAGANT] == 5
    for _ in range(left):
        game.apply(("action", ()))
    assert game.current == -1
    assert raises(game.apply, ("attack", (ty.TERMAGANT, 6)))  # no action left
    game.apply(("attack", (ty.TERMAGANT, 2, 1)))  # a free action after his last one
    assert game.last_hit is False and game.board[ty.TERMAGANT] == 5


def test_TY_8_count_settings_changed_mid_level_count_at_once():
    game = _game()
    assert game.infestation_total == 23
    game.apply(("set", ("tyranid.advanced", 2)))
    assert game.infestation_total == 25 and game.infestation_left == 25
    game.apply(("set", ("tyranid.briefing_counted", 0)))
    assert game.infestation_total == 26


def test_TY_9_the_real_infestation_deck_decides():
    game = _game(extra={"tyranid.briefing_counted": 0})
    game.apply(("set", ("tyranid.advanced", 0)))
    revealed = 0
    while revealed < 26:  # two more Tyranid cards than the device counted (24)
        if game.needs_shuffle():
            game.apply(("shuffle", LAST_IS_MAXIMUS))
        game.apply(ty.activate(game))
        if game.current >= 0:
            game.apply(("end_turn", ()))
        if game.last_card == T:
            revealed += 1
    assert game.infestation_left == 0 and game.phase == ty.PLAY and not game.infestation_out
    game.apply(("deck_out", ()))  # the players' deck ran out: Level 1 ends (TY-10)
    assert game.infestation_out
    assert raises(game.apply, ty.activate(game)) if game.activation.n_pile else True
    assert raises(game.apply, ("deck_out", ()))
    game.apply(("exit", (0,)))
    assert game.phase == ty.OVER


def test_TY_9_the_players_may_end_the_deck_early():
    game = _game()
    game.apply(("deck_out", ()))
    assert game.infestation_left == 23 and game.infestation_out
    game.apply(("exit", (0,)))
    assert game.result == ty.LOSS


def _win(game):
    """Win Level 1 (console on, every Marine standing on the exit tile) or record a win."""
    if game.level == 1:
        game.apply(("shuffle", LAST_IS_MAXIMUS))
        while game.current < 0:
            game.apply(ty.activate(game))
        game.apply(("console", (6,)))
        game.apply(("exit", (game.marines_standing(),)))
    else:
        game.apply(("result", (ty.WIN,)))


def test_TY_14_only_the_unused_marine_reinforces_after_a_loss():
    game = _game(campaign=1)
    game.apply(("wound", (2,)))
    game.apply(("wound", (2,)))  # Raphael out of action in Level 1
    _win(game)
    assert game.reserve() == 4
    game.apply(("next_level", ()))  # the team goes on without calling Vorne
    game.apply(("lictor", (3,)))
    game.apply(("wound", (1,)))
    game.apply(("wound", (1,)))  # Adrix out of action in Level 2
    _win(game)
    # Raphael, taken out of action earlier, can never come back: only Vorne
    assert raises(game.apply, ("next_level", (2,)))
    assert raises(game.apply, ("next_level", (1,)))
    assert game.reserve() == 4
    game.apply(("next_level", (4,)))
    assert list(game.in_play) == [1, 0, 0, 1, 1] and game.level == 3


def test_TY_14_no_reinforcement_without_a_loss_in_the_level_just_finished():
    game = _game(campaign=1)
    game.apply(("wound", (2,)))
    game.apply(("wound", (2,)))
    _win(game)
    game.apply(("next_level", ()))
    game.apply(("lictor", (3,)))
    _win(game)  # nobody lost in Level 2
    assert game.reserve() == -1 and raises(game.apply, ("next_level", (4,)))


def test_TY_15_at_most_two_extra_tyranid_cards():
    game = _game()
    game.apply(("add_tyranid_card", ()))
    game.apply(("add_tyranid_card", ()))
    assert raises(game.apply, ("add_tyranid_card", ()))  # the box has six
    assert game.activation.size() == 8 + 6


def test_DK_2_the_players_draw_the_real_activation_cards():
    game = _game(extra={"tyranid.real_draws": 1})
    game.apply(("shuffle", LAST_IS_MAXIMUS))
    game.apply(("activate", (3,)))  # Lukas's card came up, whatever the device's order
    assert game.current == 3
    game.apply(("end_turn", ()))
    game.apply(("activate", (3,)))
    game.apply(("end_turn", ()))
    assert raises(game.apply, ("activate", (3,)))  # both of Lukas's cards are out
    assert raises(game.apply, ("activate", (4,)))  # Vorne is not in play: no card
    device = _game()
    device.apply(("shuffle", LAST_IS_MAXIMUS))
    assert raises(device.apply, ("activate", (3,)))  # the device's deck: the top card only


def test_DK_2_on_the_screen_the_players_enter_the_card_and_the_counter_drawn():
    app = _app_level_one()
    app.session.change_setting("tyranid.real_draws", 1)
    act(app, "New round")
    act(app, "Reveal card")
    assert top(app) == "Pick"
    labels = app.stack[-1].items
    assert labels == ["Maximus", "Adrix", "Raphael", "Lukas", "Tyranids"]
    press(app, DOWN, DOWN, OK)  # Raphael
    assert app.session.game.last_card == 2 and app.session.game.current == 2
    act(app, "Place Tyranid")
    assert top(app) == "Pick" and app.stack[-1].items == ["Termagant (6)", "Genestealer (5)"]
    press(app, DOWN, OK)
    assert (
        app.session.game.board[ty.GENESTEALER] == 1
        and app.session.game.bag.counts[ty.GENESTEALER] == 4
    )


def _labels(app):
    return [a[0] for a in app.stack[-1].actions]


def test_TY_9_the_last_card_is_resolved_before_the_deck_ends():
    import gc

    app = _app_level_one()
    app.session.play(("add_tyranid_card", ()))  # six Tyranid cards a round: fewer rounds
    app.session.play(("add_tyranid_card", ()))
    game = app.session.game
    while game.infestation_left or game.current >= 0 or game.needs_shuffle():
        gc.collect()  # (a Pico-sized heap: many events played in one test)
        if game.needs_shuffle():
            app.session.play(ty.shuffle(game, app.randbelow))
        elif game.current >= 0:
            app.session.play(("end_turn", ()))
        else:
            app.session.play(ty.activate(game))
        game = app.session.game
    app.stack[-1].on_event(app)
    press(app, DOWN, UP)  # the screen as the table sees it
    assert game.last_card == T  # the last counted infestation card, still to resolve
    assert _labels(app)[:2] == ["Reveal card", "Deck ran out"]
    press(app, OK)  # a tap reveals: the real deck decides (TY-9), the level goes on
    assert app.session.last_event[0] == "activate" and not app.session.game.infestation_out
    assert app.session.game.phase == ty.PLAY


def test_TY_5_no_free_attack_in_a_tyranid_card():
    game = _game()
    game.apply(("shuffle", LAST_IS_MAXIMUS))
    game.apply(ty.activate(game))  # a Tyranid card: no Marine's turn
    assert raises(game.apply, ("attack", (ty.TERMAGANT, 6, 1)))
    assert game.board[ty.TERMAGANT] == 6
    app = _app_level_one()
    app.session.play(("shuffle", LAST_IS_MAXIMUS))
    act(app, "Reveal card")
    assert app.session.game.last_card == T and "Free attack" not in _labels(app)
    act(app, "Reveal card")  # Adrix's turn: his free actions
    assert "Free attack" in _labels(app)


def test_TY_12_the_console_is_rolled_until_it_opens_once():
    game = _game()
    game.apply(("shuffle", LAST_IS_MAXIMUS))
    while game.current < 0:
        game.apply(ty.activate(game))
    game.apply(("console", (6,)))
    assert game.console_open and raises(game.apply, ("console", (6,)))
    app = _app_level_one()
    app.session.play(("shuffle", LAST_IS_MAXIMUS))
    while app.session.game.current < 0:
        act(app, "Reveal card")
    app.session.play(("console", (6,)))
    app.stack[-1].on_event(app)
    assert "Console" not in _labels(app) and "Move" in _labels(app)


def test_TY_16_a_campaigns_level_one_takes_the_campaign_cards_outcome():
    alone = _game()
    alone.apply(("deck_out", ()))
    assert raises(alone.apply, ("result", (ty.WIN,)))  # the stand-alone table judges
    game = _game(campaign=1)
    game.apply(("deck_out", ()))
    game.apply(("result", (ty.WIN,)))  # two on the exit: the campaign card may say won
    assert game.phase == ty.OVER and game.result == ty.WIN
    game.apply(("next_level", ()))
    assert game.level == 2
    from dicepod.app import App

    app = App(Board(seed=3))
    app.start()
    for key in CARDS:
        app.session.change_setting(key, CARDS[key])
    menu(app, "tyranid")
    act(app, "Campaign")
    first(app)
    for _ in range(5):
        press(app, DOWN)
    press(app, OK)  # Start
    assert app.session.game.campaign and app.session.game.level == 1
    act(app, "Deck ran out")
    act(app, "Result: win")
    assert app.session.game.result == ty.WIN
    act(app, "Next level")
    press(app, OK)  # no reinforcement
    assert app.session.game.level == 2
