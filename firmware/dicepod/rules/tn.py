"""The Tests mode (mode name "tests"): target-number tests, re-rolls, roll-offs and D3 (RULES.md
section 2), and their exact odds. Pure: runs unchanged on MicroPython and CPython. (Named tn,
for the Target Number, so that it does not read as a test file.)

The rules, restated: a test has a Target Number (TN); roll a D6 and succeed on TN or more.
Modifiers change the TN, never the die: +X lowers it by X, -X raises it by X; modifiers from
differently named sources add up (a source name counts once: adding a name again replaces its
value; the screens offer several abilities, items and effects: docs/RULES.md TS-3, TS-7); the
final TN is capped to 2+..6+. Modifiers apply before rolling (TS-6): a roll is judged by the TN
it was rolled at (roll_tn), and a modifier changed later counts for the next roll only. A dash
means the test does not exist, and no modifier can create it. A natural 6 always succeeds and a
natural 1 always fails. A re-roll picks one die up and rolls it again; the new result stands. A
roll-off is 2D6 per player, the higher total wins, and players tied for the highest total throw
again (every throw is an event). D3 is a D6 halved rounding up (1-2 -> 1, 3-4 -> 2, 5-6 -> 3);
D3+1 adds 1 to it. Both only generate a value: they are not tests.

Exact odds are fractions kept as reduced (numerator, denominator) int pairs
(dicepod.rules.fraction). A distribution of successes for N dice is a tuple of numerators
over one common denominator: 6^N (36^N after "re-roll failures once", 6^(N+1) after "re-roll one
die"), divided by the greatest common divisor of all the numerators and that power, so every
entry keeps the same denominator (4 dice on 4+ -> 1/16, 4/16, 6/16, 4/16, 1/16).

Events (data are ints unless noted):
    ("tn", (t,))              set the TN: 2..6, or 0 for a dash (the test does not exist)
    ("mod", (name, x))        named modifier (name an ASCII string), x in -9..9, replaces name
    ("unmod", (name,))        remove a named modifier
    ("clear_mods", ())        remove every modifier
    ("rule", (r,))            re-roll rule for the odds: RULE_NONE, RULE_FAILURES, RULE_ONE
    ("roll", (f1, ..., fn))   roll n dice for the test (1..MAX_DICE faces 1..6)
    ("reroll", (i, f))        re-roll die i of the current roll; f stands (judged at its roll's TN)
    ("rolloff", (a1, a2, b1, b2, ...))  one roll-off throw: 2 dice per player still in it
    ("d3", (f,)), ("d3p1", (f,))        a D3 / D3+1 from the D6 face f
    ("set", (key, value)), ("new_game", (mode,))  journal bookkeeping
"""

from micropython import const

from dicepod.rules import apply_checked
from dicepod.rules.fraction import gcd, reduce
from dicepod.settings import Settings

MODE = "tests"
MAX_DICE = const(20)  # dice in one test roll: more than any rulebook roll, fits one screen
_MAX_MOD = const(9)  # largest modifier one source can give
_MAX_PLAYERS = const(6)

RULE_NONE = 0  # no re-roll
RULE_FAILURES = 1  # re-roll every failed die once
RULE_ONE = 2  # re-roll one failed die
RULE_NAMES = ("none", "failures", "one")

SETTINGS = (
    # A roll-off is between players; StarCraft TMG is a two-player game [seed].
    ("tests.players", 2, 2, _MAX_PLAYERS, "Roll-off players"),
)


# ---- counting ------------------------------------------------------------------------------


def binomial(n, k):
    """Return C(n, k) with ints only."""
    if k < 0 or k > n:
        return 0
    result = 1
    for i in range(min(k, n - k)):
        result = result * (n - i) // (i + 1)
    return result


# ---- the test itself ------------------------------------------------------------------------


def final_tn(tn, modifier):
    """Return the final TN of a base TN (2..6; None or 0 = dash) after a total modifier.

    None means the test does not exist: no modifier can grant it."""
    if not tn:
        return None
    tn -= modifier
    if tn < 2:
        return 2
    if tn > 6:
        return 6
    return tn


