"""The Battle Game's scoring combinatorics (RULES.md section 1, docs/RULES.md BG-4..BG-8): the
scoring rolls, which of them a roll holds, bust, ALL OUT! and every legal set-aside. Pure: runs
unchanged on MicroPython and CPython. dicepod.rules.battle folds the game with them,
dicepod.rules.odds counts bust chances the same way, the PC tools list them.

A scoring roll ("combo") is the sorted tuple of its dice values, which names it fully:
    (6,) Lucky Six   (6, 6) Double Six   (v, v, v) Three of a Kind (v in 1..5)
    (a, a+1, a+2[, ...]) Straight of 3 to 5 values inside 1..5.
"""

from micropython import const

from dicepod.rules.dice import counts

# Every scoring roll there is, in listing order.
COMBOS = (
    (6,),
    (6, 6),
    (1, 1, 1),
    (2, 2, 2),
    (3, 3, 3),
    (4, 4, 4),
    (5, 5, 5),
    (1, 2, 3),
    (1, 2, 3, 4),
    (1, 2, 3, 4, 5),
    (2, 3, 4),
    (2, 3, 4, 5),
    (3, 4, 5),
)
# The straights (COMBOS[7:], bits 7..12 of mask()'s result) that faces 1..5 hold, by which of
# them are present (bit v - 1 = face v): a look-up, not six runs tried, as mask() runs for
# every node of a roll's set-asides (tests/portable/test_battle.py checks mask() against
# scoring rolls found one by one, for every roll).
_STRAIGHTS = const(
    (0, 0, 0, 0, 0, 0, 0, 128, 0, 0, 0, 0, 0, 0, 1024, 1408,
     0, 0, 0, 0, 0, 0, 0, 128, 0, 0, 0, 0, 4096, 4096, 7168, 8064)
)  # fmt: skip

KINDS = ("lucky_six", "double_six", "three_of_a_kind", "straight")
# Every scoring roll's name for the screen, in COMBOS order: constants, so that naming one makes
# no string (on MicroPython each new string is looked up among every interned name first, and
# the screen names the choice in the press that rolls).
_NAMES = const(
    ("Lucky Six", "Double Six", "Three 1s", "Three 2s", "Three 3s", "Three 4s", "Three 5s",
     "Straight 1-2-3", "Straight 1-2-3-4", "Straight 1-2-3-4-5", "Straight 2-3-4",
     "Straight 2-3-4-5", "Straight 3-4-5")
)  # fmt: skip


def kind_index(combo):
    """Return 0 Lucky Six, 1 Double Six, 2 Three of a Kind, 3 Straight for a scoring roll."""
    if combo[0] == 6:
        return len(combo) - 1
    return 2 if combo[0] == combo[-1] else 3


def kind(combo):
    """Return the kind of a scoring roll as a string: lucky_six, double_six, ..."""
    return KINDS[kind_index(combo)]


def name(combo):
    """Return a scoring roll's name for the screen, e.g. 'Lucky Six', 'Straight 1-2-3'."""
    first = combo[0]
    if first == 6:
        return _NAMES[len(combo) - 1]
    if first == combo[-1]:
        return _NAMES[first + 1]  # Three of a Kind
    return _NAMES[(7, 10, 12)[first - 1] + len(combo) - 3]  # a Straight from first


def names(combos):
    """Return scoring rolls by name, equal ones counted: 'Lucky Six x2, Straight 2-3-4' (the
    device, the simulator and the PC all name them with name())."""
    combos = sorted(combos)
    parts = []
    i = 0
    while i < len(combos):
        n = 1
        while i + n < len(combos) and combos[i + n] == combos[i]:
            n += 1
        parts.append(name(combos[i]) + " x%d" % n if n > 1 else name(combos[i]))
        i += n
    return parts[0] if len(parts) == 1 else ", ".join(parts)


def mask(face_counts):
    """Return a bit mask over COMBOS (bit i = COMBOS[i]) of every scoring roll that can be formed
    from dice with these counts. Zero means bust."""
    found = 0
    sixes = face_counts[6]
    if sixes:
        found = 1 if sixes == 1 else 3
    present = 0
    for face in range(1, 6):
        n = face_counts[face]
        if n:
            present |= 1 << face
            if n >= 3:
                found |= 1 << (face + 1)
    return found | _STRAIGHTS[present >> 1]


def scoring(dice):
    """Return every distinct scoring roll that can be formed from dice, in COMBOS order."""
    found = mask(counts(dice))
    out = []
    for combo in COMBOS:
        if found & 1:
            out.append(combo)
        found >>= 1
    return out


