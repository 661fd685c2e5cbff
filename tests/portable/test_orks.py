"""dicepod.rules.orks: Rise of the Orks reserves, waves, attacks, damage, grit, reactors, supply.
Portable: runs under CPython (pytest) and real MicroPython (tests/mp_runner.py)."""

import json

from checks import check_events, raises
from seeded import Seeded, scripted

from dicepod.rules import orks as ok
from dicepod.settings import MissingValue, Settings

# Values a team would enter from its datasheets, tokens and difficulty cards. Test values, not
# the game's: the rulebook does not give them, which is why they are settings.
CARDS = {
    "orks.command_magmus": 7,
    "orks.command_stormheart": 5,
    "orks.command_lucian": 8,
    "orks.command_etrus": 6,
}
for _name in ("magmus", "stormheart", "lucian", "etrus"):
    CARDS["orks.actions_" + _name] = 1  # one Move and one Attack a turn
for _i, _kind in enumerate(("boy", "nob", "meganob", "burna", "kommando")):
    CARDS["orks.tough_" + _kind] = 3 + _i % 3
    CARDS["orks.damage_" + _kind] = 1 + _i % 2
for _kind in ("mek", "bigmek", "painboy", "weirdboy", "warboss"):
    CARDS["orks.tough_" + _kind] = 4
    CARDS["orks.damage_" + _kind] = 2
# A made-up Warrior card with every special Ork in it (a non-default difficulty).
WARRIOR = (8, 2, 1, 1, 2, 2, 1, 1, 1, 1)
for _i, _kind in enumerate(
    (
        "boy",
        "nob",
        "meganob",
        "burna",
        "kommando",
        "mek",
        "bigmek",
        "painboy",
        "weirdboy",
        "warboss",
    )
):
    CARDS["orks.warrior_" + _kind] = WARRIOR[_i]
CARDS["orks.warrior_wave"] = 4


def _settings(drop=()):
    values = dict(CARDS)
    for key in drop:
        del values[key]
    return Settings(ok.SETTINGS, values)


def _snap(g):
    return [
        g.phase,
        g.round,
        g.difficulty,
        list(g.reserves.counts),
        g.reserves.total,
        list(g.board),
        list(g.destroyed),
        g.on_board,
        list(g.kills),
        list(g.damage),
        list(g.order),
        g.turn,
        g.current,
        g.stood_up,
        g.wave_size,
        g.wave_left,
        g.wave_warboss,
        g.last_breach,
        g.last_hit,
        g.last_kind,
        g.grit,
        g.reactors,
        g.supply_deck,
        g.supply_discard,
        g.supply_kept,
        g.supply_tokens,
        g.result,
        g.reminders(),
    ]


def _started(difficulty=ok.NOVICE, settings=None):
    game = ok.Game(settings or _settings())
    game.apply(("start", (difficulty,)))
    return game


def _to_terminators(game, kinds):
    """Add the wave with the given kinds (breach 1..), then move to the Terminator phase."""
    for i, kind in enumerate(kinds):
        game.apply(("add", (kind, i % 6 + 1)))
    game.apply(("next", ()))


def test_novice_setup_and_first_wave():
    game = _started()
    assert game.phase == ok.WAVE and game.round == 1
    assert list(game.reserves.counts) == [20, 5, 0, 0, 5, 0, 0, 0, 0, 0]
    assert game.wave_left == 5 and game.grit == 3 and game.reactors == 6
    assert game.supply_deck == 32 and game.supply_tokens == 6
    assert raises(game.apply, ("next", ()))  # add the wave first
    source = Seeded(1)
    for _ in range(5):
        event = ok.add_ork(game, source.randbelow)
        assert 1 <= event[1][1] <= 6
        game.apply(event)
    assert game.on_board == 5 and game.reserves.total == 25
    assert raises(game.apply, ("add", (0, 1)))
    game.apply(("next", ()))
    assert game.phase == ok.TERMINATOR_PHASE


