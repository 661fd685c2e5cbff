"""The Space Marine Heroes Battle Game (RULES.md section 1): scoring rolls, set-aside choices,
pushing your luck, bust, ALL OUT!, heroes, current score, win check and best of three.
Pure: runs unchanged on MicroPython and CPython; randomness arrives as randbelow(n).

Scoring rolls ("combos", sorted tuples of dice values), bust and the legal set-asides are in
dicepod.rules.scoring.

The game state is a fold over events (kind, data); data holds every die value, so folding never
needs randomness. Phases and the events each one accepts:
    "roll"     start of a turn       ("roll", (d1, .., d6))        the Battle Roll of six dice
    "choose"   the roll can score    ("set_aside", combos)         combos flattened, 0 between
                                                                   them: (6, 0, 1, 2, 3)
    "bust"     the roll cannot score ("bust", ())                  set-aside rolls lost, turn ends
    "decide"   after a set-aside     ("reroll", (k, kept.., new..)) push your luck: keep k of
                                                                   the free dice, re-roll the rest
                                     ("roll", (d1, .., d6))        only after ALL OUT! with the
                                                                   effect "roll all six again"
                                     ("actions", ())               stop rolling: Battle Actions
    "actions"  Battle Actions        ("advance", (player, hero, spaces))
                                     ("retreat", (player, hero, spaces))
                                     ("end_turn", ())              win check, next turn
    "over"     a game is won         ("next_game", (first_player,)) next game of best of three
Any time: ("set", (key, value)) changes a setting; ("new_game", ("battle",)) as first event.
("undo", ()) is the journal's business: fold() takes the effective events.

Rules as settled (RULES.md section 1): a set-aside uses each die once, at least one scoring
roll. A roll with kept (unrolled) dice busts when it holds no scoring roll at all (setting
kept_can_score 1, the default: kept dice belong to the new roll, BG-9), or when no scoring roll
uses a re-rolled die (0); with 0 a set-aside after such a roll must
include a re-rolled die. ALL OUT! = a set-aside leaves no free dice (setting all_out 1); its
effect is an extra turn after this one (all_out_effect 0) or rolling all six again with the
set-aside rolls kept (1). The win check runs at the end of every turn, a bust included.

Board model: each hero starts on its player's back row (advance 0); a half has `rows` rows, so a
hero is in the opponent's half at advance >= rows and at most 2 * rows - 1 (the far edge).
Players are 0 and 1 (0 = whoever finished setting up first), heroes 0..4 (columns).
"""

from micropython import const

from dicepod.rules.dice import check, contains, counts, remove
from dicepod.rules.dice import roll as roll_dice
from dicepod.rules.scoring import (
    fits_settings,
    is_bust,
    parse_combos,
    set_aside_choices,
    uses_rolled,
)
from dicepod.settings import Settings

TWO_SIXES = "battle.two_sixes"
KEPT_CAN_SCORE = "battle.kept_can_score"
ALL_OUT = "battle.all_out"
ALL_OUT_EFFECT = "battle.all_out_effect"
ROWS = "battle.rows"

_TABLE = const("battle.table")

# The rule points RULES.md marks [open], each a setting (key, default, low, high, label;
# docs/RULES.md BG-7, BG-9, BG-10, BG-13, BG-11). Rows per half is the printed board's: no
# default, the device asks (BG-13). The Battle Actions table is on: how many actions each
# kind of scoring roll buys is the players' to enter, asked once (BG-11).
SETTINGS = (
    (TWO_SIXES, 0, 0, 2, "Two 6s as"),  # 0 player chooses, 1 Double Six, 2 two Lucky Sixes
    (KEPT_CAN_SCORE, 1, 0, 1, "Kept dice alone score"),  # 0 no, 1 yes (the literal reading)
    (ALL_OUT, 1, 0, 1, "ALL OUT! on"),  # 0 off, 1 on (all six dice set aside)
    (ALL_OUT_EFFECT, 0, 0, 1, "ALL OUT! gives"),  # 0 extra turn, 1 roll all six again
    (ROWS, None, 1, 9, "Rows per half"),
    (_TABLE, 1, 0, 1, "Actions table"),  # 1 on (refereed), 0 off: the entries below count
    ("battle.buys_lucky", None, 0, 9, "Lucky Six buys"),  # actions, in kind_index order
    ("battle.buys_double", None, 0, 9, "Double Six buys"),
    ("battle.buys_three", None, 0, 9, "Three of a Kind buys"),
    ("battle.buys_straight", None, 0, 9, "Straight buys"),
)
_TABLE_AT = const(6)  # the position of the table's first entry

