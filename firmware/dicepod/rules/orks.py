"""Space Marine Adventures: Rise of the Orks (RULES.md section 4). Pure: runs unchanged on
MicroPython and CPython.

What the device tracks, restated from the rulebook: five Terminators defend six power reactors
against a horde of Ork tokens chosen by the difficulty. The horde is a face-down reserves pile;
tokens are added at random, each with an attack-die roll that picks its breach hex (1-6). A round
is an Ork wave (skipped in round 1: set-up placed the first wave), the Terminator Action phase
(one turn each, highest Command value first) and the Ork Action phase. A Terminator's attack is
one roll of the attack die that destroys the token when it equals or beats the token's Toughness,
plus 1 when the token is in cover and plus 1 next to the Painboy (never for the Painboy itself).
Ork attacks always hit and move the Terminator's damage marker (track 0-5; Brother-Sergeant
Angelus's Storm Shield cuts any damage to 1). At 5 he is out of action and the grit marker moves
one space toward 0. Ending an activation in a starting hex heals 1. Heroes All: an out-of-action
Terminator stands up when his turn comes, one damage away from out of action again. The players
lose when grit reaches 0 or the last reactor is damaged, and win when the reserves are empty and
the last Ork on the board is destroyed; the victory is ranked by grit and reactors left. Ending a
move on one of the six supply tokens draws two supply cards: keep one, discard one. Reminders:
a Warboss in a wave sends every Boy to move and attack once before the Terminators act; the
Weirdboy, the Big Mek and the Meks deal damage at the end of the Ork phase.

The board (hexes, line of sight, who is next to whom) stays with the players: the device keeps
the reserves, the counts, the dice, the tracks and the turn order.

Choices where the rulebook is silent (RULES.md marks them [open]): every Command value but
Angelus's, every token's Toughness and damage, and the Warrior, Veteran and Commander cards
(tokens of each kind, Orks per wave) are settings with no default (MissingValue until entered).
Equal Command values: the players choose the order (docs/RULES.md OR-6), so the start event
then names it. Each turn a Terminator has as many Moves and Attacks as his datasheet gives
(Angelus three of each, the others asked; an ability or card may grant one more Attack); the
device refuses more (OR-8), and a starting hex heals once per activation (OR-10). "Ork hits"
names a kind on the board (OR-16). With the setting orks.real_draws the players draw the real
tokens from the reserves and enter the kind (DK-2). The set-up placement counts as the first
wave, so a Warboss in it raises the Warpath reminder too. An attack compares the die with the
Toughness alone (no natural-6/1 rule in this game). When the supply deck holds fewer than two
cards, the cards left are drawn.

Events (ints; T = Terminator id 0..4, K = Ork kind 0..9):
    ("start", (difficulty,))     set up: NOVICE, WARRIOR, VETERAN or COMMANDER
    ("start", (difficulty, T, T, T, T, T))  ... in the turn order the players chose (needed
                                 when Command values are equal; highest Command first)
    ("move", ())                 the current Terminator's Move action
    ("add", (K, face))           an Ork token drawn from the reserves into breach hex `face`
    ("next", ())                 end of the wave / of the current Terminator's turn / Ork phase
    ("attack", (K, face, cover, painboy))       the current Terminator's Attack action
    ("attack", (K, face, cover, painboy, tough)) ... with the Toughness a kept supply card
                                 sets (e.g. 2): the card is played
    ("destroy", (K,))            a token destroyed without an attack roll (a card)
    ("hit", (T, K))              an Ork token of kind K (on the board) attacks T (its damage
                                 from settings), not in the Terminators' phase
    ("damage", (T, n))           T is dealt n damage (Weirdboy, Big Mek, Mek, cards)
    ("heal", (T,))               T ends his activation in a starting hex (once)
    ("smash", ())                an Ork damages a power reactor
    ("supply", (T,))             the active T ends his Move on a supply token (once a turn):
                                 draw 2, keep 1, discard 1
    ("play_supply", ())          a kept supply card is played (to the discard pile)
    ("extra", ())                an ability or card grants the active Terminator one Attack
    ("set", (key, value)), ("new_game", (mode,))   journal bookkeeping
"""

from micropython import const

from dicepod.rules import apply_checked
from dicepod.rules.bag import Bag, bag_pick
from dicepod.rules.specs import Specs
from dicepod.settings import Settings

MODE = "orks"