def test_command_order_highest_first():
    game = _started()
    assert list(game.order) == [1, 3, 0, 4, 2]  # Angelus 9 [seed], then the entered values
    _to_terminators(game, (0, 0, 0, 0, 0))
    seen = []
    while game.phase == ok.TERMINATOR_PHASE:
        seen.append(game.current)
        game.apply(("next", ()))
    assert seen == [1, 3, 0, 4, 2] and game.phase == ok.ORK_PHASE
    game.apply(("next", ()))
    assert game.phase == ok.WAVE and game.round == 2 and game.wave_left == 5


def test_attack_toughness_cover_and_painboy():
    game = _started(ok.WARRIOR)
    assert game.wave_left == 4
    _to_terminators(game, (0, 7, 1, 0))  # Boy, Painboy, Nob, Boy
    # Boy Toughness 3 (setting): a 3 hits in the open, misses in cover or next to the Painboy
    game.apply(("attack", (0, 3, 0, 0)))
    assert game.last_hit is True and game.board[0] == 1 and game.kills[game.current] == 1
    game.apply(("attack", (0, 3, 1, 0)))
    assert game.last_hit is False
    game.apply(("attack", (0, 3, 0, 1)))
    assert game.last_hit is False
    game.apply(("next", ()))  # one Attack a turn, Angelus three (OR-8): the next Terminator
    game.apply(ok.attack(0, scripted([4]), cover=1, painboy=1))  # a 5 beats 3 + 1 + 1
    assert game.last_hit is True and game.board[0] == 0
    game.apply(("next", ()))
    assert raises(game.apply, ("attack", (7, 6, 0, 1)))  # never for the Painboy itself
    assert raises(game.apply, ("attack", (0, 6, 0, 0)))  # no Boy left on the board
    game.apply(("move", ()))
    game.apply(("supply", (game.current,)))  # a supply card kept at the end of a Move
    game.apply(("attack", (1, 2, 0, 0, 2)))  # the card sets the Toughness to 2
    assert game.last_hit is True and game.board[1] == 0
    assert game.reminders() & ok.R_PAINBOY


def test_damage_storm_shield_out_of_action_and_grit():
    game = _started()
    _to_terminators(game, (0, 0, 0, 0, 1))
    game.apply(("damage", (ok.ANGELUS, 4)))  # Storm Shield: any damage becomes 1
    assert game.damage[ok.ANGELUS] == 1
    game.apply(("damage", (0, 2)))  # as a Nob's hit (its damage 2 is a setting)
    assert game.damage[0] == 2
    game.apply(("damage", (0, 3)))
    assert game.damage[0] == 5 and game.grit == 2
    assert raises(game.apply, ("damage", (0, 1)))  # Orks leave him be
    game.apply(("damage", (2, 5)))
    assert game.grit == 1 and game.phase == ok.TERMINATOR_PHASE
    game.apply(("damage", (3, 5)))
    assert game.grit == 0 and game.phase == ok.OVER and game.result == ok.LOST_GRIT


def test_heroes_all_and_healing():
    game = _started()
    _to_terminators(game, (0, 0, 0, 0, 0))
    game.apply(("damage", (0, 5)))  # Magmus out of action before his turn
    game.apply(("damage", (3, 2)))
    assert game.current == ok.ANGELUS
    game.apply(("next", ()))
    assert game.current == 3
    game.apply(("heal", (3,)))
    assert game.damage[3] == 1
    assert raises(game.apply, ("heal", (0,)))  # not his turn
    game.apply(("next", ()))
    assert game.current == 0 and game.stood_up and game.damage[0] == 4  # Heroes All
    game.apply(("damage", (0, 1)))
    assert game.damage[0] == 5 and game.grit == 1


def test_reactors_lost():
    game = _started()
    _to_terminators(game, (0, 0, 0, 0, 0))
    for _ in range(5):
        game.apply(("next", ()))  # the Ork Action phase: the Orks' own
    for _ in range(5):
        game.apply(("smash", ()))
    assert game.reactors == 1 and game.phase != ok.OVER
    game.apply(("smash", ()))
    assert game.result == ok.LOST_REACTORS and game.phase == ok.OVER
    assert raises(game.apply, ("smash", ()))


