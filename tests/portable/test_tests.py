"""dicepod.rules.tn, the Tests mode: target-number tests, modifiers, re-rolls, roll-offs, D3
and exact odds.
Portable: runs under CPython (pytest) and real MicroPython (tests/mp_runner.py)."""

import json

from checks import check_events, raises
from seeded import Seeded, scripted

from dicepod.rules import fraction
from dicepod.rules import tn as tm
from dicepod.settings import MissingValue, Settings


def _snap(game):
    return [
        game.tn,
        list(game.mod_names),
        list(game.mod_values),
        game.modifier,
        game.tn_final,
        game.rule,
        [game.dice[i] for i in range(game.n_dice)],
        [game.rerolls[i] for i in range(game.n_dice)],
        game.successes,
        list(game.rolloff_totals),
        game.rolloff_in,
        game.rolloff_throws,
        game.rolloff_winner,
        game.d3,
        game.d3_face,
        game.d3_plus,
    ]


def _undo_every_step(events, settings=None):
    """Fold live, then check that refolding each prefix (= undo of everything after it) gives
    the same state; return the final game."""
    game = tm.Game(settings() if settings else None)
    states = [_snap(game)]
    for event in events:
        game.apply(event)
        states.append(_snap(game))
    for k in range(len(events) + 1):
        assert _snap(tm.fold(events[:k], settings() if settings else None)) == states[k], k
    return game


# ---- the rules ------------------------------------------------------------------------------


def test_final_tn_modifiers_caps_and_dash():
    assert tm.final_tn(5, 1) == 4  # +1 lowers the TN
    assert tm.final_tn(5, -1) == 6  # -1 raises it
    assert tm.final_tn(4, 1 - 1) == 4
    assert tm.final_tn(3, 4) == 2  # never below 2+
    assert tm.final_tn(5, -3) == 6  # never above 6+
    assert tm.final_tn(0, 5) is None and tm.final_tn(None, 5) is None  # a dash stays a dash


def test_natural_six_and_one():
    for tn in range(2, 7):
        assert tm.is_success(6, tn)
        assert not tm.is_success(1, tn)
    assert tm.is_success(4, 4) and not tm.is_success(3, 4)
    assert tm.success_faces(2) == 5 and tm.success_faces(6) == 1


def test_fractions_without_math_gcd():
    assert fraction.gcd(12, 18) == 6 and fraction.gcd(0, 5) == 5
    assert fraction.reduce(6, 36) == (1, 6) and fraction.reduce(0, 7) == (0, 1)
    assert tm.binomial(6, 3) == 20 and tm.binomial(3, 4) == 0
    assert tm.p_success(4) == (1, 2)
    assert tm.p_success(4, tm.RULE_FAILURES) == (3, 4)
    assert fraction.text((1, 2)) == "1/2"


