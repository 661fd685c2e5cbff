"""Free roll: roll some dice, count every face and every sum, and test the dice for fairness.
Pure: runs unchanged on MicroPython and CPython; randomness arrives as randbelow(n).

Events:
    ("roll", (d1, ..., dn))              one roll of n dice (1 <= n <= 6), faces 1..6
    ("loaded", (w1, ..., w6, d1, ..., dn))  one roll of n loaded dice: face i comes up wi
                                         times in sum(w) (the weights go with every roll)
    ("selftest", (n, c1, ..., c6))       a completed fairness self-test: n dice rolled, ci of
                                         them showing face i (the counts are the data: folding
                                         needs no randomness)
    ("reset", ())                        the counts start again (a new experiment; undoable)
    ("set", (key, value))                a setting changed during the game
The sums of the rolls are counted for the number of dice rolled last: a roll of another number
of dice starts that count again (the sum of 2 dice and of 3 are different experiments), and
ways(n) gives its exact distribution to draw beside it.
The fairness test is Pearson's chi-square against a fair die (5 degrees of freedom); it passes
at the 1 % level when chi-square < 15.086, and p_percent() says in whole percent how often a
fair die gives a result at least this uneven. Everything is integer arithmetic, so the device,
the PC and both interpreters print the same numbers.
The loaded die is a demonstration for a class, in Free roll only: with the setting free.loaded
= face, that face is LOADED_WEIGHT times as likely as each other face, every such roll is a
"loaded" event naming its weights, and the counts and the fairness test take them in, so the
class watches the test catch it.
"""

from micropython import const

from dicepod.settings import Settings

_FACES = const(6)
# The chi-square critical value for 5 degrees of freedom at 1 %, times 1000 (15.086).
_CRITICAL_1PC_X1000 = const(15086)

# Chi-square (x100) with 5 degrees of freedom that a fair die exceeds p % of the time, p = 1..99
# (from the closed form P = erfc(sqrt(x/2)) + sqrt(2x/pi) exp(-x/2) (1 + x/3); checked in
# tests/portable/test_free.py under CPython).
# fmt: off
_CRITICAL_X100 = const(
    (
        1508, 1338, 1237, 1164, 1107, 1059, 1019, 983, 952, 923, 897, 873, 851, 830, 811, 793,
        775, 759, 743, 728, 714, 700, 687, 674, 662, 650, 639, 627, 617, 606, 596, 586, 576,
        566, 557, 548, 539, 530, 521, 513, 504, 496, 488, 480, 472, 465, 457, 449, 442, 435,
        427, 420, 413, 406, 399, 392, 385, 379, 372, 365, 358, 352, 345, 339, 332, 325, 319,
        312, 306, 299, 293, 287, 280, 273, 267, 260, 254, 247, 240, 234, 227, 220, 213, 206,
        199, 192, 184, 176, 169, 161, 152, 143, 134, 124, 114, 103, 90, 75, 55,
    )
)
# fmt: on

LOADED_WEIGHT = const(3)

SETTINGS = (
    ("free.dice", 6, 1, 6, "Dice per roll"),
    ("free.test_rolls", 600, 60, 6000, "Self-test rolls"),
    ("free.class", 0, 0, 1, "Class mode"),  # 1: the display stays on, the counts big
    ("free.loaded", 0, 0, 6, "Loaded die face"),  # 0: fair dice; else the face favoured
)


def weights(face):
    """The six weights of a die loaded towards face."""
    return tuple(LOADED_WEIGHT if f == face else 1 for f in range(1, _FACES + 1))


def _weighed(data, at):
    """data without the six weights at index at (checked: whole numbers 1 to 99)."""
    if len(data) < at + _FACES:
        raise ValueError("six weights and the dice")
    for w in data[at : at + _FACES]:
        if not (isinstance(w, int) and 1 <= w <= 99):
            raise ValueError("weight out of range")
    return data[:at] + data[at + _FACES :]