def test_win_when_reserves_and_board_are_empty_and_rank():
    game = _started()
    source = Seeded(2)
    kills = 0
    while game.phase != ok.OVER:
        if game.phase == ok.WAVE:
            if game.wave_left:
                game.apply(ok.add_ork(game, source.randbelow))
            else:
                game.apply(("next", ()))
        elif game.phase == ok.TERMINATOR_PHASE:
            for kind in range(10):
                while game.board[kind] and game.phase != ok.OVER and game.attacks_left:
                    game.apply(("attack", (kind, 6, 0, 0)))
                    kills += 1
            if game.phase != ok.OVER:
                game.apply(("next", ()))
        else:
            game.apply(("next", ()))
    assert game.result == ok.WON and kills == 30 and sum(game.kills) == 30
    assert game.round == 6 and game.rank() == ("Unblemished", "Glorious")
    assert ok.victory_rank(1, 3) == ("Grim", "Stained")


def test_supply_draw_two_keep_one():
    game = _started()
    _to_terminators(game, (0, 0, 0, 0, 0))
    game.apply(("move", ()))  # a token ends a Move
    game.apply(("supply", (game.current,)))
    assert game.supply_deck == 30 and game.supply_kept == 1 and game.supply_discard == 1
    assert game.supply_tokens == 5
    game.apply(("play_supply", ()))
    assert game.supply_kept == 0 and game.supply_discard == 2
    assert raises(game.apply, ("play_supply", ()))


def test_special_ork_reminders():
    game = _started(ok.WARRIOR)
    assert game.phase == ok.WAVE and game.wave_left == 4
    for kind in (ok.WARBOSS, ok.WEIRDBOY, ok.MEK, ok.BIG_MEK):
        game.apply(("add", (kind, 1)))
    assert game.reminders() == ok.R_WARPATH  # before the Terminators act
    game.apply(("hit", (0, ok.WARBOSS)))  # an Ork on the board may already hit
    game.apply(("next", ()))
    assert game.reminders() == 0
    while game.phase == ok.TERMINATOR_PHASE:
        game.apply(("next", ()))
    assert game.reminders() == ok.R_WEIRDBOY | ok.R_BIG_MEK | ok.R_MEK
    names = [text for bit, text in ok.REMINDERS if game.reminders() & bit]
    assert len(names) == 3


def test_missing_values_are_named():
    game = ok.Game(Settings(ok.SETTINGS))
    try:
        game.apply(("start", (ok.NOVICE,)))
    except MissingValue as missing:
        assert missing.args[0] == "orks.command_magmus"
    else:
        raise AssertionError("no MissingValue")
    assert game.phase == ok.SETUP
    game = ok.Game(_settings(drop=("orks.warrior_nob",)))
    try:
        game.apply(("start", (ok.WARRIOR,)))
    except MissingValue as missing:
        assert missing.args[0] == "orks.warrior_nob"
    else:
        raise AssertionError("no MissingValue")
    game = _started(settings=_settings(drop=("orks.tough_kommando",)))
    _to_terminators(game, (4, 0, 0, 0, 0))
    try:
        game.apply(("attack", (4, 6, 0, 0)))
    except MissingValue as missing:
        assert missing.args[0] == "orks.tough_kommando"
    else:
        raise AssertionError("no MissingValue")