# Names for each value of the multiple-choice settings, for the settings screen.
VALUE_NAMES = (
    (TWO_SIXES, ("Player chooses", "Double Six", "Two Lucky Sixes")),
    (KEPT_CAN_SCORE, ("No", "Yes")),
    (ALL_OUT, ("Off", "On")),
    (ALL_OUT_EFFECT, ("Extra turn", "Roll six again")),
    (_TABLE, ("Off", "On")),
)

PLAYERS = 2
HEROES = 5
SERIES = 3  # best of three
DICE = 6

# Phases (strings, so screens and tests read them directly).
ROLL = "roll"
CHOOSE = "choose"
BUST = "bust"
DECIDE = "decide"
ACTIONS = "actions"
OVER = "over"


class Game:
    """A Battle Game series (best of three) folded from events; see the module docstring."""

    def __init__(self, settings=None):
        values = settings
        if settings is not None and not isinstance(settings, dict):
            values = settings.values
        # A private copy: a setting changes mid-game only through a ("set", ...) event.
        self.settings = Settings(SETTINGS, values)
        self.applied = 0
        self.results = []  # final current scores (player 0, player 1) of each finished game
        self.game_number = 1
        self.lost = ()
        self._start_game(0)

    # -- state the screens read ------------------------------------------------------------

    def _start_game(self, first):
        self.heroes = [[0] * HEROES, [0] * HEROES]  # spaces advanced from the starting space
        self.player = first
        self.turn = 1
        self.winner = None
        self.again = False  # this turn is an extra turn (ALL OUT!'s, BG-10): the screen says so
        self._start_turn()

    def _start_turn(self):
        self.phase = ROLL
        self.dice = ()  # the free dice of the current roll (kept ones first), display order
        self.kept = ()  # of those, the dice left unrolled by the last re-roll
        self.aside = []  # scoring rolls set aside this turn
        self.all_out = False  # all six dice set aside this turn (ALL OUT! shown)
        self.actions_left = None  # spaces the Battle Actions may still move (None: no table)

    def rows(self):
        """Return the rows per half."""
        return self.settings.get(ROWS)

    def score(self, player):
        """Return a player's current score: spaces advanced by their heroes."""
        return sum(self.heroes[player])

    def across(self, player):
        """Return how many of a player's heroes stand in the opponent's half."""
        rows = self.rows()
        n = 0
        for a in self.heroes[player]:
            if a >= rows:
                n += 1
        return n

    def rolled(self):
        """Return the dice of the current roll that were re-rolled (not kept)."""
        return remove(self.dice, self.kept) if self.phase in (CHOOSE, BUST) else ()

    def choices(self):
        """Return the legal set-asides for the current roll ([] outside the choose phase)."""
        if self.phase != CHOOSE:
            return []
        return set_aside_choices(
            self.dice,
            self.kept,
            self.settings.get(TWO_SIXES),
            self.settings.get(KEPT_CAN_SCORE),
        )

    def can_roll_again(self):
        """True when ALL OUT! lets the player roll all six dice again this turn."""
        return self.phase == DECIDE and self.all_out and self.settings.get(ALL_OUT_EFFECT) == 1

    def extra_turn(self):
        """True when this turn's ALL OUT! gives the player another turn after this one."""
        return self.all_out and self.settings.get(ALL_OUT_EFFECT) == 0

    def totals(self):
        """Return the best-of-three totals (player 0, player 1) over the finished games."""
        first = second = 0
        for r in self.results:
            first += r[0]
            second += r[1]
        return [first, second]

    def series_over(self):
        """True when all three games of the series are played."""
        return len(self.results) >= SERIES

    def series_winner(self):
        """Return 0 or 1, the series winner on total score; None if not over or a tie."""
        if not self.series_over():
            return None
        first, second = self.totals()
        if first == second:
            return None
        return 0 if first > second else 1

    def state(self):
        """Return the whole state as a JSON-able list (equal states give equal lists)."""
        values = self.settings.values
        return [
            self.game_number,
            list(map(list, self.results)),
            list(map(list, self.heroes)),
            self.player,
            self.turn,
            self.phase,
            list(self.dice),
            list(self.kept),
            list(map(list, self.aside)),
            list(map(list, self.lost)),
            self.all_out,
            self.winner,
            list(map(list, sorted(values.items()))),
        ]

    # -- folding -----------------------------------------------------------------------------

    def apply(self, event):
        """Fold one event in; raise ValueError (state unchanged) if it is illegal now."""
        try:
            kind_, data = event
            data = tuple(data)
        except (TypeError, ValueError):
            raise ValueError("malformed event")
        handler = _HANDLERS.get(kind_) if isinstance(kind_, str) else None
        if handler is None:
            raise ValueError("unknown event %s" % kind_)
        handler(self, data)
        self.applied += 1

    def _need(self, phase, what):
        if self.phase != phase:
            raise ValueError("%s not allowed in phase %s" % (what, self.phase))

    def _on_new_game(self, data):
        if self.applied:
            raise ValueError("new_game must come first")
        if data != ("battle",):
            raise ValueError("not a battle game")

    def _on_set(self, data):
        if len(data) != 2:
            raise ValueError("set takes key, value")
        key, value = data
        if value is None:
            raise ValueError("%s needs a value" % key)
        if key == ROWS and isinstance(value, int):
            for heroes in self.heroes:
                if max(heroes) > 2 * value - 1:
                    raise ValueError("a hero stands beyond the new rows")
        self.settings.set(key, value)

    def _roll_state(self, dice, kept):
        """Enter the new roll: choose or bust."""
        rolled = remove(dice, kept)
        busted = is_bust(rolled, kept, self.settings.get(KEPT_CAN_SCORE))
        self.dice = dice
        self.kept = kept
        self.all_out = False
        self.phase = BUST if busted else CHOOSE

    def _on_roll(self, data):
        if self.phase == ROLL:
            again = False
        elif self.can_roll_again():
            again = True
        else:
            raise ValueError("roll not allowed in phase %s" % self.phase)
        if len(data) != DICE:
            raise ValueError("a Battle Roll is six dice")
        dice = check(data)
        if not again:
            self.lost = ()
        self._roll_state(dice, ())

    def _on_reroll(self, data):
        self._need(DECIDE, "reroll")
        if not data or not isinstance(data[0], int) or not 0 <= data[0] <= len(self.dice):
            raise ValueError("bad kept count")
        kept = check(data[1 : 1 + data[0]])
        new = check(data[1 + data[0] :])
        if not contains(counts(self.dice), counts(kept)):
            raise ValueError("kept dice are not free dice")
        if not new:
            raise ValueError("re-roll at least one die")
        if len(kept) + len(new) != len(self.dice):
            raise ValueError("re-roll every free die not kept")
        self._roll_state(kept + new, kept)

    def _on_set_aside(self, data):
        self._need(CHOOSE, "set_aside")
        combos = parse_combos(data)
        values = []
        for combo in combos:
            values.extend(combo)
        face_counts = counts(self.dice)
        if not contains(face_counts, counts(values)):
            raise ValueError("those dice are not in the roll")
        reason = fits_settings(combos, self.settings.get(TWO_SIXES))
        if reason:
            raise ValueError(reason)
        if self.kept and not self.settings.get(KEPT_CAN_SCORE):
            rolled = counts(self.kept)
            for i in range(7):
                rolled[i] = face_counts[i] - rolled[i]
            if not uses_rolled(combos, rolled):
                raise ValueError("a scoring roll must use a re-rolled die")
        self.aside.extend(combos)
        self.dice = remove(self.dice, values)
        self.kept = ()
        self.all_out = not self.dice and self.settings.get(ALL_OUT) == 1
        self.phase = DECIDE

    def _on_bust(self, data):
        self._need(BUST, "bust")
        if data:
            raise ValueError("bust takes no data")
        self.lost = tuple(self.aside)
        self.aside = []
        self._end_turn(False)

    def _on_actions(self, data):
        self._need(DECIDE, "actions")
        if data:
            raise ValueError("actions takes no data")
        count = bought(self)  # first: a value not entered yet changes nothing
        self.phase = ACTIONS
        self.actions_left = count

    def _move(self, data, sign):
        self._need(ACTIONS, "moving a hero")
        if len(data) != 3:
            raise ValueError("takes player, hero, spaces")
        for value in data:
            if not isinstance(value, int):
                raise ValueError("player, hero, spaces are numbers")
        player, hero, spaces = data
        if not 0 <= player < PLAYERS or not 0 <= hero < HEROES:
            raise ValueError("no such hero")
        if spaces < 1:
            raise ValueError("move at least one space")
        if sign > 0 and player != self.player:
            raise ValueError("the enemy's heroes only go back")  # pushed back (BG-12)
        left = self.actions_left
        if left is not None and spaces > left:
            raise ValueError("%d actions left" % left)  # each space is an action (BG-11)
        advance = self.heroes[player][hero] + sign * spaces
        if advance < 0:
            raise ValueError("cannot retreat past the starting space")
        if advance > 2 * self.rows() - 1:
            raise ValueError("cannot advance off the battlefield")
        self.heroes[player][hero] = advance
        if left is not None:
            self.actions_left = left - spaces

    def _on_advance(self, data):
        self._move(data, 1)

    def _on_retreat(self, data):
        self._move(data, -1)

    def _on_end_turn(self, data):
        self._need(ACTIONS, "end_turn")
        if data:
            raise ValueError("end_turn takes no data")
        self._end_turn(self.extra_turn())

    def _end_turn(self, again):
        """Win check for the player whose turn ends, then the next turn (or game over)."""
        player = self.player
        if self.across(player) >= 3 and self.score(player) > self.score(1 - player):
            self.winner = player
            self.results.append((self.score(0), self.score(1)))
            self.phase = OVER
            self.dice = ()
            self.kept = ()
            return
        if not again:
            self.player = 1 - player
        self.again = again
        self.turn += 1
        self._start_turn()

    def _on_next_game(self, data):
        self._need(OVER, "next_game")
        if self.series_over():
            raise ValueError("the best of three is over")
        if len(data) != 1 or data[0] not in (0, 1):
            raise ValueError("next_game takes the first player, 0 or 1")
        self.game_number += 1
        self.lost = ()
        self._start_game(data[0])


