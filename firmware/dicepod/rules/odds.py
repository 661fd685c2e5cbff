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
_SCALES = const((0, 7776, 1296, 216, 36, 6, 1))  # 6**6 // 6**m
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
    # Every choice as one int of fields that add up face by face: the faces kept that score
    # alone (a 6, three of a kind; bits 0-2), the mask (bits 3-8), the table's index digits
    # (each count up to 2; bits 9-16) and the size (bits 17-19). A face kept c times adds its
    # share, so the choices are the sums of one share of each face.
    choices = [0]
    at = 0  # the face's first die in the sorted dice
    have = counts(dice)
    for face in range(1, 7):
        shares = []
        share = 0
        for c in range(1, have[face] + 1):
            share += 1 << 17 | (32 >> at) << 3
            if c <= 2:
                share += _DIGITS[face] << 9
            if c == 3 or (face == 6 and c == 1):
                share += 1
            at += 1
            shares.append(share)
        if shares:
            choices += [choice + share for share in shares for choice in choices]
    keys = []
    for choice in choices:
        size = choice >> 17
        m = rolled - size
        if m < 1:
            continue  # every die kept
        if kept_can_score or not size:
            if choice & 7:
                keys.append(size << 6 | 63 - (choice >> 3 & 63))  # safe: risk 0
                continue
            i = PER_LOOSE
        else:
            i = 0
        # the count, as _look_up finds it (written out: a call per choice costs as much)
        code = (choice >> 9 & 255) * 2
        i = (i + (ROWS[code] | ROWS[code + 1] << 8) + m - 1) * 2
        count = COUNTS[i] | COUNTS[i + 1] << 8
        # risk * 8 + size < 2**19, then 6 bits: a small int on a Pico
        keys.append((count * _SCALES[m] * 8 + size) << 6 | 63 - (choice >> 3 & 63))
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
