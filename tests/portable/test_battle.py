"""dicepod.rules.battle: scoring rolls in every roll of six dice (against a deliberately naive
classifier), set-aside choices, pushing your luck, bust, ALL OUT!, heroes, win check and best of
three, all driven through events with scripted randomness; undo = refold without the last event.
Portable: runs under CPython (pytest) and real MicroPython (tests/mp_runner.py). The exhaustive
naive comparison runs on CPython only; MicroPython proves it classifies identically through the
digest in result_every_roll_of_six_dice."""

import json

from checks import MICROPYTHON, skip
from seeded import Seeded, scripted

from dicepod.rules import battle, scoring
from dicepod.rules.dice import counts

# -- a deliberately naive classifier: try every subset of the dice --------------------------


def _naive_kind(values):
    """The rulebook's definitions, one by one, for a sorted list of values (or None)."""
    if values == [6]:
        return "lucky_six"
    if values == [6, 6]:
        return "double_six"
    if 6 in values or len(values) < 3:
        return None
    if len(values) == 3 and values[0] == values[1] == values[2]:
        return "three_of_a_kind"
    for i in range(len(values) - 1):
        if values[i + 1] != values[i] + 1:
            return None
    return "straight"


def _naive_subsets(dice):
    """Every (bits, kind, values) for subsets of dice (by position) that are a scoring roll."""
    out = []
    for bits in range(1, 1 << len(dice)):
        values = sorted(dice[i] for i in range(len(dice)) if bits >> i & 1)
        found = _naive_kind(values)
        if found:
            out.append((bits, found, tuple(values)))
    return out


def _naive_all_out(subsets, left):
    """Can the positions in `left` be split exactly into scoring subsets?"""
    if not left:
        return True
    lowest = left & -left
    for bits, _kind, _values in subsets:
        if bits & lowest and bits & left == bits:
            if _naive_all_out(subsets, left & ~bits):
                return True
    return False


def naive(dice):
    """Return (bust, set of (kind, values), all_out) by brute force over subsets."""
    subsets = _naive_subsets(dice)
    found = {(k, v) for _b, k, v in subsets}
    return not found, found, _naive_all_out(subsets, (1 << len(dice)) - 1)


def _engine(dice):
    combos = scoring.scoring(dice)
    found = {(scoring.kind(c), c) for c in combos}
    assert len(found) == len(combos)
    return scoring.is_bust(dice), found, scoring.all_out(counts(dice))


def test_every_roll_of_up_to_six_dice_matches_the_naive_classifier():
    if MICROPYTHON:
        skip("CPython only: result_every_roll_of_six_dice carries it to MicroPython")
    memo = {}
    for n in range(1, 7):
        for index in range(6**n):
            dice = []
            for _ in range(n):
                dice.append(index % 6 + 1)
                index //= 6
            dice = tuple(dice)
            key = tuple(sorted(dice))
            if key not in memo:
                memo[key] = naive(key)
            assert _engine(dice) == memo[key], dice
    assert len(memo) == 6 + 21 + 56 + 126 + 252 + 462


def _digest_all_rolls():
    """Classify all 46,656 ordered rolls of six dice, streaming: FNV-1a over (mask, all_out),
    counts of bust / ALL OUT! rolls and of rolls holding each scoring roll."""
    digest = 2166136261
    bust = all_out = 0
    per_combo = [0] * len(scoring.COMBOS)
    c = [0] * 7
    for a in range(1, 7):
        c[a] += 1
        for b in range(1, 7):
            c[b] += 1
            for d in range(1, 7):
                c[d] += 1
                for e in range(1, 7):
                    c[e] += 1
                    for f in range(1, 7):
                        c[f] += 1
                        for g in range(1, 7):
                            c[g] += 1
                            found = scoring.mask(c)
                            out = scoring.all_out(c)
                            code = found << 1 | out
                            digest = ((digest ^ code) * 16777619) & 0xFFFFFFFF
                            digest = ((digest ^ (code >> 8)) * 16777619) & 0xFFFFFFFF
                            if not found:
                                bust += 1
                            if out:
                                all_out += 1
                            for i in range(len(per_combo)):
                                if found >> i & 1:
                                    per_combo[i] += 1
                            c[g] -= 1
                        c[f] -= 1
                    c[e] -= 1
                c[d] -= 1
            c[b] -= 1
        c[a] -= 1
    return {"digest": digest, "bust": bust, "all_out": all_out, "per_combo": per_combo}