def _brute(n, tn, rule):
    """Exact distribution by enumerating every throw (and every re-roll)."""
    per_die = 6
    if rule == tm.RULE_FAILURES:
        per_die = 36
    total = per_die**n * (6 if rule == tm.RULE_ONE else 1)
    counts = [0] * (n + 1)
    for index in range(total):
        faces = []
        x = index
        for _ in range(n):
            faces.append(x % per_die)
            x //= per_die
        successes = 0
        failed = -1
        for i in range(n):
            first = faces[i] % 6 + 1
            ok = tm.is_success(first, tn)
            if not ok and rule == tm.RULE_FAILURES:
                ok = tm.is_success(faces[i] // 6 + 1, tn)
            if ok:
                successes += 1
            elif failed < 0:
                failed = i
        if rule == tm.RULE_ONE and failed >= 0 and tm.is_success(x + 1, tn):
            successes += 1
        counts[successes] += 1
    return counts, total


def _same(dist, brute):
    nums, den = dist
    counts, total = brute
    for num, count in zip(nums, counts):
        assert num * total == count * den


def test_distributions_match_brute_force():
    for tn in range(2, 7):
        for n in range(0, 5):
            _same(tm.distribution(n, tn), _brute(n, tn, tm.RULE_NONE))
        for n in range(1, 3):
            _same(tm.distribution(n, tn, tm.RULE_FAILURES), _brute(n, tn, tm.RULE_FAILURES))
        for n in range(1, 4):
            _same(tm.distribution(n, tn, tm.RULE_ONE), _brute(n, tn, tm.RULE_ONE))


def test_distribution_common_denominator():
    assert tm.distribution(4, 4) == ((1, 4, 6, 4, 1), 16)
    assert tm.distribution(1, 6) == ((5, 1), 6)
    nums, den = tm.distribution(3, 3, tm.RULE_ONE)
    assert sum(nums) == den


def test_d3_values():
    assert [tm.d3_value(f) for f in range(1, 7)] == [1, 1, 2, 2, 3, 3]
    game = tm.Game()
    game.apply(tm.d3(scripted([4])))  # face 5
    assert game.d3 == 3 and game.d3_plus == 0
    game.apply(tm.d3_plus_1(scripted([0])))  # face 1
    assert game.d3 == 2 and game.d3_plus == 1


# ---- the Tests mode ---------------------------------------------------------------------


def test_named_modifiers_add_and_replace():
    game = tm.Game()
    game.apply(("tn", (5,)))
    game.apply(("mod", ("aim", 1)))
    game.apply(("mod", ("cover", -1)))
    assert game.tn_final == 5
    game.apply(("mod", ("aim", 2)))  # same source again: replaces, does not stack
    assert game.modifier == 1 and game.tn_final == 4
    game.apply(("unmod", ("cover",)))
    assert game.tn_final == 3
    game.apply(("mod", ("rage", 5)))
    assert game.tn_final == 2  # capped
    game.apply(("clear_mods", ()))
    assert game.tn_final == 5
    assert raises(game.apply, ("unmod", ("cover",)))
    assert raises(game.apply, ("mod", ("x", 0)))
    assert raises(game.apply, ("tn", (7,)))


def test_dash_means_no_test():
    game = tm.Game()
    assert raises(game.apply, ("roll", (3,)))  # no TN yet
    game.apply(("tn", (0,)))
    game.apply(("mod", ("aura", 3)))
    assert game.tn_final is None
    assert raises(game.apply, ("roll", (6, 6)))
    assert raises(game.odds)


def test_roll_count_and_reroll():
    game = tm.Game()
    game.apply(("tn", (4,)))
    game.apply(tm.roll(game, 4, scripted([3, 5, 0, 2])))  # 4 6 1 3
    assert game.successes == 2
    event = tm.reroll(game, 3, scripted([0]))  # the 3 becomes a 1: the new result stands
    assert event == ("reroll", (3, 1))
    game.apply(event)
    assert game.successes == 2 and game.rerolls[3] == 1
    events = tm.reroll_failures(game, scripted([5, 4]))
    assert events == [("reroll", (2, 6)), ("reroll", (3, 5))]
    for e in events:
        game.apply(e)
    assert game.successes == 4
    assert raises(game.apply, ("reroll", (4, 3)))
    assert raises(tm.reroll, game, 9, scripted([0]))


def test_odds_before_and_after_reroll_rule():
    game = tm.Game()
    game.apply(("tn", (5,)))
    game.apply(("mod", ("a", 1)))
    tn, p, dist = game.odds(4)
    assert tn == 4 and p == (1, 2) and dist == ((1, 4, 6, 4, 1), 16)
    game.apply(("rule", (tm.RULE_FAILURES,)))
    tn, p, dist = game.odds(2)
    assert p == (3, 4) and dist == ((1, 6, 9), 16)


def test_rolloff_ties_are_thrown_again():
    game = tm.Game()
    first = tm.roll_off(game, scripted([2, 3, 4, 1]))  # 3+4 vs 5+2: tie
    game.apply(first)
    assert game.rolloff_winner == -1 and game.rolloff_in == 3 and game.rolloff_throws == 1
    game.apply(tm.roll_off(game, scripted([0, 0, 5, 5])))  # 2 vs 12
    assert game.rolloff_winner == 1 and game.rolloff_throws == 2
    game.apply(("rolloff", (6, 6, 1, 1)))  # a new roll-off starts after a decided one
    assert game.rolloff_winner == 0 and game.rolloff_throws == 1
    assert raises(game.apply, ("rolloff", (6, 6)))


def test_rolloff_three_players_only_tied_throw_again():
    settings = Settings(tm.SETTINGS, {"tests.players": 3})
    game = tm.Game(settings)
    game.apply(("rolloff", (6, 5, 1, 1, 5, 6)))  # players 0 and 2 tie on 11
    assert game.rolloff_in == 5 and game.rolloff_winner == -1
    assert raises(game.apply, ("rolloff", (1, 1, 1, 1, 1, 1)))  # only two throw now
    game.apply(("rolloff", (1, 2, 3, 4)))
    assert game.rolloff_winner == 2
    events = tm.roll_off_all(game, Seeded(3).randbelow)
    assert len(events) >= 1 and len(events[0][1]) == 6


def test_missing_value_is_named():
    settings = Settings(tm.SETTINGS)
    settings.set("tests.players", None)  # as if the player had cleared it
    game = tm.Game(settings)
    try:
        game.apply(("rolloff", (1, 2, 3, 4)))
    except MissingValue as missing:
        assert missing.args[0] == "tests.players"
    else:
        raise AssertionError("no MissingValue")


def _session(seed, count, keep=True):
    """A seeded bot uses the Tests mode; return (events, game). keep=False only counts them."""
    source = Seeded(seed)
    game = tm.Game()
    events = []
    done = [0]

    def add(event):
        game.apply(event)
        done[0] += 1
        if keep:
            events.append(event)

    add(("new_game", ("tests",)))
    add(("set", ("tests.players", 2)))
    while done[0] < count:
        choice = source.randbelow(10)
        if choice == 0 or game.tn is None:
            add(("tn", (source.randbelow(5) + 2,)))
        elif choice == 1:
            add(
                (
                    "mod",
                    (("aim", "cover", "aura")[source.randbelow(3)], source.randbelow(5) - 2 or 1),
                )
            )
        elif choice == 2 and game.mod_names:
            add(("unmod", (game.mod_names[0],)))
        elif choice == 3 and game.n_dice:
            add(tm.reroll(game, source.randbelow(game.n_dice), source.randbelow))
        elif choice == 4:
            add(tm.roll_off(game, source.randbelow))
        elif choice == 5:
            add(tm.d3(source.randbelow) if source.randbelow(2) else tm.d3_plus_1(source.randbelow))
        elif choice == 6:
            add(("rule", (source.randbelow(3),)))
        elif game.tn_final is not None:
            add(tm.roll(game, source.randbelow(6) + 1, source.randbelow))
    return events, game


def test_whole_session_with_undo_at_every_step():
    events, _game = _session(4, 120)
    check_events(events)
    kinds = set(e[0] for e in events)
    for kind in ("tn", "mod", "roll", "reroll", "rolloff", "rule"):
        assert kind in kinds, kind
    _undo_every_step(events)


def test_undo_through_the_journal():
    from dicepod import journalfix

    events, game = _session(8, 40)
    raw = events + [("tn", (2,)), ("undo", ())]
    assert _snap(tm.fold(journalfix.effective(raw))) == _snap(game)


def result_distributions():
    out = []
    for n in (1, 3, 6):
        for tn in (2, 4, 6):
            for rule in (tm.RULE_NONE, tm.RULE_FAILURES, tm.RULE_ONE):
                nums, den = tm.distribution(n, tn, rule)
                out.append([n, tn, rule, list(nums), den])
    return out


def result_session():
    events, game = _session(21, 200)
    return [list(e[1]) for e in events[-10:]], _snap(game)


def _decoded(events):
    """The events as the journal gives them back: JSON-decoded, data as lists."""
    return [tuple(json.loads(json.dumps([e[0], list(e[1])]))) for e in events]


def test_fold_of_journal_decoded_events_is_the_same():
    events, game = _session(4, 150)
    assert _snap(tm.fold(_decoded(events), None)) == _snap(game)


def test_malformed_events_are_value_errors():
    for event in [
        ("tn", ("x",)),
        ("roll", 5),
        ("set", ("tests.players", None)),
        ("bogus", ()),
        ("tn",),
        None,
        ("mod", (1, 2)),
    ]:
        game = tm.Game()
        try:
            game.apply(event)
        except ValueError:
            continue
        raise AssertionError("accepted %r" % (event,))