_HANDLERS = {
    "new_game": Game._on_new_game,
    "set": Game._on_set,
    "roll": Game._on_roll,
    "reroll": Game._on_reroll,
    "set_aside": Game._on_set_aside,
    "bust": Game._on_bust,
    "actions": Game._on_actions,
    "advance": Game._on_advance,
    "retreat": Game._on_retreat,
    "end_turn": Game._on_end_turn,
    "next_game": Game._on_next_game,
}


def bought(game):
    """Return how many actions the set-aside rolls buy by the players' table (BG-11), or None
    when the table is off; MissingValue for an entry not filled in yet."""
    from dicepod.rules import scoring

    settings = game.settings
    if not settings.get(_TABLE):
        return None
    count = 0
    for combo in game.aside:
        count += settings.at(_TABLE_AT + scoring.kind_index(combo))
    return count


def fold(events, settings=None):
    """Return the Game after applying the effective events in order (any iterable, streamed:
    the journal has already applied undo; undo here = fold again without the last event)."""
    game = Game(settings)
    for event in events:
        game.apply(event)
    return game


# -- commands: events from state (+ randbelow) ---------------------------------------------


def roll(game, randbelow):
    """Return the Battle Roll event: all six dice."""
    return ("roll", roll_dice(DICE, randbelow))


def reroll(game, keep, randbelow):
    """Return the push-your-luck event: keep `keep` of the free dice, re-roll the others."""
    keep = tuple(keep)
    count = len(game.dice) - len(keep)
    if count < 1:
        raise ValueError("re-roll at least one die")
    return ("reroll", (len(keep),) + keep + roll_dice(count, randbelow))


def set_aside(combos):
    """Return the event setting aside these scoring rolls (e.g. one of game.choices())."""
    data = []
    for combo in combos:
        if data:
            data.append(0)
        data.extend(combo)
    return ("set_aside", tuple(data))


def bust():
    """Return the event that accepts a bust (the turn ends)."""
    return ("bust", ())


def actions():
    """Return the event that stops rolling and starts the Battle Actions."""
    return ("actions", ())


def advance(player, hero, spaces=1):
    """Return the event moving a hero forward."""
    return ("advance", (player, hero, spaces))


def retreat(player, hero, spaces=1):
    """Return the event moving a hero back."""
    return ("retreat", (player, hero, spaces))


def end_turn():
    """Return the event ending the Battle Actions (and the turn)."""
    return ("end_turn", ())


def next_game(first_player):
    """Return the event starting the next game of the best of three."""
    return ("next_game", (first_player,))