def result_every_roll_of_six_dice():
    return _digest_all_rolls()


def test_digest_counts_agree_with_naive():
    if MICROPYTHON:
        skip("CPython only: the naive classifier over all 6**6 rolls")
    got = _digest_all_rolls()
    bust = all_out = 0
    per = {}
    for index in range(6**6):
        dice = []
        for _ in range(6):
            dice.append(index % 6 + 1)
            index //= 6
        is_bust, found, out = _memo_naive(dice)
        bust += is_bust
        all_out += out
        for item in found:
            per[item[1]] = per.get(item[1], 0) + 1
    assert got["bust"] == bust and got["all_out"] == all_out
    assert got["per_combo"] == [per.get(c, 0) for c in scoring.COMBOS]
    # Sanity: P(bust) for six dice is small but real; ALL OUT! is rarer than not.
    assert 0 < bust < 46656 // 10 and 0 < all_out < 46656 // 2


_NAIVE = {}


def _memo_naive(dice):
    key = tuple(sorted(dice))
    if key not in _NAIVE:
        _NAIVE[key] = naive(key)
    return _NAIVE[key]


def test_scoring_examples():
    assert scoring.scoring((1, 2, 3, 6, 6, 4)) == [(6,), (6, 6), (1, 2, 3), (1, 2, 3, 4), (2, 3, 4)]
    assert scoring.scoring((2, 2, 2, 2, 4, 4)) == [(2, 2, 2)]
    assert scoring.scoring((6, 6, 6, 1, 1, 5)) == [(6,), (6, 6)]  # no Three of a Kind of 6s
    assert scoring.scoring((4, 5, 6, 1, 1, 2)) == [(6,)]  # 4-5-6 is not a straight
    assert scoring.is_bust((1, 1, 2, 2, 4, 5))
    assert scoring.all_out(counts((1, 1, 1, 2, 3, 4)))  # 1-1-1 + 2-3-4
    assert scoring.all_out(counts((1, 2, 3, 3, 4, 5)))  # 1-2-3 + 3-4-5
    assert not scoring.all_out(counts((1, 2, 3, 4, 4, 6)))
    assert scoring.all_out(counts((6,) * 6))
    assert scoring.name((6,)) == "Lucky Six" and scoring.name((6, 6)) == "Double Six"
    assert scoring.name((4, 4, 4)) == "Three 4s"
    assert scoring.name((1, 2, 3, 4)) == "Straight 1-2-3-4"
    for combo in scoring.COMBOS:  # every one named by its kind and values
        kind = scoring.kind_index(combo)
        if kind == 2:
            want = "Three %ds" % combo[0]
        elif kind == 3:
            want = "Straight " + "-".join([str(v) for v in combo])
        else:
            want = ("Lucky Six", "Double Six")[kind]
        assert scoring.name(combo) == want, (combo, scoring.name(combo))
    assert [scoring.kind(c) for c in ((6,), (6, 6), (5, 5, 5), (3, 4, 5))] == [
        "lucky_six",
        "double_six",
        "three_of_a_kind",
        "straight",
    ]


def test_bust_with_kept_dice_both_settings():
    # Kept 6 and a re-rolled 3: only the kept 6 scores.
    assert scoring.is_bust((3,), (6,))
    assert not scoring.is_bust((3,), (6,), 1)
    # A re-rolled die completing a run or a Three of a Kind with kept dice scores.
    assert not scoring.is_bust((3,), (1, 2))
    assert not scoring.is_bust((1,), (1, 1))
    assert not scoring.is_bust((2,), (2, 3, 4))  # 2-3-4 can use the re-rolled 2
    assert scoring.is_bust((5, 5), (1, 2, 3))  # 1-2-3 is all kept
    assert not scoring.is_bust((5, 5), (1, 2, 3), 1)
    assert not scoring.is_bust((4, 5), (1, 2, 3))  # 3-4-5 uses them