TERMINATORS = ("Magmus", "Angelus", "Stormheart", "Lucian", "Etrus")
ANGELUS = const(1)
_ANGELUS_COMMAND = const(9)  # [seed]
_ANGELUS_ACTIONS = const(3)  # Unstoppable Advance: three Moves and three Attacks [seed]
_OUT = const(5)  # damage track 0..5; 5 is out of action [seed]

KINDS = (
    "Boy",
    "Nob",
    "Meganob",
    "Burna Boy",
    "Kommando",
    "Mek",
    "Big Mek",
    "Painboy",
    "Weirdboy",
    "Warboss",
)
BOY = 0
MEK = 5
BIG_MEK = 6
PAINBOY = 7
WEIRDBOY = 8
WARBOSS = 9
BOX = (20, 5, 5, 8, 10, 2, 1, 1, 1, 1)  # Ork tokens in the box, by kind [seed]

NOVICE = 0
WARRIOR = 1
VETERAN = 2
COMMANDER = 3
DIFFICULTIES = ("Novice", "Warrior", "Veteran", "Commander")
_NOVICE_HORDE = const((20, 5, 0, 0, 5, 0, 0, 0, 0, 0))  # 20 Boyz, 5 Nobz, 5 Kommandos [seed]
_NOVICE_WAVE = const(5)  # [seed]

_GRIT = const(3)  # [seed]
_REACTORS = const(6)  # [seed]
_SUPPLY_CARDS = const(32)  # [seed]
_SUPPLY_TOKENS = const(6)  # [seed]

# phases
SETUP = 0
WAVE = 1
TERMINATOR_PHASE = 2
ORK_PHASE = 3
OVER = 4

# results
WON = 1
LOST_GRIT = 2
LOST_REACTORS = 3

# reminder bits (Game.reminders())
R_WARPATH = 1  # Warboss in this wave: every Boy moves and attacks once before the Terminators
R_WEIRDBOY = 2  # end of Ork phase: Weirdboy damage = Orks next to it, nearest within 2 hexes
R_BIG_MEK = 4  # end of Ork phase: 2 damage to the nearest visible Terminator
R_MEK = 8  # end of Ork phase: 1 damage to the nearest visible Terminator, per Mek
R_PAINBOY = 16  # Orks next to the Painboy: +1 Toughness
REMINDERS = (  # each fits one line of the screen (21 letters)
    (R_WARPATH, "Warpath:Boyz move+atk"),
    (R_WEIRDBOY, "Weirdboy: Waaagh! dmg"),
    (R_BIG_MEK, "Big Mek: 2 dmg near"),
    (R_MEK, "Mek: 1 dmg nearest"),
    (R_PAINBOY, "Painboy: +1 T next"),
)

# Victory ranking labels, in our own words: by grit left (index 1..3), by reactors (1..6).
GRIT_RANK = ("", "Grim", "Costly", "Unblemished")
REACTOR_RANK = (
    "",
    "Little glory",
    "Bittersweet",
    "Stained",
    "City saved",
    "Near-perfect",
    "Glorious",
)

# Indexes into SETTINGS (folding reads values by position: no key strings, no lookups).
# Command values: Magmus, Stormheart, Lucian, Etrus (Angelus's is the rulebook's).
_COMMAND_INDEX = const((0, -1, 1, 2, 3))
_TOUGH = const(4)  # Toughness of each kind, in KINDS order
_DAMAGE = const(14)  # damage of each kind, in KINDS order
_HORDE = const(24)  # Warrior, Veteran, Commander: 10 kinds then Orks per wave, 11 a card
_CARD = const(11)
_ACTIONS = const(58)  # Moves (and as many Attacks) a turn: Magmus, Stormheart, Lucian, Etrus

# Names for the yes/no settings, for the settings screen.
VALUE_NAMES = (("orks.real_draws", ("No", "Yes")),)

