"""Rise of the Orks against its rules, one case per rule id of docs/RULES.md (OR-n, DK-n): each
plays the rule through dicepod.rules.orks, and where a player meets it on the screen, through
the app with button presses. Portable: CPython (pytest) and real MicroPython."""

from app_board import DOWN, OK, UP, Board, act, menu, press, top
from checks import raises
from seeded import scripted

from dicepod.rules import orks as ok
from dicepod.settings import Settings

# The players' datasheets and tokens (test values: the rulebook does not print them). Magmus
# and Lucian share a Command value.
CARDS = {
    "orks.command_magmus": 7,
    "orks.command_stormheart": 5,
    "orks.command_lucian": 7,
    "orks.command_etrus": 6,
}
for _name in ("magmus", "stormheart", "lucian", "etrus"):
    CARDS["orks.actions_" + _name] = 1  # one Move and one Attack a turn
for _kind in ("boy", "nob", "meganob", "burna", "kommando", "mek", "bigmek", "painboy"):
    CARDS["orks.tough_" + _kind] = 4
    CARDS["orks.damage_" + _kind] = 1
CARDS["orks.tough_weirdboy"] = CARDS["orks.tough_warboss"] = 5
CARDS["orks.damage_weirdboy"] = CARDS["orks.damage_warboss"] = 2
MAGMUS, ANGELUS, STORMHEART, LUCIAN, ETRUS = 0, 1, 2, 3, 4
NOB, KOMMANDO = 1, 4  # Ork kinds (ok.KINDS order)


def _game():
    """A Novice game in its first Terminator phase (Lucian's Command 8: no tie, so the order
    is Angelus, Lucian, Magmus, Etrus, Stormheart)."""
    values = dict(CARDS)
    values["orks.command_lucian"] = 8
    game = ok.Game(Settings(ok.SETTINGS, values))
    game.apply(("start", (ok.NOVICE,)))
    for i in range(5):
        game.apply(("add", (ok.BOY if i < 4 else NOB, i + 1)))
    game.apply(("next", ()))  # the Terminator Action phase
    return game


def test_OR_6_equal_command_values_the_players_choose_the_order():
    game = ok.Game(Settings(ok.SETTINGS, CARDS))
    assert raises(game.apply, ("start", (ok.NOVICE,)))  # the device does not decide
    # highest Command first: Angelus (9) before the tied pair
    assert raises(game.apply, ("start", (ok.NOVICE, LUCIAN, ANGELUS, MAGMUS, ETRUS, 2)))
    assert raises(game.apply, ("start", (ok.NOVICE, ANGELUS, LUCIAN, LUCIAN, ETRUS, 2)))
    game.apply(("start", (ok.NOVICE, ANGELUS, LUCIAN, MAGMUS, ETRUS, STORMHEART)))
    assert list(game.order) == [ANGELUS, LUCIAN, MAGMUS, ETRUS, STORMHEART]
    other = ok.Game(Settings(ok.SETTINGS, CARDS))
    other.apply(("start", (ok.NOVICE, ANGELUS, MAGMUS, LUCIAN, ETRUS, STORMHEART)))
    assert list(other.order) == [ANGELUS, MAGMUS, LUCIAN, ETRUS, STORMHEART]
    unique = dict(CARDS)
    unique["orks.command_lucian"] = 8
    alone = ok.Game(Settings(ok.SETTINGS, unique))
    alone.apply(("start", (ok.NOVICE,)))  # no tie: nothing to ask
    assert list(alone.order) == [ANGELUS, LUCIAN, MAGMUS, ETRUS, STORMHEART]


def _app(extra=None):
    from dicepod.app import App

    app = App(Board(seed=4, randbelow=scripted([0, 1, 2, 3, 4] * 40)))
    app.start()
    values = dict(CARDS)
    if extra:
        values.update(extra)
    for key in values:
        if values[key] is not None:  # None: left for the device to ask
            app.session.change_setting(key, values[key])
    menu(app, "orks")
    return app