def test_set_aside_choices_and_two_sixes_setting():
    dice = (6, 6, 1, 2, 3, 5)
    every = scoring.set_aside_choices(dice)
    assert ((6, 6),) in every and ((6,), (6,)) in every and ((6,),) in every
    assert ((6,), (6,), (1, 2, 3)) in every and ((6, 6), (1, 2, 3)) in every
    assert len(set(every)) == len(every)
    double = scoring.set_aside_choices(dice, two_sixes=1)
    assert ((6,), (6,)) not in double and ((6, 6),) in double and ((6,),) in double
    lucky = scoring.set_aside_choices(dice, two_sixes=2)
    assert ((6, 6),) not in lucky and ((6,), (6,)) in lucky
    assert scoring.set_aside_choices((1, 1, 2, 4, 5, 5)) == []
    # With kept dice (default setting) every choice uses a re-rolled die.
    kept = scoring.set_aside_choices((6, 1, 2, 3), kept=(6,))
    assert ((6,),) not in kept and ((1, 2, 3),) in kept and ((6,), (1, 2, 3)) in kept
    assert ((6,),) in scoring.set_aside_choices((6, 1, 2, 3), kept=(6,), kept_can_score=1)


# -- the game through events -----------------------------------------------------------------


def _text(game):
    """The game's whole state as compact JSON (lists only, so the same bytes everywhere)."""
    return json.dumps(game.state(), separators=(",", ":"))


# The board and the reading these cases were written for: 3 rows per half (the players'
# board: the device asks, BG-13) and kept dice that cannot score alone (the "no" reading of
# BG-9; the device's default is yes, see test_conform_battle.py).
BOARD = {battle.ROWS: 3, battle.KEPT_CAN_SCORE: 0, "battle.table": 0}  # moves not refereed


class Recorder:
    """Applies events to a Game, remembering every event and the state after it."""

    def __init__(self, settings=BOARD, every=1):
        self.settings = settings
        self.game = battle.Game(settings)
        self.events = []
        self.every = every  # keep the state after every `every`-th event (heap on MicroPython)
        self.states = {0: _text(self.game)}

    def do(self, event):
        json.dumps([event[0], list(event[1])], separators=(",", ":"))  # canonical bytes exist
        self.game.apply(event)
        self.events.append(event)
        if len(self.events) % self.every == 0:
            self.states[len(self.events)] = _text(self.game)
        return self.game

    def reject(self, event):
        """The event must be refused with ValueError and leave the state as it was."""
        before = _text(self.game)
        try:
            self.game.apply(event)
        except ValueError as err:
            assert str(err), event
        else:
            raise AssertionError("accepted illegal event %r" % (event,))
        assert _text(self.game) == before, event

    def check_undo(self):
        """Undo = fold again without the last event: refolding every prefix gives the state
        recorded at that step, from a fresh Game each time."""
        for k in self.states:
            assert _text(battle.fold(self.events[:k], self.settings)) == self.states[k], k


def _faces(*dice):
    """Scripted randbelow values that roll exactly these dice."""
    return scripted([d - 1 for d in dice])