def _partition(face_counts, face):
    """True when faces face..5 of face_counts split exactly into Threes and Straights."""
    while face <= 5 and not face_counts[face]:
        face += 1
    if face > 5:
        return True
    # The lowest die left belongs to a Three of a Kind of it or a Straight starting at it.
    if face_counts[face] >= 3:
        face_counts[face] -= 3
        ok = _partition(face_counts, face)
        face_counts[face] += 3
        if ok:
            return True
    top = face
    ok = False
    while top <= 5 and face_counts[top]:
        face_counts[top] -= 1
        top += 1
        if top - face >= 3 and _partition(face_counts, face):
            ok = True
            break
    for value in range(face, top):
        face_counts[value] += 1
    return ok


def all_out(face_counts):
    """Return True when every die can be set aside at once in scoring rolls (6s always can)."""
    return _partition(list(face_counts), 1)


def is_bust(rolled, kept=(), kept_can_score=0):
    """Return True when rolling `rolled` next to the unrolled `kept` dice busts: no scoring roll
    uses a re-rolled die (or, with kept_can_score, no scoring roll at all)."""
    if not kept:  # a roll of every die: bust when no scoring roll at all
        return mask(counts(rolled)) == 0
    return bust_counts(counts(rolled), counts(kept), kept_can_score)


def bust_counts(rolled, kept, kept_can_score=0):
    """is_bust on 7-slot count lists."""
    both = list(kept)
    for i in range(7):
        both[i] += rolled[i]
    if kept_can_score or both == rolled:
        return mask(both) == 0
    if rolled[6]:
        return False
    for face in range(1, 6):
        if rolled[face] and both[face] >= 3:
            return False
    for low in range(1, 4):
        if both[low] and both[low + 1] and both[low + 2]:
            if rolled[low] or rolled[low + 1] or rolled[low + 2]:
                return False
    return True


def parse_combos(data):
    """Split set_aside data (values, 0 between scoring rolls) into a list of scoring rolls;
    raise ValueError if a group is not a scoring roll."""
    groups = []
    group = []
    for value in tuple(data) + (0,):
        if not isinstance(value, int) or not 0 <= value <= 6:
            raise ValueError("die value must be 1-6")
        if value:
            group.append(value)
            continue
        combo = tuple(sorted(group))
        if combo not in COMBOS:
            raise ValueError("not a scoring roll")
        groups.append(combo)
        group = []
    return groups


def fits_settings(combos, two_sixes):
    """None when combos obey the two-6s setting, else the reason."""
    if two_sixes == 2 and (6, 6) in combos:
        return "Double Six is off: two Lucky Sixes"
    if two_sixes == 1 and combos.count((6,)) > 1:
        return "two 6s must be a Double Six"
    return None


def uses_rolled(combos, rolled):
    """True when some die of combos can come from the rolled (not kept) dice."""
    for combo in combos:
        for value in combo:
            if rolled[value]:
                return True
    return False


def _collect(face_counts, start, current, out):
    """Append to out every multiset of COMBOS[start:] that fits into face_counts. (The combos
    that fit come from one mask() a level, not a count list built and compared per combo: a
    roll's choices are listed in the press that shows them.)"""
    found = mask(face_counts) >> start
    i = start
    while found:
        if found & 1:
            combo = COMBOS[i]
            for value in combo:
                face_counts[value] -= 1
            current.append(combo)
            out.append(tuple(current))
            _collect(face_counts, i, current, out)
            current.pop()
            for value in combo:
                face_counts[value] += 1
        found >>= 1
        i += 1


def set_aside_choices(dice, kept=(), two_sixes=0, kept_can_score=0):
    """Return every legal set-aside for a roll: tuples of disjoint scoring rolls from dice, where
    `kept` are the dice that were not re-rolled (they are included in dice)."""
    face_counts = counts(dice)
    everything = []
    _collect(face_counts, 0, [], everything)
    rolled = face_counts
    if kept and not kept_can_score:
        rolled = counts(kept)
        for i in range(7):
            rolled[i] = face_counts[i] - rolled[i]
    if not two_sixes and rolled is face_counts:
        return everything  # (the defaults: nothing to leave out, no call a choice)
    out = []
    for choice in everything:
        if fits_settings(choice, two_sixes):
            continue
        if rolled is not face_counts and not uses_rolled(choice, rolled):
            continue
        out.append(choice)
    return out