def test_OR_6_on_the_screen_the_device_asks_who_goes_first():
    app = _app()
    act(app, "Novice")
    assert top(app) == "Pick" and app.stack[-1].items == ["Magmus", "Lucian"]
    press(app, DOWN, OK)  # Lucian first
    assert top(app) == "OrksScreen" and app.session.game.phase == ok.WAVE
    assert list(app.session.game.order) == [ANGELUS, LUCIAN, MAGMUS, ETRUS, STORMHEART]


def test_OR_8_one_move_and_one_attack_a_turn_angelus_three():
    game = _game()
    assert game.current == ANGELUS
    for _ in range(3):
        game.apply(("move", ()))
        game.apply(("attack", (ok.BOY, 1, 0, 0)))
    assert raises(game.apply, ("move", ()))
    assert raises(game.apply, ("attack", (ok.BOY, 6, 0, 0)))
    game.apply(("next", ()))
    assert game.current == LUCIAN
    game.apply(("attack", (ok.BOY, 1, 0, 0)))  # Attack before Move: either order
    assert raises(game.apply, ("attack", (ok.BOY, 6, 0, 0)))
    game.apply(("move", ()))
    assert raises(game.apply, ("move", ()))
    game.apply(("next", ()))
    game.apply(("next", ()))  # Magmus does neither: both optional
    assert game.current == ETRUS and game.attacks_left == 1 and game.moves_left == 1


def test_OR_10_the_starting_hex_heals_once_per_activation():
    game = _game()
    game.apply(("damage", (ANGELUS, 1)))
    game.apply(("next", ()))
    game.apply(("damage", (LUCIAN, 4)))
    game.apply(("heal", (LUCIAN,)))
    assert game.damage[LUCIAN] == 3
    assert raises(game.apply, ("heal", (LUCIAN,)))  # not again in this activation
    assert game.damage[LUCIAN] == 3


def test_OR_14_a_supply_cards_toughness_on_the_screen():
    app = _app({"orks.command_lucian": 8})
    act(app, "Novice")
    while app.session.game.wave_left:
        act(app, "Add Ork")
    act(app, "Terminators")
    assert app.session.game.current == ANGELUS
    assert "Card attack" not in _labels(app)  # no supply card kept yet
    act(app, "Move")
    act(app, "Supply token")  # ends his Move on a token: draw two, keep one
    assert app.session.game.supply_kept == 1
    act(app, "Card attack")  # "treat the next Ork token as Toughness 2"
    press(app, OK)  # the first kind on the board
    assert top(app) == "Pick" and app.stack[-1].title == "Card sets"
    press(app, OK)  # Toughness 2 (the cursor starts there)
    press(app, OK)  # in the open: the die rolls
    event = app.session.last_event
    assert event[0] == "attack" and len(event[1]) == 5 and event[1][4] == 2
    assert app.session.game.last_hit == (event[1][1] >= 2)  # against 2, not the token's 4
    assert app.session.game.supply_kept == 0 and app.session.game.supply_discard == 2  # played


def test_OR_16_ork_hits_only_from_a_kind_on_the_board():
    game = _game()
    for _ in range(5):
        game.apply(("next", ()))  # the Ork Action phase
    assert raises(game.apply, ("hit", (ANGELUS, ok.WARBOSS)))  # no Warboss on the board
    game.apply(("hit", (ANGELUS, NOB)))
    assert game.damage[ANGELUS] == 1


def test_OR_16_on_the_screen_ork_hits_lists_the_kinds_on_the_board():
    app = _app({"orks.command_lucian": 8})
    act(app, "Novice")
    while app.session.game.wave_left:
        act(app, "Add Ork")
    act(app, "Terminators")
    for _ in range(5):
        act(app, "Next Terminator")
    act(app, "Ork hits")
    press(app, OK)  # the first standing Terminator
    kinds = [ok.KINDS[k] for k in range(10) if app.session.game.board[k]]
    assert top(app) == "Pick" and [i.split(" (")[0] for i in app.stack[-1].items] == kinds