class Game:
    """Counts of every face rolled so far, the last roll and the last self-test."""

    def __init__(self, settings=None):
        self.settings = settings if settings is not None else Settings(SETTINGS)
        self.counts = [0] * (_FACES + 1)  # counts[face], index 0 unused
        self.rolls = 0  # roll events
        self.dice = 0  # dice rolled in them
        self.last = ()
        self.tests = 0  # completed self-tests
        self.last_test = None  # (n, c1..c6) of the last one
        self.sums = [0] * (_FACES * _FACES + 1)  # sums[s]: rolls of sum_dice dice summing to s
        self.sum_dice = 0  # dice per roll the sums count (0: none yet)
        self.sum_rolls = 0
        self.loaded_rolls = 0  # "loaded" events among the rolls

    def reset(self):
        """Start the counts again (the settings and the self-tests stay)."""
        self.counts = [0] * (_FACES + 1)
        self.rolls = 0
        self.dice = 0
        self.last = ()
        self.sums = [0] * (_FACES * _FACES + 1)
        self.sum_dice = 0
        self.sum_rolls = 0
        self.loaded_rolls = 0

    def apply(self, event):
        """Fold one event in; raise ValueError for an illegal one."""
        kind, data = event
        if kind == "loaded":
            self.apply(("roll", _weighed(data, 0)))
            self.loaded_rolls += 1
        elif kind == "roll":
            if not 1 <= len(data) <= _FACES:
                raise ValueError("roll needs 1-6 dice")
            for face in data:
                if not (isinstance(face, int) and 1 <= face <= _FACES):
                    raise ValueError("face out of range")
            total = 0
            for face in data:
                self.counts[face] += 1
                total += face
            self.rolls += 1
            self.dice += len(data)
            self.last = tuple(data)
            if len(data) != self.sum_dice:
                self.sums = [0] * (_FACES * _FACES + 1)
                self.sum_dice = len(data)
                self.sum_rolls = 0
            self.sums[total] += 1
            self.sum_rolls += 1
        elif kind == "selftest":
            if len(data) == 2 * _FACES + 1:  # a loaded die's test: its weights follow
                data = _weighed(data, _FACES + 1)
            if len(data) != _FACES + 1 or data[0] <= 0 or sum(data[1:]) != data[0]:
                raise ValueError("selftest counts do not add up")
            for count in data:
                if not isinstance(count, int) or count < 0:
                    raise ValueError("selftest count out of range")
            self.tests += 1
            self.last_test = tuple(data)
        elif kind == "reset":
            if data:
                raise ValueError("reset takes no data")
            self.reset()
        elif kind == "set":
            self.settings.set(data[0], data[1])
        elif kind == "new_game":
            pass
        else:
            raise ValueError("unknown event %s" % kind)


def fold(events, settings=None):
    """Return the Game after every event."""
    game = Game(settings)
    for event in events:
        game.apply(event)
    return game


def roll(game, randbelow):
    """Command: roll the number of dice the settings say; return the roll event."""
    n = game.settings.get("free.dice")
    face = game.settings.get("free.loaded")
    dice = tuple(die(randbelow, face) for _ in range(n))
    return ("loaded", weights(face) + dice) if face else ("roll", dice)


def die(randbelow, loaded):
    """One die: a fair one (loaded 0), or one loaded towards face loaded (by its weights)."""
    if not loaded:
        return randbelow(_FACES) + 1
    r = randbelow(_FACES - 1 + LOADED_WEIGHT)
    if r < _FACES - 1:
        return r + 1 if r + 1 < loaded else r + 2  # the other faces, in order, once each
    return loaded


def selftest_event(counts, loaded=0):
    """Return the selftest event for counts[1..6] (with the six weights when loaded)."""
    data = (sum(counts[1:]),) + tuple(counts[1:])
    return ("selftest", data + weights(loaded) if loaded else data)


def chi_square_x100(counts):
    """Pearson's chi-square of counts[1..6] against a fair die, times 100, rounded down.

    With n dice and expected n/6 per face: sum((c - n/6)^2 / (n/6)) = 6 * sum(c^2) / n - n.
    """
    n = sum(counts[1:])
    if n == 0:
        return 0
    squares = 0
    for face in range(1, _FACES + 1):
        squares += counts[face] * counts[face]
    return (6 * squares - n * n) * 100 // n


def passes(counts):
    """True when counts[1..6] pass the fairness test at the 1 % level (chi-square < 15.086)."""
    n = sum(counts[1:])
    if n == 0:
        return False
    squares = 0
    for face in range(1, _FACES + 1):
        squares += counts[face] * counts[face]
    return (6 * squares - n * n) * 1000 < _CRITICAL_1PC_X1000 * n


def p_percent(counts):
    """How often (whole percent, 0..99) a fair die gives counts at least this uneven: the
    chi-square's upper tail with 5 degrees of freedom, from a table (0 means under 1 %)."""
    chi = chi_square_x100(counts)
    percent = 0
    for critical in _CRITICAL_X100:
        if chi <= critical:
            percent += 1
    return percent


def verdict(counts):
    """The fairness test in words (a sentence for the screen, wrapped by the caller)."""
    percent = p_percent(counts)
    if passes(counts):
        return "Fair: a fair die is this uneven %d%% of the time." % (percent or 1)
    return "Not fair? A fair die is this uneven less than 1% of the time."


def ways(n):
    """The exact distribution of the sum of n fair dice: a list w with w[s] the number of the
    6**n outcomes that sum to s (s from 0 to 6n; w[s] = 0 below n)."""
    w = [1]
    for _ in range(n):
        nxt = [0] * (len(w) + _FACES)
        for s in range(len(w)):
            if w[s]:
                for face in range(1, _FACES + 1):
                    nxt[s + face] += w[s]
        w = nxt
    return w


def format_x100(value):
    """Return '12.34' for 1234 (integer arithmetic)."""
    return "%d.%02d" % (value // 100, value % 100)
