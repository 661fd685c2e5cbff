"""Exact Battle Game bust odds, and which dice to keep for the lowest risk. Pure: runs
unchanged on MicroPython and CPython.

P(bust) for re-rolling m dice next to kept dice is counted over multisets of the m new faces,
each weighted by its number of orderings m! / (c1! .. c6!), out of 6**m; never by listing the
6**m ordered rolls. Only multisets without a 6 and with at most two of a face can bust, so at
most 3**4 = 81 multisets are visited per state. Fractions are (numerator, denominator) int
pairs in lowest terms (dicepod.rules.fraction).

The bust rule matches dicepod.rules.scoring.is_bust: with kept_can_score 0 a new
roll busts when no scoring roll uses a re-rolled die; with 1, when the rolled and kept dice
together hold no scoring roll.
"""

from micropython import const

from dicepod.rules.dice import FACTORIAL, check, counts
from dicepod.rules.fraction import reduce

# 6**6: every probability here is a whole number of 46656ths (denominators divide it).
_ALL = const(46656)
_POWERS = const((1, 6, 36, 216, 1296, 7776, 46656))  # 6**m


def bust_count(m, kept_counts, kept_can_score=0):
    """Return how many of the 6**m ordered rolls of m dice bust next to the kept dice (given as
    a 7-slot count list)."""
    k1, k2, k3, k4, k5 = (
        kept_counts[1],
        kept_counts[2],
        kept_counts[3],
        kept_counts[4],
        kept_counts[5],
    )
    loose = kept_can_score or not (k1 or k2 or k3 or k4 or k5 or kept_counts[6])
    if loose and (kept_counts[6] or k1 >= 3 or k2 >= 3 or k3 >= 3 or k4 >= 3 or k5 >= 3):
        return 0  # the kept dice alone already score
    # A rolled 6 always scores; a rolled face v with v count (kept + rolled) >= 3 scores. So a
    # bust has no 6 and at most 2 - kept of each face. Each bust multiset counts its
    # orderings, m! / (c1! .. c5!): the divisor is built up a face at a time, and the last
    # face's count is what is left (its range found, not tried), so the innermost loop, where
    # a keep hint spends its time, does little.
    fact = FACTORIAL
    l1 = 2 - k1 if k1 < 2 else 0
    l2 = 2 - k2 if k2 < 2 else 0
    l3 = 2 - k3 if k3 < 2 else 0
    l4 = 2 - k4 if k4 < 2 else 0
    l5 = 2 - k5 if k5 < 2 else 0
    top = fact[m]
    total = 0
    for c1 in range(min(l1, m) + 1):
        r1 = m - c1
        p1 = c1 or k1
        d1 = fact[c1]
        for c2 in range(min(l2, r1) + 1):
            r2 = r1 - c2
            p2 = c2 or k2
            d2 = d1 * fact[c2]
            for c3 in range(min(l3, r2) + 1):
                r3 = r2 - c3
                p3 = c3 or k3
                if p1 and p2 and p3 and (loose or c1 or c2 or c3):
                    continue  # straight 1-2-3
                d3 = d2 * fact[c3]
                # c4 + c5 = r3 with c4 <= l4, c5 <= l5
                for c4 in range(r3 - l5 if r3 > l5 else 0, (l4 if l4 < r3 else r3) + 1):
                    c5 = r3 - c4
                    p4 = c4 or k4
                    if p2 and p3 and p4 and (loose or c2 or c3 or c4):
                        continue  # straight 2-3-4
                    if p3 and p4 and (c5 or k5) and (loose or c3 or c4 or c5):
                        continue  # straight 3-4-5
                    total += top // (d3 * fact[c4] * fact[c5])
    return total


def bust(m, kept=(), kept_can_score=0):
    """Return P(bust) as a reduced (numerator, denominator) for re-rolling m dice next to the
    kept dice values; raise ValueError for impossible input."""
    kept = check(kept)
    if not isinstance(m, int) or not 1 <= m <= 6:
        raise ValueError("re-roll 1 to 6 dice")
    if m + len(kept) > 6:
        raise ValueError("too many dice")
    return reduce(bust_count(m, counts(kept), kept_can_score), 6**m)


def keep_options(dice, kept_can_score=0, extra=0):
    """Return [(kept, (num, den)), ...] for every distinct choice of dice to keep unrolled
    (re-rolling the rest plus `extra` dice whose faces are not known yet), lowest bust risk
    first, then fewest kept dice. At least one die is always re-rolled."""
    dice = check(dice)
    have = counts(dice)
    keep = [0] * 7  # counts of the dice in stack
    stack = []  # the kept dice, non-decreasing
    rolled = extra + len(dice)
    found = []  # (kept, (num, den)) in the lexicographic order of kept
    keys = []  # per option: (risk, size, its place in found) as one small int
    # The sub-multisets in preorder (a choice, then the choices that extend it by a face no
    # lower than its last): that is the lexicographic order of the kept tuples, so sorting
    # the keys sorts as (risk, size, kept) would, without a tuple per option to compare.
    face = 1
    while True:
        size = len(stack)
        m = rolled - size
        if 1 <= m <= 6:
            count = bust_count(m, keep, kept_can_score)
            ways = _POWERS[m]
            # risk * 8 + size < 2**19 and at most 64 options: a small int on a Pico
            keys.append((count * (_ALL // ways) * 8 + size) * 64 + len(found))
            found.append((tuple(stack), reduce(count, ways)))
        # The next choice: extend by the lowest face left, else drop faces from the end.
        while face <= 6 and keep[face] == have[face]:
            face += 1
        while face > 6 and stack:
            face = stack.pop()
            keep[face] -= 1
            face += 1
            while face <= 6 and keep[face] == have[face]:
                face += 1
        if face > 6:
            break
        stack.append(face)
        keep[face] += 1
    keys.sort()
    for i in range(len(keys)):
        keys[i] = found[keys[i] & 63]
    return keys


def best_keep(dice, kept_can_score=0, extra=0):
    """Return (kept, (num, den)): the dice to keep for the lowest bust risk (see keep_options)."""
    return keep_options(dice, kept_can_score, extra)[0]
