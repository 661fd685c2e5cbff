"""Exact Battle Game bust odds, and which dice to keep for the lowest risk. Pure: runs
unchanged on MicroPython and CPython.

P(bust) for re-rolling m dice next to kept dice is a count of the 6**m ordered rolls, looked
up in dicepod.rules.busts (written by tools/gen_busts.py, which counts over the multisets of
the m new faces, each weighted by its orderings; its docstring says what the table is indexed
by). A keep hint weighs every choice of dice to keep: looking each up, not counting, keeps the
press that shows the hint short on a Pico. Fractions are (numerator, denominator) int pairs in
lowest terms (dicepod.rules.fraction).

The bust rule matches dicepod.rules.scoring.is_bust: with kept_can_score 0 a new
roll busts when no scoring roll uses a re-rolled die; with 1, when the rolled and kept dice
together hold no scoring roll.
"""

from micropython import const

from dicepod.rules.busts import COUNTS, PER_LOOSE, ROWS
from dicepod.rules.dice import check, counts
from dicepod.rules.fraction import reduce

# 6**6: every probability here is a whole number of 46656ths (denominators divide it).
_ALL = const(46656)
_POWERS = const((1, 6, 36, 216, 1296, 7776, 46656))  # 6**m
# A kept face's digit in the table's index: 3**(face - 1) for faces 1..5; a kept 6 has none.
_DIGITS = const((0, 1, 3, 9, 27, 81, 0))


def _look_up(m, code, loose):
    """The tables' count for m dice re-rolled, the kept counts code (busts' index), loose."""
    i = code * 2
    i = (loose * PER_LOOSE + (ROWS[i] | ROWS[i + 1] << 8) + m - 1) * 2
    return COUNTS[i] | COUNTS[i + 1] << 8


def bust_count(m, kept_counts, kept_can_score=0):
    """Return how many of the 6**m ordered rolls of m dice bust next to the kept dice (given as
    a 7-slot count list)."""
    loose = 1 if kept_can_score or not any(kept_counts) else 0
    code = 0
    for face in range(1, 6):
        n = kept_counts[face]
        if n > 2:
            if loose:
                return 0  # three of a kind kept: the kept dice alone already score
            n = 2
        code += n * _DIGITS[face]
    if loose and kept_counts[6]:
        return 0  # a kept 6 scores alone
    return _look_up(m, code, loose)


def bust(m, kept=(), kept_can_score=0):
    """Return P(bust) as a reduced (numerator, denominator) for re-rolling m dice next to the
    kept dice values; raise ValueError for impossible input."""
    kept = check(kept)
    if not isinstance(m, int) or not 1 <= m <= 6:
        raise ValueError("re-roll 1 to 6 dice")
    if m + len(kept) > 6:
        raise ValueError("too many dice")
    return reduce(bust_count(m, counts(kept), kept_can_score), 6**m)


def keep_keys(dice, kept_can_score=0, extra=0):
    """Return every distinct choice of dice to keep unrolled (re-rolling the rest plus `extra`
    dice whose faces are not known yet) as a small int, lowest bust risk first, then fewest
    kept, then the kept dice in lexicographic order. At least one die is always re-rolled.
    keep_option(dice, key, extra) says what a key keeps and its risk: a screen shows one option
    at a time, and making all of them takes longer than weighing them.

    A key is (risk * 8 + size) << 6 | (63 - mask): risk in 46656ths, size the dice kept, mask
    which of the dice sorted it keeps (the first die bit 5; of equal faces the first ones).
    Between choices of one size a higher mask is the lexicographically lower one."""
    dice = sorted(check(dice))
    rolled = extra + len(dice)
    if rolled > 6:
        raise ValueError("too many dice")
    have = counts(dice)
    first = [0] * 8  # first[face]: the index of face's first die in the sorted dice
    for face in range(1, 7):
        first[face + 1] = first[face] + have[face]
    keep = [0] * 7  # counts of the dice in stack
    stack = []  # the kept dice, non-decreasing
    loose = 1 if kept_can_score else 0
    keys = []
    code = 0  # the kept counts as the table's index digits (each count up to 2)
    scores = 0  # the kept faces that score alone: a 6, three of a kind
    mask = 0
    # The sub-multisets in preorder: a choice, then the choices that extend it by a face no
    # lower than its last; code, scores and mask follow each step.
    face = 1
    while True:
        size = len(stack)
        m = rolled - size
        if 1 <= m <= 6:
            if kept_can_score or not size:
                count = 0 if scores else _look_up(m, code, 1)
            else:
                count = _look_up(m, code, loose)
            # risk * 8 + size < 2**19, then 6 bits: a small int on a Pico
            keys.append((count * (_ALL // _POWERS[m]) * 8 + size) << 6 | 63 - mask)
        # The next choice: extend by the lowest face left, else drop faces from the end.
        while face <= 6 and keep[face] == have[face]:
            face += 1
        while face > 6 and stack:
            face = stack.pop()
            n = keep[face]
            keep[face] = n - 1
            mask ^= 32 >> (first[face] + n - 1)
            if n <= 2:
                code -= _DIGITS[face]
            if n == 3 or (face == 6 and n == 1):
                scores -= 1
            face += 1
            while face <= 6 and keep[face] == have[face]:
                face += 1
        if face > 6:
            break
        n = keep[face] + 1
        keep[face] = n
        stack.append(face)
        mask |= 32 >> (first[face] + n - 1)
        if n <= 2:
            code += _DIGITS[face]
        if n == 3 or (face == 6 and n == 1):
            scores += 1
    keys.sort()
    return keys


def keep_option(dice, key, extra=0):
    """Return (kept, (num, den)) for a key of keep_keys(dice, ..., extra): the dice kept, in
    the dice's sorted order, and the bust chance of re-rolling the rest."""
    dice = sorted(dice)
    mask = 63 - (key & 63)
    kept = []
    for i in range(len(dice)):
        if mask & 32 >> i:
            kept.append(dice[i])
    m = extra + len(dice) - len(kept)
    return tuple(kept), reduce((key >> 9) // (_ALL // _POWERS[m]), _POWERS[m])


def keep_options(dice, kept_can_score=0, extra=0):
    """Return [(kept, (num, den)), ...] for every distinct choice of dice to keep unrolled, in
    keep_keys' order."""
    return [keep_option(dice, key, extra) for key in keep_keys(dice, kept_can_score, extra)]


def best_keep(dice, kept_can_score=0, extra=0):
    """Return (kept, (num, den)): the dice to keep for the lowest bust risk (see keep_keys)."""
    return keep_option(dice, keep_keys(dice, kept_can_score, extra)[0], extra)