def _play(seed, count, keep=True):
    """A seeded bot plays games through the commands; return (events, live game).
    With keep=False the events are only counted (long sessions: the heap holds the game only)."""
    source = Seeded(seed)
    rb = source.randbelow
    game = ok.Game(_settings())
    events = []
    done = [0]

    def add(event):
        game.apply(event)
        done[0] += 1
        if keep:
            events.append(event)

    add(("new_game", ("orks",)))
    add(("set", ("orks.tough_boy", 3)))
    while done[0] < count:
        phase = game.phase
        if phase == ok.SETUP or phase == ok.OVER:
            add(("start", (ok.WARRIOR if rb(2) else ok.NOVICE,)))
        elif phase == ok.WAVE:
            if game.wave_left:
                add(ok.add_ork(game, rb))
            else:
                if game.reminders() & ok.R_WARPATH and rb(2):
                    _ork_attack(game, add, rb)
                if game.phase == ok.WAVE:
                    add(("next", ()))
        elif phase == ok.TERMINATOR_PHASE:
            t = game.current
            if game.supply_tokens and rb(6) == 0:
                add(("move", ()))
                add(("supply", (t,)))
            if game.supply_kept and rb(4) == 0:
                add(("play_supply", ()))
            for _ in range(3 if t == ok.ANGELUS else 1):
                targets = [k for k in range(10) if game.board[k]]
                if targets and game.phase == ok.TERMINATOR_PHASE:
                    kind = targets[rb(len(targets))]
                    painboy = 1 if game.board[ok.PAINBOY] and kind != ok.PAINBOY and rb(2) else 0
                    add(ok.attack(kind, rb, cover=rb(2), painboy=painboy))
            if game.phase == ok.TERMINATOR_PHASE:
                if game.damage[t] and rb(3) == 0:
                    add(("heal", (t,)))
                add(("next", ()))
        else:
            for _ in range(rb(3)):
                if game.phase == ok.ORK_PHASE:
                    _ork_attack(game, add, rb)
            if game.phase == ok.ORK_PHASE and game.reminders() & ok.R_MEK and rb(2):
                standing = [t for t in range(5) if game.damage[t] < 5]
                add(("damage", (standing[rb(len(standing))], 1)))
            if game.phase == ok.ORK_PHASE:
                add(("next", ()))
    return events, game


def _ork_attack(game, add, rb):
    standing = [t for t in range(5) if game.damage[t] < 5]
    kinds = [k for k in range(10) if game.board[k]]
    if rb(12) == 0 or not standing or not kinds:
        add(("smash", ()))
    else:
        add(("hit", (standing[rb(len(standing))], kinds[rb(len(kinds))])))


def test_whole_games_with_undo_at_every_step():
    events, _game = _play(5, 400)
    check_events(events)
    kinds = set(e[0] for e in events)
    for kind in ("start", "add", "next", "attack", "hit", "smash", "heal", "supply"):
        assert kind in kinds, kind
    live = ok.Game(_settings())
    for k in range(len(events) + 1):
        assert _snap(ok.fold(events[:k], _settings())) == _snap(live), k
        if k < len(events):
            live.apply(events[k])


def test_every_setting_key_fits_the_journal():
    for key, default, low, high, label in ok.SETTINGS:
        assert len(key) <= 24 and key.startswith("orks.") and low <= high and label
        # the rulebook gives none of these; who draws the tokens is the players' choice
        assert default is None or key == "orks.real_draws"
    check_events([("set", (spec[0], spec[2])) for spec in ok.SETTINGS])


def result_games():
    events, game = _play(13, 600)
    return [list(e[1]) for e in events[-12:]], _snap(game)


def _decoded(events):
    """The events as the journal gives them back: JSON-decoded, data as lists."""
    return [tuple(json.loads(json.dumps([e[0], list(e[1])]))) for e in events]


def test_fold_of_journal_decoded_events_is_the_same():
    events, game = _play(5, 150)
    assert _snap(ok.fold(_decoded(events), _settings())) == _snap(game)


def test_malformed_events_are_value_errors():
    for event in [
        ("start", ("0",)),
        ("hit", 5),
        ("set", ("orks.tough_boy", None)),
        ("bogus", ()),
        ("next",),
        None,
        ("damage", (None, 1)),
    ]:
        game = ok.Game(_settings())
        try:
            game.apply(event)
        except ValueError:
            continue
        raise AssertionError("accepted %r" % (event,))


def test_undo_of_reserve_draws_through_the_journal():
    from dicepod import journalfix

    events, _game = _play(12, 120)
    checked = 0
    for k in range(len(events)):
        if events[k][0] != "add":
            continue
        before = ok.fold(events[:k], _settings())
        undone = ok.fold(journalfix.effective(events[: k + 1] + [("undo", ())]), _settings())
        assert _snap(undone) == _snap(before)
        assert bytes(before.reserves.counts) == bytes(undone.reserves.counts)
        checked += 1
    assert checked > 10