def test_scripted_turns_bust_and_push_your_luck():
    r = Recorder()
    g = r.game
    assert g.phase == battle.ROLL and g.player == 0 and g.turn == 1
    r.reject(battle.end_turn())
    r.reject(battle.set_aside(((6,),)))
    r.reject(battle.advance(0, 0))
    r.do(battle.roll(g, _faces(6, 6, 1, 2, 3, 5)))
    assert g.phase == battle.CHOOSE and g.dice == (6, 6, 1, 2, 3, 5)
    assert ((6, 6), (1, 2, 3)) in g.choices() and ((6,), (6,), (1, 2, 3)) in g.choices()
    r.reject(battle.set_aside(((1, 2),)))  # not a scoring roll
    r.reject(battle.set_aside(((6,), (6,), (6,))))  # only two 6s
    r.reject(battle.set_aside(((4, 5, 6),)))
    r.reject(("set_aside", ()))
    r.reject(battle.actions())  # must set aside first
    r.do(battle.set_aside(((6,), (6,), (1, 2, 3))))  # two Lucky Sixes, not a Double Six
    assert g.aside == [(6,), (6,), (1, 2, 3)] and g.dice == (5,) and g.phase == battle.DECIDE
    r.reject(battle.set_aside(((5, 5, 5),)))
    r.reject(("reroll", (1, 5)))  # keeping the only die re-rolls nothing
    r.reject(("reroll", (0, 4, 4)))  # one free die, two new values
    r.reject(("reroll", (1, 3, 4)))  # no free 3 to keep
    r.do(battle.reroll(g, (), _faces(4)))
    assert g.phase == battle.BUST and g.dice == (4,) and g.rolled() == (4,)
    r.reject(battle.set_aside(((4,),)))
    r.reject(battle.end_turn())
    r.do(battle.bust())
    assert g.lost == ((6,), (6,), (1, 2, 3)) and g.aside == []
    assert g.player == 1 and g.turn == 2 and g.phase == battle.ROLL

    # Player 1 keeps two 1s and hopes for a third.
    r.do(battle.roll(g, _faces(1, 1, 2, 5, 5, 6)))
    assert g.lost == ()
    r.do(battle.set_aside(((6,),)))
    assert g.dice == (1, 1, 2, 5, 5)
    r.reject(battle.reroll(g, (1, 1, 1), _faces(3, 4)))  # only two 1s are free
    r.do(battle.reroll(g, (1, 1), _faces(1, 3, 4)))
    assert g.dice == (1, 1, 1, 3, 4) and g.kept == (1, 1) and g.phase == battle.CHOOSE
    assert g.choices() == [((1, 1, 1),)]
    r.do(battle.set_aside(((1, 1, 1),)))
    assert g.dice == (3, 4) and g.aside == [(6,), (1, 1, 1)]
    r.do(battle.actions())
    assert g.phase == battle.ACTIONS
    r.reject(battle.reroll(g, (), _faces(1, 2)))
    r.do(battle.advance(1, 0, 2))
    r.do(battle.advance(1, 4))
    r.reject(battle.retreat(0, 2))  # that hero has not moved yet
    r.do(battle.retreat(1, 0))
    assert g.heroes[1] == [1, 0, 0, 0, 1] and g.score(1) == 2
    r.check_undo()


def test_kept_dice_rule_no_and_yes():
    r = Recorder()
    g = r.game
    r.do(battle.roll(g, _faces(6, 6, 2, 2, 4, 5)))
    r.do(battle.set_aside(((6,),)))
    # Keep the other 6 unrolled; re-rolled 1 1 3 5 score nothing themselves: bust.
    r.do(battle.reroll(g, (6,), _faces(1, 1, 3, 5)))
    assert g.phase == battle.BUST
    r.check_undo()

    settings = battle.Game(BOARD).settings
    settings.set(battle.KEPT_CAN_SCORE, 1)
    r = Recorder(settings)
    g = r.game
    r.do(battle.roll(g, _faces(6, 6, 2, 2, 4, 5)))
    r.do(battle.set_aside(((6,),)))
    r.do(battle.reroll(g, (6,), _faces(1, 1, 3, 5)))
    assert g.phase == battle.CHOOSE and g.choices() == [((6,),)]
    r.do(battle.set_aside(((6,),)))
    r.check_undo()

    # "No" again: a non-bust roll with a kept 6 must set aside something re-rolled.
    r = Recorder()
    g = r.game
    r.do(battle.roll(g, _faces(6, 6, 2, 2, 4, 5)))
    r.do(battle.set_aside(((6,),)))
    r.do(battle.reroll(g, (6,), _faces(1, 2, 3, 5)))
    assert g.phase == battle.CHOOSE
    r.reject(battle.set_aside(((6,),)))
    r.do(battle.set_aside(((6,), (1, 2, 3))))
    assert g.dice == (5,)
    r.check_undo()


