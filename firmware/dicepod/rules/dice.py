"""Small shared dice helpers: roll, count per face, check, remove, multisets. Pure: runs
unchanged on MicroPython and CPython; randomness arrives as randbelow(n).

A set of dice is a tuple of faces 1..6 (order = display order). Counting uses a 7-slot list
indexed by face (slot 0 unused), never a dict or Counter.
"""

from micropython import const

_FACES = const(6)

# n! for n = 0..6 (multinomial weights of at most six dice).
FACTORIAL = (1, 1, 2, 6, 24, 120, 720)


def roll(n, randbelow):
    """Return a tuple of n faces in 1..6 drawn with randbelow."""
    faces = [0] * n
    for i in range(n):
        faces[i] = randbelow(_FACES) + 1
    return tuple(faces)


def check(dice, most=_FACES):
    """Return dice as a tuple of ints; raise ValueError unless every face is 1..6 and there are
    at most `most` dice."""
    dice = tuple(dice)
    if len(dice) > most:
        raise ValueError("too many dice")
    for face in dice:
        if not isinstance(face, int) or not 1 <= face <= _FACES:
            raise ValueError("die value must be 1-6")
    return dice


def counts(dice):
    """Return a 7-slot list: counts[f] = how many dice show face f (slot 0 unused)."""
    result = [0] * 7
    for face in dice:
        result[face] += 1
    return result


def from_counts(face_counts):
    """Return the sorted tuple of dice described by a 7-slot count list."""
    out = []
    for face in range(1, 7):
        out.extend([face] * face_counts[face])
    return tuple(out)


def contains(big, small):
    """Return True when count list `small` fits inside count list `big` (sub-multiset)."""
    for face in range(1, 7):
        if small[face] > big[face]:
            return False
    return True


def remove(dice, values):
    """Return dice without one die per entry of values (first matches); ValueError if absent."""
    rest = list(dice)
    for value in values:
        if value not in rest:
            raise ValueError("no die showing %d" % value)
        rest.remove(value)
    return tuple(rest)


def multinomial(face_counts):
    """Return the number of ordered rolls giving this multiset: n! / (c1! ... c6!)."""
    n = 0
    div = 1
    for face in range(1, 7):
        n += face_counts[face]
        div *= FACTORIAL[face_counts[face]]
    return FACTORIAL[n] // div


def multisets(n, low=1):
    """Yield every multiset of n faces in low..6 as a sorted tuple (C(n+5, 5) of them)."""
    if n == 0:
        yield ()
        return
    for face in range(low, _FACES + 1):
        for rest in multisets(n - 1, face):
            yield (face,) + rest


def at_least(dice, target):
    """Return how many dice show target or more (a target-number test's successes)."""
    hits = 0
    for face in dice:
        if face >= target:
            hits += 1
    return hits
