"""dicepod.rules.odds: exact bust odds for every number of re-rolled dice and every kept
multiset, under both settings of "kept dice alone can score", against brute-force enumeration
of the 6**m ordered rolls with a naive (every subset of positions) bust test; the keep hint.
Portable: runs under CPython (pytest) and real MicroPython (tests/mp_runner.py). The brute force
runs on CPython only; result_every_state carries the comparison to MicroPython."""

from checks import MICROPYTHON, raises, skip

from dicepod.rules import fraction, odds
from dicepod.rules.dice import multisets


def _states():
    """Yield (m re-rolled, kept sorted tuple) for every state of six dice."""
    for m in range(1, 7):
        for k in range(7 - m):
            for kept in multisets(k):
                yield m, kept


# -- brute force: ordered rolls, every subset of positions -----------------------------------


def _scoring(values):
    """The rulebook's scoring rolls, checked literally on a sorted list of values."""
    if values == [6] or values == [6, 6]:
        return True
    if 6 in values or len(values) < 3:
        return False
    if len(values) == 3 and values[0] == values[1] == values[2]:
        return True
    return all(values[i + 1] == values[i] + 1 for i in range(len(values) - 1))


def _naive_bust(rolled, kept, kept_can_score):
    """Bust unless some subset of positions is a scoring roll (holding a re-rolled die, unless
    kept dice alone may score)."""
    dice = tuple(rolled) + tuple(kept)
    for bits in range(1, 1 << len(dice)):
        if not kept_can_score and not bits & ((1 << len(rolled)) - 1):
            continue  # only kept dice in this subset
        if _scoring(sorted(dice[i] for i in range(len(dice)) if bits >> i & 1)):
            return False
    return True


def test_exact_odds_match_brute_force_over_ordered_rolls():
    if MICROPYTHON:
        skip("CPython only: result_every_state carries the comparison to MicroPython")
    memo = {}
    checked = 0
    for m in range(1, 7):
        ordered = []
        for index in range(6**m):
            roll = []
            for _ in range(m):
                roll.append(index % 6 + 1)
                index //= 6
            ordered.append(tuple(sorted(roll)))
        assert len(ordered) == 6**m
        for k in range(7 - m):
            for kept in multisets(k):
                for setting in (0, 1):
                    busts = 0
                    for roll in ordered:
                        # With kept dice allowed to score, only the dice together matter.
                        key = (roll, kept, 0) if not setting else (tuple(sorted(roll + kept)), 1)
                        if key not in memo:
                            memo[key] = _naive_bust(roll, kept, setting)
                        busts += memo[key]
                    assert odds.bust_count(m, _counts(kept), setting) == busts, (m, kept)
                    g = _gcd(busts, 6**m)
                    assert odds.bust(m, kept, setting) == (busts // g, 6**m // g)
                    checked += 1
    assert checked == 2 * 792


def _counts(dice):
    c = [0] * 7
    for d in dice:
        c[d] += 1
    return c


def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


# -- known values, the hint, bad input -------------------------------------------------------


def test_known_values():
    assert odds.bust(1) == (5, 6)  # only a 6 scores
    assert odds.bust(2) == (25, 36)  # two dice: still only a 6
    assert odds.bust(3) == (17, 36)  # 125 six-free rolls - 5 triples - 18 straights = 102/216
    assert odds.bust(2, (1, 1)) == (7, 18)  # no 6, no 1, and not both 2 and 3: 16 - 2 = 14/36
    assert odds.bust(1, (6,)) == (5, 6)
    assert odds.bust(1, (6,), 1) == (0, 1)
    assert odds.bust(1, (1, 2, 3)) == (1, 6)  # 1-2-3 is all kept: 1 to 4 extend a run, 5 busts
    assert odds.bust(1, (1, 2, 3), 1) == (0, 1)
    assert odds.bust(1, (2, 3, 4)) == (0, 1)  # 1 to 5 each make a straight with it, 6 scores
    assert odds.bust(6, (), 1) == odds.bust(6)


def test_gcd_reduce_text():
    assert fraction.gcd(12, 18) == 6 and fraction.gcd(7, 0) == 7 and fraction.gcd(0, 5) == 5
    assert fraction.reduce(102, 216) == (17, 36) and fraction.reduce(0, 36) == (0, 1)
    assert fraction.text((17, 36)) == "17/36"


def test_keep_hint():
    # Keeping two 1s and re-rolling two is worse than re-rolling all four.
    options = odds.keep_options((1, 1, 4, 5))
    assert options[0] == ((), odds.bust(4))
    assert len(options) == 3 * 2 * 2 - 1  # every sub-multiset but keeping all four
    keys = [f[0] * 46656 // f[1] for _k, f in options]
    assert keys == sorted(keys)
    assert odds.best_keep((1, 1), 0, extra=2) == ((), odds.bust(4))
    # With kept dice allowed to score, keeping a 6 makes the roll safe.
    assert odds.best_keep((6, 2, 3), 1) == ((6,), (0, 1))
    assert odds.best_keep((6, 2, 3))[0] == ()
    assert odds.keep_options((), 0, extra=3) == [((), odds.bust(3))]
    assert odds.keep_options((5,)) == [((), (5, 6))]


def test_keep_options_are_every_keep_by_risk_size_and_dice():
    """keep_keys (a table looked up, sub-multisets stepped with an index kept as they go) lists
    what the definition does: every distinct choice of dice to keep with 1 to 6 dice re-rolled,
    its bust(), ordered by risk, then dice kept, then the kept dice. Every free set of up to six
    dice, both settings, every number of unseen dice besides."""
    if MICROPYTHON:
        skip("CPython only: a few thousand sets, the unix port runs keep_hint's")
    checked = 0
    for n in range(7):
        for dice in multisets(n):
            for setting in (0, 1):
                for extra in range(7 - n):
                    if not n + extra:
                        continue
                    want = set()
                    for bits in range(1 << n):
                        kept = tuple(dice[i] for i in range(n) if bits >> i & 1)
                        if n + extra - len(kept) >= 1:
                            want.add(kept)
                    rows = []
                    for kept in want:
                        risk = odds.bust(n + extra - len(kept), kept, setting)
                        rows.append((risk[0] * 46656 // risk[1], len(kept), kept, risk))
                    rows.sort()
                    options = odds.keep_options(dice, setting, extra)
                    assert options == [(kept, risk) for _r, _n, kept, risk in rows], dice
                    keys = odds.keep_keys(tuple(reversed(dice)), setting, extra)
                    assert [odds.keep_option(dice, key, extra) for key in keys] == options
                    checked += 1
    assert checked == 3430


def test_bad_input():
    assert raises(odds.bust, 0)
    assert raises(odds.bust, 7)
    assert raises(odds.bust, 1, (1, 1, 1, 1, 1, 1))
    assert raises(odds.bust, 1, (7,))
    assert raises(odds.keep_options, (1, 9))
    assert raises(odds.keep_keys, (1, 2, 3), 0, 4)  # seven dice


def result_every_state():
    """A digest of every exact fraction (both settings), plus a few values."""
    digest = 2166136261
    total = [0, 0]
    for m, kept in _states():
        for setting in (0, 1):
            num, den = odds.bust(m, kept, setting)
            for part in (m, num, den):
                digest = ((digest ^ (part & 0xFFFF)) * 16777619) & 0xFFFFFFFF
            total[setting] += num * (46656 // den)
    return {
        "digest": digest,
        "total": total,
        "six": list(odds.bust(6)),
        "hint": [list(odds.best_keep((1, 1, 2, 5, 5))[0]), list(odds.best_keep((6, 3), 1)[0])],
    }