def test_two_sixes_setting_in_game():
    for value, good, bad in ((1, ((6, 6),), ((6,), (6,))), (2, ((6,), (6,)), ((6, 6),))):
        r = Recorder()
        g = r.game
        r.do(("set", (battle.TWO_SIXES, value)))
        r.do(battle.roll(g, _faces(6, 6, 1, 1, 4, 5)))
        r.reject(battle.set_aside(bad))
        r.do(battle.set_aside(good))
        r.check_undo()


def _all_out_turn(r):
    g = r.game
    r.do(battle.roll(g, _faces(6, 6, 1, 2, 3, 4)))
    r.do(battle.set_aside(((6, 6), (1, 2, 3, 4))))
    return g


def test_all_out_extra_turn():
    r = Recorder()
    g = _all_out_turn(r)
    assert g.all_out and g.dice == () and g.extra_turn() and not g.can_roll_again()
    r.reject(("reroll", (0,)))
    r.reject(battle.roll(g, _faces(1, 2, 3, 4, 5, 6)))
    r.do(battle.actions())
    r.do(battle.advance(0, 1))
    r.do(battle.end_turn())
    assert g.player == 0 and g.turn == 2 and g.phase == battle.ROLL and not g.all_out
    assert g.aside == []
    # The extra turn is an ordinary turn: no ALL OUT! now, so the turn passes.
    r.do(battle.roll(g, _faces(6, 1, 1, 4, 4, 2)))
    r.do(battle.set_aside(((6,),)))
    r.do(battle.actions())
    r.do(battle.end_turn())
    assert g.player == 1 and g.turn == 3
    r.check_undo()


def test_all_out_roll_again_and_trigger_off():
    settings = battle.Game(BOARD).settings
    settings.set(battle.ALL_OUT_EFFECT, 1)
    r = Recorder(settings)
    g = _all_out_turn(r)
    assert g.all_out and g.can_roll_again() and not g.extra_turn()
    r.do(battle.roll(g, _faces(5, 5, 5, 3, 1, 1)))  # all six again, set-aside rolls stay
    assert g.aside == [(6, 6), (1, 2, 3, 4)] and g.phase == battle.CHOOSE and not g.all_out
    r.do(battle.set_aside(((5, 5, 5),)))
    r.do(battle.reroll(g, (), _faces(2, 2, 4)))  # 1 1 3 re-rolled as 2 2 4: bust
    assert g.phase == battle.BUST
    r.do(battle.bust())
    assert g.lost == ((6, 6), (1, 2, 3, 4), (5, 5, 5)) and g.player == 1
    # Player 1 goes ALL OUT! and stops: no extra turn with this effect.
    _all_out_turn(r)
    r.do(battle.actions())
    r.do(battle.end_turn())
    assert g.player == 0
    r.check_undo()

    r = Recorder()
    g = r.game
    r.do(("set", (battle.ALL_OUT, 0)))
    _all_out_turn(r)
    assert not g.all_out and not g.extra_turn() and not g.can_roll_again()
    r.reject(battle.roll(g, _faces(1, 2, 3, 4, 5, 6)))
    r.do(battle.actions())
    r.do(battle.end_turn())
    assert g.player == 1
    r.check_undo()


def _quick_turn(r, moves=()):
    """Roll a Lucky Six, set it aside, take the given moves, end the turn."""
    g = r.game
    r.do(battle.roll(g, _faces(6, 1, 1, 2, 4, 5)))
    r.do(battle.set_aside(((6,),)))
    r.do(battle.actions())
    for move in moves:
        r.do(move)
    r.do(battle.end_turn())