# Everything here is None (ask the player, from the datasheets, tokens and difficulty cards)
# except what the rulebook gives: Angelus's Command, the Novice horde and wave. Ranges: the
# box holds at most BOX[kind] tokens of a kind. One spec a line: key default low high label
# (see dicepod.rules.specs; `-` = no default). The order is what the indexes above use.
SETTINGS = Specs(
    b"""\
orks.command_magmus - 1 20 Magmus Command
orks.command_stormheart - 1 20 Stormheart Command
orks.command_lucian - 1 20 Lucian Command
orks.command_etrus - 1 20 Etrus Command
orks.tough_boy - 1 6 Boy Toughness
orks.tough_nob - 1 6 Nob Toughness
orks.tough_meganob - 1 6 Meganob Toughness
orks.tough_burna - 1 6 Burna Boy Toughness
orks.tough_kommando - 1 6 Kommando Toughness
orks.tough_mek - 1 6 Mek Toughness
orks.tough_bigmek - 1 6 Big Mek Toughness
orks.tough_painboy - 1 6 Painboy Toughness
orks.tough_weirdboy - 1 6 Weirdboy Toughness
orks.tough_warboss - 1 6 Warboss Toughness
""",
    b"""\
orks.damage_boy - 0 5 Boy damage
orks.damage_nob - 0 5 Nob damage
orks.damage_meganob - 0 5 Meganob damage
orks.damage_burna - 0 5 Burna Boy damage
orks.damage_kommando - 0 5 Kommando damage
orks.damage_mek - 0 5 Mek damage
orks.damage_bigmek - 0 5 Big Mek damage
orks.damage_painboy - 0 5 Painboy damage
orks.damage_weirdboy - 0 5 Weirdboy damage
orks.damage_warboss - 0 5 Warboss damage
""",
    b"""\
orks.warrior_boy - 0 20 Warrior Boyz
orks.warrior_nob - 0 5 Warrior Nobz
orks.warrior_meganob - 0 5 Warrior Meganobz
orks.warrior_burna - 0 8 Warrior Burnas
orks.warrior_kommando - 0 10 Warrior Kommandos
orks.warrior_mek - 0 2 Warrior Meks
orks.warrior_bigmek - 0 1 Warrior Big Meks
orks.warrior_painboy - 0 1 Warrior Painboyz
orks.warrior_weirdboy - 0 1 Warrior Weirdboyz
orks.warrior_warboss - 0 1 Warrior Warbosses
orks.warrior_wave - 1 20 Warrior Orks/wave
""",
    b"""\
orks.veteran_boy - 0 20 Veteran Boyz
orks.veteran_nob - 0 5 Veteran Nobz
orks.veteran_meganob - 0 5 Veteran Meganobz
orks.veteran_burna - 0 8 Veteran Burnas
orks.veteran_kommando - 0 10 Veteran Kommandos
orks.veteran_mek - 0 2 Veteran Meks
orks.veteran_bigmek - 0 1 Veteran Big Meks
orks.veteran_painboy - 0 1 Veteran Painboyz
orks.veteran_weirdboy - 0 1 Veteran Weirdboyz
orks.veteran_warboss - 0 1 Veteran Warbosses
orks.veteran_wave - 1 20 Veteran Orks/wave
""",
    b"""\
orks.commander_boy - 0 20 Commander Boyz
orks.commander_nob - 0 5 Commander Nobz
orks.commander_meganob - 0 5 Commander Meganobz
orks.commander_burna - 0 8 Commander Burnas
orks.commander_kommando - 0 10 Commander Kommandos
orks.commander_mek - 0 2 Commander Meks
orks.commander_bigmek - 0 1 Commander Big Meks
orks.commander_painboy - 0 1 Commander Painboyz
orks.commander_weirdboy - 0 1 Commander Weirdboyz
orks.commander_warboss - 0 1 Commander Warbosses
orks.commander_wave - 1 20 Commander Orks/wave
orks.real_draws 0 0 1 Players draw real tokens
""",
    b"""\
orks.actions_magmus - 1 3 Magmus Moves+Attacks
orks.actions_stormheart - 1 3 Stormheart Moves+Atk
orks.actions_lucian - 1 3 Lucian Moves+Attacks
orks.actions_etrus - 1 3 Etrus Moves+Attacks
""",
)


def victory_rank(grit, reactors):
    """Return the (grit label, reactor label) of a victory."""
    return GRIT_RANK[grit], REACTOR_RANK[reactors]