def test_DK_2_on_the_screen_the_players_enter_the_token_drawn():
    app = _app({"orks.command_lucian": 8, "orks.real_draws": 1})
    act(app, "Novice")
    act(app, "Add Ork")
    assert top(app) == "Pick" and app.stack[-1].items == ["Boy (20)", "Nob (5)", "Kommando (5)"]
    press(app, DOWN, DOWN, OK)  # a Kommando came out of the pile
    assert app.session.game.board[KOMMANDO] == 1 and app.session.game.reserves.counts[KOMMANDO] == 4
    assert 1 <= app.session.game.last_breach <= 6


def _labels(app):
    return [a[0] for a in app.stack[-1].actions]


def shows(app, text):
    """True when the display shows text whole in the 6x8 font, from the left edge, on some
    row (the pixels compared with the font's own drawing of it)."""
    import framebuf

    from dicepod.ui import draw

    got = framebuf.FrameBuffer(bytearray(app.board.display.buffer), 128, 64, framebuf.MONO_VLSB)
    width = len(text) * draw.SMALL
    for y in range(0, 57):
        want = framebuf.FrameBuffer(bytearray(1024), 128, 64, framebuf.MONO_VLSB)
        draw.small(want, text, 0, y)
        same = True
        for row in range(y, y + 8):
            for x in range(width):
                if got.pixel(x, row) != want.pixel(x, row):
                    same = False
                    break
            if not same:
                break
        if same:
            return True
    return False


# A Warrior card (test values) whose first wave is exactly the special Orks.
SPECIALS = {"orks.command_lucian": 8, "orks.warrior_wave": 5}
for _kind in ("boy", "nob", "meganob", "burna", "kommando", "mek", "bigmek"):
    SPECIALS["orks.warrior_" + _kind] = 0
for _kind in ("painboy", "weirdboy", "warboss"):
    SPECIALS["orks.warrior_" + _kind] = 1
SPECIALS["orks.warrior_mek"] = 1
SPECIALS["orks.warrior_bigmek"] = 1


def test_OR_15_the_warpath_is_shown_whole_and_comes_first():
    app = _app(SPECIALS)
    act(app, "Warrior")
    while app.session.game.wave_left:
        act(app, "Add Ork")
    assert app.session.game.reminders() & ok.R_WARPATH
    assert shows(app, "Warpath:Boyz move+atk")  # the fifth line, drawn whole
    screen = app.stack[-1]
    assert screen.actions[screen.index][0] == "Warpath: Ork hits"  # under the cursor
    press(app, OK, OK, OK)  # Magmus, hit by the first kind on the board
    assert top(app) == "OrksScreen" and app.session.last_event[0] == "hit"
    act(app, "Terminators")
    assert app.session.game.phase == ok.TERMINATOR_PHASE


def test_OR_15_every_end_of_phase_reminder_is_shown_whole():
    app = _app(SPECIALS)
    act(app, "Warrior")
    while app.session.game.wave_left:
        act(app, "Add Ork")
    act(app, "Terminators")
    assert shows(app, "Painboy: +1 T next")
    for _ in range(5):
        act(app, "Next Terminator")
    assert app.session.game.phase == ok.ORK_PHASE
    for text in ("Weirdboy: Waaagh! dmg", "Big Mek: 2 dmg near", "Mek: 1 dmg nearest"):
        assert shows(app, text), text


def _terminator_phase():
    app = _app({"orks.command_lucian": 8})
    act(app, "Novice")
    while app.session.game.wave_left:
        act(app, "Add Ork")
    act(app, "Terminators")
    return app