def test_heroes_score_and_win_check():
    r = Recorder()
    g = r.game
    r.reject(battle.advance(0, 0))
    r.do(battle.roll(g, _faces(6, 1, 1, 2, 4, 5)))
    r.do(battle.set_aside(((6,),)))
    r.do(battle.actions())
    r.reject(battle.advance(0, 5))  # heroes 0..4
    r.reject(battle.advance(2, 0))  # players 0 and 1
    r.reject(battle.advance(0, 0, 0))
    r.reject(battle.advance(0, 0, 6))  # 3 rows a half: at most 5 spaces
    r.reject(battle.retreat(0, 0))
    r.reject(("advance", (0, 0)))
    r.reject(("advance", (0, "a", 1)))
    r.do(battle.advance(0, 0, 5))
    r.do(battle.advance(0, 1, 3))
    r.do(battle.retreat(0, 0, 1))
    assert g.heroes[0] == [4, 3, 0, 0, 0] and g.score(0) == 7 and g.across(0) == 2
    r.do(battle.end_turn())  # two heroes across: no win
    assert g.winner is None and g.player == 1
    _quick_turn(r, [battle.advance(1, h, 3) for h in range(3)])  # 3 across, 9 > 7: wins
    assert g.winner == 1 and g.phase == battle.OVER and g.results == [(7, 9)]
    r.reject(battle.roll(g, _faces(1, 2, 3, 4, 5, 6)))
    r.reject(battle.next_game(2))
    r.check_undo()


def test_win_needs_three_across_and_higher_score():
    r = Recorder()
    g = r.game
    _quick_turn(r, [battle.advance(0, 0, 5), battle.advance(0, 1, 5)])  # 10 points, 2 across
    _quick_turn(r, [battle.advance(1, h, 3) for h in range(3)])  # 3 across, 9 < 10
    assert g.winner is None and g.player == 0
    _quick_turn(r, [battle.advance(0, 2, 3)])  # 3 across, 13 > 9
    assert g.winner == 0 and g.results == [(13, 9)]
    r.check_undo()


def test_best_of_three_with_two_rows():
    settings = battle.Game(BOARD).settings
    settings.set(battle.ROWS, 2)
    r = Recorder(settings)
    g = r.game
    assert g.rows() == 2
    _quick_turn(r, [battle.advance(0, h, 2) for h in range(3)])  # 2 rows: advance 2 is across
    assert g.winner == 0 and g.results == [(6, 0)]
    r.reject(battle.advance(0, 0, 1))
    r.do(battle.next_game(1))
    assert g.game_number == 2 and g.player == 1 and g.heroes == [[0] * 5, [0] * 5]
    assert g.winner is None and g.phase == battle.ROLL
    _quick_turn(r, [battle.advance(1, h, 3) for h in range(3)])
    r.reject(battle.advance(1, 0, 1))  # game over: nothing moves
    assert g.winner == 1 and g.results == [(6, 0), (0, 9)] and not g.series_over()
    r.do(battle.next_game(0))
    _quick_turn(r, [battle.advance(0, h, 2) for h in range(4)])
    assert g.results == [(6, 0), (0, 9), (8, 0)] and g.series_over()
    assert g.totals() == [14, 9] and g.series_winner() == 0
    r.reject(battle.next_game(1))
    r.reject(("set", (battle.ROWS, 1)))  # heroes stand 2 spaces forward: 1 row is too few
    r.check_undo()