class Game:
    """A game of Rise of the Orks.

    Attributes the screens read: phase (SETUP/WAVE/TERMINATOR_PHASE/ORK_PHASE/OVER), round,
    difficulty, reserves (Bag by kind; .total), board / destroyed (bytearrays by kind),
    on_board (total), kills (bytearray by Terminator), damage (bytearray by Terminator, 0..5),
    order (bytearray of Terminator ids, highest Command first), turn (index in order),
    current (Terminator id whose turn it is, -1 none), stood_up (Heroes All just happened),
    wave_size, wave_left, wave_warboss, last_breach, last_hit (None/True/False), last_kind,
    grit, reactors, supply_deck, supply_discard, supply_kept, supply_tokens, result (None,
    WON, LOST_GRIT, LOST_REACTORS), events; reminders() (bitmask of R_*), rank()."""

    def __init__(self, settings=None):
        self.settings = settings if settings is not None else Settings(SETTINGS)
        self.reserves = Bag(10)
        self.board = bytearray(10)
        self.destroyed = bytearray(10)
        self.kills = bytearray(5)
        self.damage = bytearray(5)
        self.order = bytearray(5)
        self.phase = SETUP
        self.difficulty = NOVICE
        self.events = 0
        self._reset()

    def _reset(self):
        self.round = 0
        self.turn = 0
        self.current = -1
        self.stood_up = False
        self.moves_left = 0
        self.attacks_left = 0
        self.moved = False
        self.supplied = False
        self.healed = False
        self.on_board = 0
        self.wave_size = 0
        self.wave_left = 0
        self.wave_warboss = False
        self.last_breach = 0
        self.last_hit = None
        self.last_kind = -1
        self.grit = _GRIT
        self.reactors = _REACTORS
        self.supply_deck = _SUPPLY_CARDS
        self.supply_discard = 0
        self.supply_kept = 0
        self.supply_tokens = _SUPPLY_TOKENS
        self.result = None
        self.reserves.clear()
        for i in range(10):
            self.board[i] = 0
            self.destroyed[i] = 0
        for i in range(5):
            self.kills[i] = 0
            self.damage[i] = 0

    # -- values from settings
    def command(self, t):
        """Return Terminator t's Command value (MissingValue if not entered)."""
        if t == ANGELUS:
            return _ANGELUS_COMMAND
        return self.settings.at(_COMMAND_INDEX[t])

    def allowance(self, t):
        """Return how many Moves, and as many Attacks, Terminator t has a turn (MissingValue
        if not entered: only Angelus's datasheet is in the rulebook, OR-8)."""
        if t == ANGELUS:
            return _ANGELUS_ACTIONS
        return self.settings.at(_ACTIONS + _COMMAND_INDEX[t])

    def toughness(self, kind):
        """Return an Ork kind's Toughness (MissingValue if not entered)."""
        return self.settings.at(_TOUGH + kind)

    def ork_damage(self, kind):
        """Return an Ork kind's damage (MissingValue if not entered)."""
        return self.settings.at(_DAMAGE + kind)

    def horde(self, difficulty, kind):
        """Return how many tokens of a kind the difficulty's horde holds."""
        if difficulty == NOVICE:
            return _NOVICE_HORDE[kind]
        return self.settings.at(_HORDE + (difficulty - 1) * _CARD + kind)

    def per_wave(self):
        """Return the Orks per wave of the game's difficulty."""
        if self.difficulty == NOVICE:
            return _NOVICE_WAVE
        return self.settings.at(_HORDE + self.difficulty * _CARD - 1)

    def reminders(self):
        """Return a bitmask of the special-Ork reminders that apply now (R_*)."""
        bits = 0
        if self.phase == WAVE and self.wave_warboss and not self.wave_left:
            bits |= R_WARPATH
        if self.phase == ORK_PHASE:
            if self.board[WEIRDBOY]:
                bits |= R_WEIRDBOY
            if self.board[BIG_MEK]:
                bits |= R_BIG_MEK
            if self.board[MEK]:
                bits |= R_MEK
        if self.board[PAINBOY] and self.phase == TERMINATOR_PHASE:
            bits |= R_PAINBOY
        return bits

    def rank(self):
        """Return the victory's (grit label, reactor label), or None when not won."""
        if self.result != WON:
            return None
        return victory_rank(self.grit, self.reactors)

    # -- folding
    def apply(self, event):
        """Fold one event into the state; raise ValueError for an illegal one (MissingValue
        when it needs a setting the player has not entered)."""
        apply_checked(self, event, MODE)

    def _apply(self, kind, data):
        if kind == "attack":
            self._attack(data)
        elif kind == "add":
            self._add(data)
        elif kind == "next":
            self._next()
        elif kind == "move":
            if self.phase != TERMINATOR_PHASE or data:
                raise ValueError("not the Terminators' phase")
            if not self.moves_left:
                raise ValueError("no Move left")
            self.moves_left -= 1
            self.moved = True
        elif kind == "hit":
            self._playing()
            if len(data) != 2 or not 0 <= data[1] < 10:
                raise ValueError("bad hit")
            if not self.board[data[1]]:
                raise ValueError("no such Ork on the board")
            self._orks_act()
            self._damage(self._terminator(data), self.ork_damage(data[1]))
        elif kind == "damage":
            self._playing()
            if len(data) != 2 or not 0 <= data[1] <= _OUT:
                raise ValueError("bad damage")
            self._damage(self._terminator(data), data[1])
        elif kind == "heal":
            self._heal(data)
        elif kind == "smash":
            self._orks_act()
            self.reactors -= 1
            if not self.reactors:
                self._finish(LOST_REACTORS)
        elif kind == "destroy":
            self._playing()
            if len(data) != 1:
                raise ValueError("bad destroy")
            self._destroyed(data[0], -1)
        elif kind == "supply":
            self._supply(data)
        elif kind == "extra":  # an ability or card grants the active Terminator an Attack
            if self.phase != TERMINATOR_PHASE or data:
                raise ValueError("not the Terminators' phase")
            self.attacks_left += 1
        elif kind == "play_supply":
            if not self.supply_kept:
                raise ValueError("no supply card kept")
            self.supply_kept -= 1
            self.supply_discard += 1
        elif kind == "start":
            self._start(data)
        else:
            raise ValueError("unknown event %s" % kind)

    def _playing(self):
        if self.phase == SETUP or self.phase == OVER:
            raise ValueError("no game in play")

    def _orks_act(self):
        # Orks attack in their own phase and on the Warpath, never in the Terminators' (OR-17)
        self._playing()
        if self.phase == TERMINATOR_PHASE:
            raise ValueError("Orks act later")

    def _terminator(self, data):
        t = data[0]
        if not 0 <= t < 5:
            raise ValueError("no such Terminator")
        return t

    def _start(self, data):
        if self.phase != SETUP and self.phase != OVER:
            raise ValueError("a game is in play")
        if len(data) not in (1, 6) or not NOVICE <= data[0] <= COMMANDER:
            raise ValueError("bad difficulty")
        difficulty = data[0]
        # Read every value first: a missing one raises MissingValue before anything changes.
        for t in range(5):
            self.command(t)
        wave = _NOVICE_WAVE
        if difficulty != NOVICE:
            wave = self.settings.at(_HORDE + difficulty * _CARD - 1)
        for k in range(10):
            self.horde(difficulty, k)
        # Command order: highest first (a stable sort); equal values in the players' order.
        given = list(data[1:])
        if given and sorted(given) != [0, 1, 2, 3, 4]:
            raise ValueError("bad turn order")
        order = given or [0, 1, 2, 3, 4]
        for i in range(1, 5):
            j = i
            while j > 0 and self.command(order[j]) > self.command(order[j - 1]):
                order[j], order[j - 1] = order[j - 1], order[j]
                j -= 1
            if not given and j and self.command(order[j]) == self.command(order[j - 1]):
                raise ValueError("choose the order")  # equal Command values (OR-6)
        if given and order != list(data[1:]):
            raise ValueError("highest first")
        for t in range(5):
            self.allowance(t)
        self._reset()
        self.difficulty = difficulty
        for k in range(10):
            n = self.horde(difficulty, k)
            if n:
                self.reserves.put(k, n)
        for i in range(5):
            self.order[i] = order[i]
        self.round = 1
        self.phase = WAVE  # set-up adds the first wave exactly like a wave
        self._begin_wave(wave)

    def _begin_wave(self, size):
        self.wave_size = size
        self.wave_left = min(size, self.reserves.total)
        self.wave_warboss = False

    def _add(self, data):
        if self.phase != WAVE or not self.wave_left:
            raise ValueError("no Orks to add now")
        if len(data) != 2 or not 0 <= data[0] < 10 or not 1 <= data[1] <= 6:
            raise ValueError("bad add")
        self.reserves.take(data[0])
        self.board[data[0]] += 1
        self.on_board += 1
        self.wave_left -= 1
        self.last_breach = data[1]
        self.last_kind = data[0]
        if data[0] == WARBOSS:
            self.wave_warboss = True

    def _next(self):
        if self.phase == WAVE:
            if self.wave_left:
                raise ValueError("add the wave first")
            self.phase = TERMINATOR_PHASE
            self.turn = 0
            self._begin_turn()
        elif self.phase == TERMINATOR_PHASE:
            self.turn += 1
            if self.turn < 5:
                self._begin_turn()
            else:
                self.current = -1
                self.stood_up = False
                self.phase = ORK_PHASE
        elif self.phase == ORK_PHASE:
            size = self.per_wave()  # first: a missing value changes nothing
            self.round += 1
            self.phase = WAVE
            self._begin_wave(size)
        else:
            raise ValueError("no game in play")
        self.last_hit = None

    def _begin_turn(self):
        t = self.order[self.turn]
        self.current = t
        self.stood_up = False
        actions = self.allowance(t)
        self.moves_left = actions
        self.attacks_left = actions
        self.moved = False
        self.supplied = False
        self.healed = False
        if self.damage[t] >= _OUT:  # Heroes All: one damage from out of action again
            self.damage[t] = _OUT - 1
            self.stood_up = True

    def _attack(self, data):
        if self.phase != TERMINATOR_PHASE:
            raise ValueError("not the Terminators' phase")
        if not 4 <= len(data) <= 5:
            raise ValueError("bad attack")
        # Unpacked one by one: a 4-name tuple assignment allocates a tuple on MicroPython.
        kind = data[0]
        face = data[1]
        cover = data[2]
        painboy = data[3]
        if not 0 <= kind < 10 or not 1 <= face <= 6 or not 0 <= cover <= 1:
            raise ValueError("bad attack")
        if not self.board[kind]:
            raise ValueError("no such Ork on the board")
        if painboy and (painboy != 1 or kind == PAINBOY or not self.board[PAINBOY]):
            raise ValueError("no Painboy bonus")
        if not self.attacks_left:
            raise ValueError("no Attack left")
        tough = data[4] if len(data) == 5 else self.toughness(kind)
        if not 1 <= tough <= 6:
            raise ValueError("bad toughness")
        if len(data) == 5:  # a supply card's attack: the card kept is played (OR-14)
            if not self.supply_kept:
                raise ValueError("no supply card kept")
            self.supply_kept -= 1
            self.supply_discard += 1
        self.attacks_left -= 1
        self.last_kind = kind
        self.last_hit = face >= tough + cover + painboy
        if self.last_hit:
            self._destroyed(kind, self.current)

    def _destroyed(self, kind, by):
        if not 0 <= kind < 10 or not self.board[kind]:
            raise ValueError("no such Ork on the board")
        self.board[kind] -= 1
        self.on_board -= 1
        self.destroyed[kind] += 1
        if by >= 0:
            self.kills[by] += 1
        if not self.on_board and not self.reserves.total:
            self._finish(WON)

    def _damage(self, t, n):
        if self.damage[t] >= _OUT:
            raise ValueError("Orks do not attack a Terminator out of action")
        if t == ANGELUS and n > 1:
            n = 1  # Storm Shield [seed]
        self.damage[t] = min(_OUT, self.damage[t] + n)
        if self.damage[t] >= _OUT:
            self.grit -= 1
            if not self.grit:
                self._finish(LOST_GRIT)

    def _heal(self, data):
        if self.phase != TERMINATOR_PHASE or len(data) != 1 or data[0] != self.current:
            raise ValueError("only the active Terminator heals")
        t = data[0]
        if self.damage[t] >= _OUT:
            raise ValueError("out of action")
        if self.healed:
            raise ValueError("healed already")
        self.healed = True
        if self.damage[t]:
            self.damage[t] -= 1

    def _supply(self, data):
        # a token is taken at the end of the active Terminator's Move, once a turn (OR-18)
        if self.phase != TERMINATOR_PHASE or len(data) != 1 or data[0] != self.current:
            raise ValueError("only the active Terminator")
        if not self.moved:
            raise ValueError("Move first")
        if self.supplied:
            raise ValueError("one token a turn")
        if not self.supply_tokens:
            raise ValueError("no supply token left")
        self.supplied = True
        self.supply_tokens -= 1
        drawn = min(2, self.supply_deck)
        self.supply_deck -= drawn
        if drawn:
            self.supply_kept += 1
            self.supply_discard += drawn - 1

    def _finish(self, result):
        self.result = result
        self.phase = OVER
        self.current = -1


def fold(events, settings=None):
    """Return a Game with every event applied."""
    game = Game(settings)
    for event in events:
        game.apply(event)
    return game


# ---- commands: state + randbelow -> event ---------------------------------------------------


def add_ork(game, randbelow):
    """Return an ("add", (kind, breach face)) event: a random token from the reserves."""
    kind = bag_pick(game.reserves, randbelow)
    if kind < 0:
        raise ValueError("the reserves are empty")
    return ("add", (kind, randbelow(6) + 1))


def attack(kind, randbelow, cover=0, painboy=0):
    """Return an ("attack", (kind, face, cover, painboy)) event for the current Terminator."""
    return ("attack", (kind, randbelow(6) + 1, cover, painboy))