def test_OR_17_no_ork_hits_or_smashes_in_the_terminators_phase():
    game = _game()
    assert raises(game.apply, ("hit", (ANGELUS, NOB)))
    assert raises(game.apply, ("smash", ()))
    assert game.damage[ANGELUS] == 0 and game.reactors == 6
    app = _terminator_phase()
    assert "Ork hits" not in _labels(app) and "Reactor smashed" not in _labels(app)
    for _ in range(5):
        act(app, "Next Terminator")
    act(app, "Reactor smashed")  # the Ork Action phase: now they do
    assert app.session.game.reactors == 5


def test_OR_18_a_supply_token_ends_a_move_once_a_turn():
    game = _game()
    assert raises(game.apply, ("supply", (ANGELUS,)))  # no Move yet
    game.apply(("move", ()))
    assert raises(game.apply, ("supply", (LUCIAN,)))  # not his turn
    game.apply(("supply", (ANGELUS,)))
    game.apply(("move", ()))
    assert raises(game.apply, ("supply", (ANGELUS,)))  # once a turn
    assert game.supply_tokens == 5 and game.supply_kept == 1
    app = _terminator_phase()
    assert "Supply token" not in _labels(app)
    act(app, "Move")
    act(app, "Supply token")
    assert app.session.game.supply_tokens == 5
    assert "Supply token" not in _labels(app)


def test_OR_14_a_card_attack_needs_a_card_kept():
    game = _game()
    assert raises(game.apply, ("attack", (ok.BOY, 6, 0, 0, 2)))  # no supply card kept
    game.apply(("move", ()))
    game.apply(("supply", (ANGELUS,)))
    game.apply(("attack", (ok.BOY, 2, 0, 0, 2)))
    assert game.last_hit and game.supply_kept == 0 and game.supply_discard == 2


def test_OR_8_each_terminators_allowance_is_asked_from_his_datasheet():
    values = dict(CARDS)
    values["orks.command_lucian"] = 8
    game = ok.Game(Settings(ok.SETTINGS, values))
    game.apply(("start", (ok.NOVICE,)))
    assert game.allowance(ANGELUS) == 3 and game.allowance(LUCIAN) == 1
    unset = {"orks.command_lucian": 8}
    for name in ("magmus", "stormheart", "lucian", "etrus"):
        unset["orks.actions_" + name] = None
    app = _app(unset)
    press(app, OK)  # Novice (under the cursor): four questions, one a Terminator (lowest 1)
    asked = []
    while top(app) == "AskValue":
        asked.append(app.stack[-1].key)
        press(app, *((OK,) if len(asked) != 3 else (UP, OK)))  # Lucian: two of each
    assert asked == ["orks.actions_" + n for n in ("magmus", "stormheart", "lucian", "etrus")]
    assert top(app) == "OrksScreen" and app.session.game.phase == ok.WAVE  # no other action
    while app.session.game.wave_left:
        act(app, "Add Ork")
    act(app, "Terminators")
    act(app, "Next Terminator")  # Angelus's turn passes: Lucian's
    game = app.session.game
    assert game.current == LUCIAN and game.moves_left == 2 and game.attacks_left == 2


def test_OR_8_a_granted_extra_attack_is_rolled():
    game = _game()
    game.apply(("next", ()))  # Lucian: one Attack
    game.apply(("attack", (ok.BOY, 1, 0, 0)))
    assert raises(game.apply, ("attack", (ok.BOY, 6, 0, 0)))
    game.apply(("extra", ()))
    game.apply(("attack", (ok.BOY, 6, 0, 0)))
    assert game.last_hit and game.attacks_left == 0
    app = _terminator_phase()
    act(app, "Next Terminator")
    act(app, "Attack")
    press(app, OK, OK)  # the first kind, in the open: rolled
    assert "Attack" not in _labels(app)
    act(app, "Extra attack")
    act(app, "Attack")
    press(app, OK, OK)
    assert app.session.last_event[0] == "attack" and app.session.game.attacks_left == 0