def test_settings_events_and_bad_events():
    r = Recorder()
    g = r.game
    r.do(("new_game", ("battle",)))
    r.do(("set", (battle.ROWS, 4)))
    assert g.rows() == 4
    r.reject(("new_game", ("battle",)))
    r.reject(("set", (battle.ROWS, 0)))
    r.reject(("set", ("battle.nope", 1)))
    r.reject(("set", (battle.ROWS,)))
    r.reject(("dance", ()))
    r.reject((["roll"], (1, 2, 3, 4, 5, 6)))
    r.reject((None, ()))
    r.reject(("roll", None))
    r.reject(("set", (battle.ROWS, None)))
    r.reject(("set", (battle.ROWS, "3")))
    r.reject(("set_aside", ("x",)))
    r.reject(("next_game", ("x",)))
    r.reject(("roll",))
    r.reject("roll")
    r.reject(("roll", (1, 2, 3, 4, 5)))
    r.reject(("roll", (1, 2, 3, 4, 5, 7)))
    r.reject(("roll", (1, 2, 3, 4, 5, 6, 6)))
    r.reject(("roll", (0, 2, 3, 4, 5, 6)))
    r.reject(battle.bust())
    _quick_turn(r, [battle.advance(0, 0, 7)])  # 4 rows: up to 7 spaces
    r.reject(("bust", (1,)))
    r.check_undo()
    # The settings passed in are copied: the game changes only its own.
    settings = battle.Game(BOARD).settings
    game = battle.fold([("set", (battle.ROWS, 5))], settings)
    assert game.rows() == 5 and settings.get(battle.ROWS) == 3
    fresh = battle.Game(None)
    assert fresh.settings.get(battle.TWO_SIXES) == 0
    assert fresh.settings.get(battle.KEPT_CAN_SCORE) == 1  # the literal reading (BG-9)
    assert fresh.settings.values[battle.ROWS] is None  # asked (BG-13)
    assert [s[0] for s in battle.SETTINGS][:6] == [
        battle.TWO_SIXES,
        battle.KEPT_CAN_SCORE,
        battle.ALL_OUT,
        battle.ALL_OUT_EFFECT,
        battle.ROWS,
        "battle.table",
    ]


def test_random_games_fold_and_undo():
    """Seeded random play through the command functions: every event accepted is legal, and
    refolding any prefix reproduces the state."""
    source = Seeded(99)
    pick = source.randbelow
    r = Recorder(every=8)
    g = r.game
    for _ in range(220):
        if g.phase == battle.ROLL or g.can_roll_again() and pick(2):
            r.do(battle.roll(g, pick))
        elif g.phase == battle.CHOOSE:
            options = g.choices()
            r.do(battle.set_aside(options[pick(len(options))]))
        elif g.phase == battle.BUST:
            r.do(battle.bust())
        elif g.phase == battle.DECIDE:
            if g.dice and pick(3):
                keep = tuple(d for d in g.dice if pick(3) == 0)
                if len(keep) == len(g.dice):
                    keep = keep[1:]
                r.do(battle.reroll(g, keep, pick))
            else:
                r.do(battle.actions())
        elif g.phase == battle.ACTIONS:
            player, hero = pick(2), pick(5)
            if pick(3) and player == g.player and g.heroes[player][hero] < 5:  # own (BG-12)
                r.do(battle.advance(player, hero))
            elif g.heroes[player][hero]:
                r.do(battle.retreat(player, hero))
            else:
                r.do(battle.end_turn())
        elif g.phase == battle.OVER:
            if g.series_over():
                break
            r.do(battle.next_game(pick(2)))
    assert len(r.events) > 100
    r.check_undo()
    assert battle.fold(r.events, BOARD).state() == g.state()
    # As the journal hands them back: canonical JSON bytes decoded into lists.
    lines = (json.dumps([k, list(d)], separators=(",", ":")) for k, d in r.events)
    assert _text(battle.fold((json.loads(line) for line in lines), BOARD)) == _text(g)


def result_scripted_game_states():
    r = Recorder()
    _all_out_turn(r)
    r.do(battle.actions())
    r.do(battle.advance(0, 2, 4))
    r.do(battle.end_turn())
    source = Seeded(5)
    r.do(battle.roll(r.game, source.randbelow))
    return [json.loads(r.states[k]) for k in sorted(r.states)]


def result_choices():
    return [
        [[list(c) for c in choice] for choice in scoring.set_aside_choices(dice)]
        for dice in ((6, 6, 6, 1, 2, 3), (1, 1, 2, 2, 3, 3), (1, 2, 3, 4, 5, 6))
    ]