def is_success(face, tn):
    """Return True when a die face passes a final TN (natural 6 passes, natural 1 fails)."""
    if face == 6:
        return True
    if face == 1:
        return False
    return face >= tn


def success_faces(tn):
    """Return how many of the six faces pass a final TN."""
    count = 0
    for face in range(1, 7):
        if is_success(face, tn):
            count += 1
    return count


def p_success(tn, rule=RULE_NONE):
    """Return the chance that one die passes a final TN, reduced (num, den).

    With RULE_FAILURES a failed die is rolled once more; RULE_ONE gives one die (not each) a
    re-roll, so per die it is reported like RULE_NONE: see distribution()."""
    k = success_faces(tn)
    if rule == RULE_FAILURES:
        return reduce(6 * k + (6 - k) * k, 36)
    return reduce(k, 6)


def distribution(n, tn, rule=RULE_NONE):
    """Return (numerators, den): the exact chance of 0..n successes for n dice on a final TN.

    Every entry is over the same denominator (see the module docstring)."""
    if n < 0:
        raise ValueError("dice")
    k = success_faces(tn)
    if rule == RULE_FAILURES:
        hit, sides = 6 * k + (6 - k) * k, 36
    else:
        hit, sides = k, 6
    # The chance of a hit in lowest terms first (3/6 -> 1/2): the terms stay small ints for
    # most TNs and a dozen dice, where 6**n past 2**30 makes each a heap-allocated long int.
    # The reduced result at the end is the same.
    g = gcd(hit, sides)
    hit //= g
    sides //= g
    nums = [binomial(n, s) * hit**s * (sides - hit) ** (n - s) for s in range(n + 1)]
    den = sides**n
    if rule == RULE_ONE:
        # One failed die (if any) is rolled again: from s successes (s < n) a success moves the
        # count to s + 1, a failure leaves it; with no failure there is nothing to re-roll.
        after = [0] * (n + 1)
        for s in range(n + 1):
            if s < n:
                after[s] += nums[s] * (6 - k)
                after[s + 1] += nums[s] * k
            else:
                after[s] += nums[s] * 6
        nums, den = after, den * 6
    g = den
    for num in nums:
        g = gcd(num, g)
        if g == 1:  # (in lowest terms already: no more long-int divisions)
            break
    return tuple(num // g for num in nums), den // g


def d3_value(face):
    """Return the D3 result of a D6 face: 1-2 -> 1, 3-4 -> 2, 5-6 -> 3."""
    return (face + 1) // 2


def _face(randbelow):
    """Return a D6 face from the injected randbelow."""
    return randbelow(6) + 1


# ---- the Tests mode --------------------------------------------------------------------------


class Game:
    """State of the device's Tests mode: a TN with named modifiers, the current roll, the
    last roll-off and the last D3.

    Attributes the screens read: tn (None = not set, 0 = dash, else 2..6), mod_names and
    mod_values (lists), modifier (their sum), tn_final (None when the test does not exist or no
    TN is set: the TN of the next roll), roll_tn (the final TN the current roll was rolled at),
    rule, dice (bytearray; first n_dice used), rerolls (bytearray: times each die
    was re-rolled), successes, rolloff_totals (bytearray per player, of the last throw),
    rolloff_in (bitmask of players still in the roll-off), rolloff_throws, rolloff_winner
    (-1 while undecided or none), d3 (last generated value or 0), d3_face, d3_plus (0 or 1),
    events (count)."""

    def __init__(self, settings=None):
        self.settings = settings if settings is not None else Settings(SETTINGS)
        self.tn = None
        self.mod_names = []
        self.mod_values = []
        self.modifier = 0
        self.tn_final = None
        self.roll_tn = None
        self.rule = RULE_NONE
        self.dice = bytearray(MAX_DICE)
        self.rerolls = bytearray(MAX_DICE)
        self.n_dice = 0
        self.successes = 0
        self.rolloff_totals = bytearray(_MAX_PLAYERS)
        self.rolloff_in = 0
        self.rolloff_throws = 0
        self.rolloff_winner = -1
        self.d3 = 0
        self.d3_face = 0
        self.d3_plus = 0
        self.events = 0

    # -- derived values
    def _update_tn(self):
        total = 0
        for value in self.mod_values:
            total += value
        self.modifier = total
        # the next roll's TN; the dice already rolled keep theirs (TS-6)
        self.tn_final = final_tn(self.tn, total) if self.tn is not None else None

    def _count(self):
        count = 0
        if self.roll_tn is not None:
            for i in range(self.n_dice):
                if is_success(self.dice[i], self.roll_tn):
                    count += 1
        self.successes = count

    def players(self):
        """Return the number of roll-off players (setting tests.players)."""
        return self.settings.get("tests.players")

    def odds(self, n=None, rule=None, tn=None):
        """Return (tn, p_success, (nums, den)) for n dice (default: the current roll) under a
        re-roll rule (default: the game's) at a final TN (default: the next roll's, tn_final;
        the current roll's is roll_tn); raise ValueError when there is no test."""
        tn = self.tn_final if tn is None else tn
        if tn is None:
            raise ValueError("test does not exist" if self.tn == 0 else "no target number")
        n = self.n_dice if n is None else n
        rule = self.rule if rule is None else rule
        return tn, p_success(tn, rule), distribution(n, tn, rule)

    # -- folding
    def apply(self, event):
        """Fold one event into the state; raise ValueError for an illegal one (MissingValue
        when it needs a setting the player has not entered)."""
        apply_checked(self, event, MODE)

    def _apply(self, kind, data):
        if kind == "roll":
            self._roll(data)
        elif kind == "reroll":
            self._reroll(data)
        elif kind == "rolloff":
            self._rolloff(data)
        elif kind == "tn":
            if len(data) != 1 or not (data[0] == 0 or 2 <= data[0] <= 6):
                raise ValueError("bad tn")
            self.tn = data[0]
            self._update_tn()
        elif kind == "mod":
            self._mod(data)
        elif kind == "unmod":
            if len(data) != 1 or data[0] not in self.mod_names:
                raise ValueError("no such modifier")
            i = self.mod_names.index(data[0])
            self.mod_names.pop(i)
            self.mod_values.pop(i)
            self._update_tn()
        elif kind == "clear_mods":
            self.mod_names = []
            self.mod_values = []
            self._update_tn()
        elif kind == "rule":
            if len(data) != 1 or not RULE_NONE <= data[0] <= RULE_ONE:
                raise ValueError("bad rule")
            self.rule = data[0]
        elif kind == "d3" or kind == "d3p1":
            if len(data) != 1 or not 1 <= data[0] <= 6:
                raise ValueError("bad face")
            self.d3_face = data[0]
            self.d3_plus = 1 if kind == "d3p1" else 0
            self.d3 = d3_value(data[0]) + self.d3_plus
        else:
            raise ValueError("unknown event %s" % kind)

    def _mod(self, data):
        if len(data) != 2 or not isinstance(data[0], str) or not isinstance(data[1], int):
            raise ValueError("bad modifier")
        if not -_MAX_MOD <= data[1] <= _MAX_MOD or not data[1]:
            raise ValueError("modifier out of range")
        if data[0] in self.mod_names:
            self.mod_values[self.mod_names.index(data[0])] = data[1]
        else:
            self.mod_names.append(data[0])
            self.mod_values.append(data[1])
        self._update_tn()

    def _roll(self, data):
        if self.tn_final is None:
            raise ValueError("test does not exist" if self.tn == 0 else "no target number")
        n = len(data)
        if not 1 <= n <= MAX_DICE:
            raise ValueError("bad dice count")
        for face in data:
            if not 1 <= face <= 6:
                raise ValueError("bad face")
        for i in range(n):
            self.dice[i] = data[i]
            self.rerolls[i] = 0
        self.n_dice = n
        self.roll_tn = self.tn_final  # modifiers apply before the roll (TS-6)
        self._count()

    def _reroll(self, data):
        if len(data) != 2:
            raise ValueError("bad reroll")
        i, face = data
        if not 0 <= i < self.n_dice:
            raise ValueError("no such die")
        if not 1 <= face <= 6:
            raise ValueError("bad face")
        self.dice[i] = face
        self.rerolls[i] += 1
        self._count()

    def _rolloff(self, data):
        # Checked before anything changes (an illegal event leaves the state as it was).
        players = self.players()
        fresh = self.rolloff_winner >= 0 or not self.rolloff_in
        throwing = 0
        for p in range(players):
            if fresh or self.rolloff_in & (1 << p):
                throwing += 1
        if len(data) != 2 * throwing:
            raise ValueError("roll-off needs 2 dice per player")
        for face in data:
            if not 1 <= face <= 6:
                raise ValueError("bad face")
        if fresh:
            self.rolloff_in = (1 << players) - 1  # a new roll-off: everyone throws
            self.rolloff_throws = 0
            self.rolloff_winner = -1
            for p in range(_MAX_PLAYERS):
                self.rolloff_totals[p] = 0
        best = 0
        j = 0
        for p in range(players):
            if self.rolloff_in & (1 << p):
                a, b = data[j], data[j + 1]
                self.rolloff_totals[p] = a + b
                best = max(best, a + b)
                j += 2
            else:
                self.rolloff_totals[p] = 0
        still = 0
        for p in range(players):
            if self.rolloff_in & (1 << p) and self.rolloff_totals[p] == best:
                still |= 1 << p
        self.rolloff_in = still
        self.rolloff_throws += 1
        if still & (still - 1) == 0:  # one player left: the winner
            p = 0
            while not still & (1 << p):
                p += 1
            self.rolloff_winner = p
            self.rolloff_in = 0

    def rolloff_throwing(self):
        """Return the bitmask of players who throw next in the roll-off (all for a new one)."""
        if self.rolloff_in:
            return self.rolloff_in
        return (1 << self.players()) - 1


def fold(events, settings=None):
    """Return a Game with every event applied."""
    game = Game(settings)
    for event in events:
        game.apply(event)
    return game


# ---- commands: state + randbelow -> event ---------------------------------------------------


def roll(game, n, randbelow):
    """Return a ("roll", faces) event for n dice."""
    if not 1 <= n <= MAX_DICE:
        raise ValueError("bad dice count")
    return ("roll", tuple(_face(randbelow) for _ in range(n)))


def reroll(game, i, randbelow):
    """Return a ("reroll", (i, face)) event for die i of the current roll."""
    if not 0 <= i < game.n_dice:
        raise ValueError("no such die")
    return ("reroll", (i, _face(randbelow)))


def reroll_failures(game, randbelow):
    """Return the ("reroll", ...) events that re-roll every failed die of the current roll once."""
    out = []
    for i in range(game.n_dice):
        if game.roll_tn is not None and not is_success(game.dice[i], game.roll_tn):
            out.append(("reroll", (i, _face(randbelow))))
    return out


def roll_off(game, randbelow):
    """Return one ("rolloff", dice) throw: 2D6 for each player still in the roll-off."""
    throwing = game.rolloff_throwing()
    dice = []
    for p in range(game.players()):
        if throwing & (1 << p):
            dice.append(_face(randbelow))
            dice.append(_face(randbelow))
    return ("rolloff", tuple(dice))


def roll_off_all(game, randbelow):
    """Return the throws of a whole roll-off (ties thrown again) as a list of events; the game
    is not changed (a copy of the roll-off state is folded)."""
    probe = Game(game.settings)
    out = []
    while True:
        event = roll_off(probe, randbelow)
        probe.apply(event)
        out.append(event)
        if probe.rolloff_winner >= 0:
            return out


def d3(randbelow):
    """Return a ("d3", (face,)) event."""
    return ("d3", (_face(randbelow),))


def d3_plus_1(randbelow):
    """Return a ("d3p1", (face,)) event (D3+1)."""
    return ("d3p1", (_face(randbelow),))
