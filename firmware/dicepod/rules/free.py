"""Free roll: roll some dice, count every face, and test the dice for fairness.
Pure: runs unchanged on MicroPython and CPython; randomness arrives as randbelow(n).

Events:
    ("roll", (d1, ..., dn))              one roll of n dice (1 <= n <= 6), faces 1..6
    ("selftest", (n, c1, ..., c6))       a completed fairness self-test: n dice rolled, ci of
                                         them showing face i (the counts are the data: folding
                                         needs no randomness)
    ("set", (key, value))                a setting changed during the game
The fairness test is Pearson's chi-square against a fair die (5 degrees of freedom); it passes
at the 1 % level when chi-square < 15.086. Everything is integer arithmetic, so the device, the
PC and both interpreters print the same numbers.
"""

from micropython import const

from dicepod.settings import Settings

_FACES = const(6)
# The chi-square critical value for 5 degrees of freedom at 1 %, times 1000 (15.086).
_CRITICAL_1PC_X1000 = const(15086)

SETTINGS = (
    ("free.dice", 6, 1, 6, "Dice per roll"),
    ("free.test_rolls", 600, 60, 6000, "Self-test rolls"),
)


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

    def apply(self, event):
        """Fold one event in; raise ValueError for an illegal one."""
        kind, data = event
        if kind == "roll":
            if not 1 <= len(data) <= _FACES:
                raise ValueError("roll needs 1-6 dice")
            for face in data:
                if not (isinstance(face, int) and 1 <= face <= _FACES):
                    raise ValueError("face out of range")
            for face in data:
                self.counts[face] += 1
            self.rolls += 1
            self.dice += len(data)
            self.last = tuple(data)
        elif kind == "selftest":
            if len(data) != _FACES + 1 or data[0] <= 0 or sum(data[1:]) != data[0]:
                raise ValueError("selftest counts do not add up")
            for count in data:
                if not isinstance(count, int) or count < 0:
                    raise ValueError("selftest count out of range")
            self.tests += 1
            self.last_test = tuple(data)
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
    return ("roll", tuple(randbelow(_FACES) + 1 for _ in range(n)))


def selftest_event(counts):
    """Return the selftest event for counts[1..6]."""
    return ("selftest", (sum(counts[1:]),) + tuple(counts[1:]))


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


def format_x100(value):
    """Return '12.34' for 1234 (integer arithmetic)."""
    return "%d.%02d" % (value // 100, value % 100)
