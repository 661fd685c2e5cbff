"""Space Marine Adventures: Tyranid Attack! (RULES.md section 3). Pure: runs unchanged on
MicroPython and CPython.

What the device tracks, restated from the rulebook: a team of four Space Marines (of five) plays
level 1, 2 or 3, or all three as a campaign. Each round the activation deck (two cards per
Marine in play and four Tyranid cards) is shuffled and revealed card by card: a Marine card gives
that Marine a turn with his actions (nothing if he is out of action); a Tyranid card reveals the
top infestation card. When the deck is empty a new round begins with a fresh shuffle. An attack
is one D6 that destroys the target when it equals or beats its resilience; a destroyed counter
goes back into the reinforcements bag. Placing a Tyranid draws a counter from the bag at random;
an empty bag places nothing. The first wound flips a Marine to his wounded side, the second takes
him out of action (his special cards go back to the box). Level 1: a Marine on the objective
square can spend an action to roll for the console (6 activates it); the level ends when the
infestation deck runs out (or the players end it) and the result comes from the number of
Marines on the exit tile (4 major victory, 3 minor, 2 draw, else loss). Level 3: the Tyranid
Prime falls to its damage counters. A campaign plays the levels in order with the survivors,
wounds kept, and may call one reinforcement, once: the unused (fifth) Marine, only after a
Marine was lost in the level just finished (docs/RULES.md TY-14). A Marine whose card is the
round's last takes his whole turn before the new round (TY-4); free actions and special cards'
attack rolls cost no action, also after his last one (TY-5). The device counts the infestation
deck but the real deck decides (TY-9): a Tyranid card always reveals, the count stops at 0, and
the players say when Level 1's deck ran out. At most two extra Tyranid activation cards: the
box has six (TY-15). With the setting tyranid.real_draws the players draw the real activation
cards and counters and enter what they drew (DK-2).

Where the board matters (squares, line of sight) the players decide; the device keeps the
counts, the decks, the dice and the results.

Choices where the rulebook is silent (RULES.md marks them [open]): the actions of Adrix and
Lukas, every wounded-side action value and the resilience of Genestealers, Lictors and the Prime
are settings with no default (MissingValue until entered); the Prime's damage counters (3) and
whether the printed deck size counts the briefing card (yes) are settings with defaults, read
whenever the count is shown (a change mid-level counts at once). Level 1 ends when the players
say its infestation deck ran out (after the last card is resolved). The briefing cards for levels 2
and 3 are not in the rulebook, so their outcome is recorded by the players (("result", ...));
on those levels an empty infestation deck reveals nothing more. A campaign's Level 1 may be
judged by the campaign card too: its outcome is recorded like theirs. A campaign level counts
as won on a minor or major victory (level 1) or a recorded win.

Events (ints unless noted; M = Marine id 0..4, K = Tyranid kind 0..2, T = target 0..3):
    ("start", (level, campaign, M, M, M, M))  set up a level (campaign 1 needs level 1)
    ("lictor", (face,))          level 2 set-up: the Lictor's entry square
    ("place", (K,)) / ("place", ())   a counter drawn from the bag onto the board / bag empty
    ("return", (K,))             a drawn counter goes back: its square held a Marine
    ("destroy", (K,))            a Tyranid destroyed without an attack roll (e.g. a card)
    ("shuffle", (card, ...))     new round: the activation deck's new order, top first
    ("activate", (card,))        reveal the top activation card (must be that card; with
                                 real_draws, any card of the draw pile: the one drawn)
    ("move", ()), ("action", ())      the current Marine spends an action
    ("attack", (T, face))        the current Marine attacks (spends an action)
    ("attack", (T, face, 1))     a free attack (a free action, a special card): no action spent,
                                 in a Marine's turn, also after his last action
    ("console", (face,))         level 1: the current Marine tries the console (an action)
    ("end_turn", ())             the current Marine stops early
    ("special", (M,))            M plays a special card (no action)
    ("wound", (M,))              M is wounded
    ("add_tyranid_card", ())     an extra Tyranid activation card (challenge cards; two at most)
    ("deck_out", ())             level 1: the players' infestation deck ran out
    ("exit", (n,))               level 1 ends with n Marines on the exit tile
    ("result", (code,))          levels 2-3 (and a campaign's Level 1): the players record the
                                 briefing or campaign card's outcome
    ("next_level", ()) / ("next_level", (M,))  campaign: next level, optionally reinforced by M
    ("set", (key, value)), ("new_game", (mode,))   journal bookkeeping
"""

from micropython import const

from dicepod.rules import apply_checked
from dicepod.rules.deck import Bag, Deck, bag_pick, shuffle_order
from dicepod.rules.specs import Specs
from dicepod.settings import Settings

MODE = "tyranid"

MARINES = ("Maximus", "Adrix", "Raphael", "Lukas", "Vorne")
# Actions on the healthy side given by the rulebook: Maximus 4, Raphael 4, Vorne 3 [seed];
# None = not given, ask the player (setting tyranid.actions_<name>).
_SEED_ACTIONS = const((4, None, 4, None, 3))
TEAM = const(4)  # Marines chosen for a level [seed]

TERMAGANT = 0
GENESTEALER = 1
LICTOR = 2
PRIME = 3  # attack target only: the Prime is the objective counter, never in the bag
KINDS = ("Termagant", "Genestealer", "Lictor", "Prime")
_BOX = const((12, 5, 5))  # creature counters in the box [seed]
_TERMAGANT_RESILIENCE = const(3)  # [seed]
_ENTRY_SQUARES = const(6)  # numbered xenos entry squares [seed]

TYRANID_CARD = 5  # activation card id; Marine cards are the Marine ids 0..4
_TYRANID_CARDS = const(4)  # Tyranid cards in the activation deck [seed]
_TYRANID_BOX = const(6)  # Tyranid activation cards in the box [seed]
_DECK_CAPACITY = const(16)  # 2 per Marine (5) + all 6 Tyranid cards in the box [seed]
_INFESTATION = const((24, 29, 30))  # infestation cards per level, briefing card included [seed]

HEALTHY = 0
WOUNDED = 1
OUT = 2

# phases
SETUP = 0  # waiting for ("start", ...)
PLACING = 1  # level set-up draws (level 2 Lictor roll, level 3 six counters)
PLAY = 2
OVER = 3  # level finished: result set

# results
LOSS = 0
DRAW = 1
MINOR = 2
MAJOR = 3
WIN = 4
RESULTS = ("loss", "draw", "minor victory", "major victory", "victory")

# One spec a line: key default low high label (see dicepod.rules.specs; `-` = no default).
# [open] the Prime's damage counters: 3, inferred from the Adrenal Glands challenge;
# [open] whether the per-level card count includes the briefing card: default yes.
# The order is what the _INDEX constants below use.
SETTINGS = Specs(
    b"""\
tyranid.actions_adrix - 1 9 Adrix actions
tyranid.actions_lukas - 1 9 Lukas actions
tyranid.wounded_maximus - 0 9 Maximus wounded actions
tyranid.wounded_adrix - 0 9 Adrix wounded actions
tyranid.wounded_raphael - 0 9 Raphael wounded actions
tyranid.wounded_lukas - 0 9 Lukas wounded actions
tyranid.wounded_vorne - 0 9 Vorne wounded actions
tyranid.res_genestealer - 1 6 Genestealer resilience
tyranid.res_lictor - 1 6 Lictor resilience
tyranid.res_prime - 1 6 Prime resilience
tyranid.prime_damage 3 1 9 Prime damage to destroy
tyranid.adrenal_glands 0 0 1 Adrenal Glands (+1 Prime)
tyranid.briefing_counted 1 0 1 Briefing in card count
tyranid.advanced 0 0 2 Advanced infestation cards
tyranid.real_draws 0 0 1 Players draw real cards
"""
)
_ACTIONS_INDEX = const((-1, 0, -1, 1, -1))  # Adrix, Lukas: healthy-side actions (others: rulebook)
_WOUNDED = const(2)  # wounded-side actions, by Marine id
_RES_GENESTEALER = const(7)
_RES_LICTOR = const(8)
_RES_PRIME = const(9)
_PRIME_DAMAGE = const(10)
_ADRENAL_GLANDS = const(11)
_BRIEFING_COUNTED = const(12)
_ADVANCED = const(13)
_REAL_DRAWS = const(14)


# Names for the yes/no settings, for the settings screen.
VALUE_NAMES = (
    ("tyranid.adrenal_glands", ("No", "Yes")),
    ("tyranid.briefing_counted", ("No", "Yes")),
    ("tyranid.real_draws", ("No", "Yes")),
)


def level_one_result(on_exit):
    """Return the Level 1 result for the number of Marines on the exit tile."""
    if on_exit >= 4:
        return MAJOR
    if on_exit == 3:
        return MINOR
    if on_exit == 2:
        return DRAW
    return LOSS


class Game:
    """A Tyranid Attack! level or campaign.

    Attributes the screens read: phase (SETUP/PLACING/PLAY/OVER), level, campaign, round,
    in_play/status/specials (bytearrays indexed by Marine id; status HEALTHY/WOUNDED/OUT),
    current (Marine whose turn it is, -1 none), actions_left, last_card (-1, a Marine id or
    TYRANID_CARD), idle_card (True when the last Marine card found its Marine out of action),
    activation (Deck), needs_shuffle(), infestation_left, infestation_total, infestation_out,
    bag (Bag by kind), board (bytearray: counters on the board by kind), setup_left (level 3
    counters still to draw onto entry squares), lictor_square, last_hit (None / True / False),
    console_open, prime_damage, prime_destroyed, result (None or a result code),
    reinforced, campaign_won, events."""

    def __init__(self, settings=None):
        self.settings = settings if settings is not None else Settings(SETTINGS)
        self.activation = Deck(_DECK_CAPACITY)
        self.bag = Bag(3)
        self.board = bytearray(3)
        self.in_play = bytearray(5)
        self.status = bytearray(5)
        self.specials = bytearray(5)
        self.used = bytearray(5)  # Marines who have played a level of this game or campaign
        self.lost_this_level = False
        self.phase = SETUP
        self.level = 0
        self.campaign = False
        self.reinforced = False
        self.campaign_won = False
        self.events = 0
        self._reset_level()

    def _reset_level(self):
        self.round = 0
        self.current = -1
        self.actions_left = 0
        self.last_card = -1
        self.idle_card = False
        self.infestation_left = 0
        self.infestation_total = 0
        self.revealed = 0  # infestation cards revealed this level
        self.infestation_out = False
        self.setup_left = 0
        self.lictor_square = 0
        self.last_hit = None
        self.console_open = False
        self.prime_damage = 0
        self.prime_destroyed = False
        self.result = None
        self.lost_this_level = False
        for i in range(3):
            self.board[i] = 0

    # -- values from settings
    def actions(self, marine):
        """Return the actions of a Marine on his current side (MissingValue if not entered)."""
        if self.status[marine] == WOUNDED:
            return self.settings.at(_WOUNDED + marine)
        seed = _SEED_ACTIONS[marine]
        if seed is not None:
            return seed
        return self.settings.at(_ACTIONS_INDEX[marine])

    def resilience(self, target):
        """Return the resilience of a target kind (MissingValue if not entered)."""
        if target == TERMAGANT:
            return _TERMAGANT_RESILIENCE
        if target == GENESTEALER:
            return self.settings.at(_RES_GENESTEALER)
        if target == LICTOR:
            return self.settings.at(_RES_LICTOR)
        if target == PRIME:
            return self.settings.at(_RES_PRIME)
        raise ValueError("bad target")

    def prime_wounds(self):
        """Return the damage counters that destroy the Prime (4 with Adrenal Glands)."""
        return self.settings.at(_PRIME_DAMAGE) + self.settings.at(_ADRENAL_GLANDS)

    def needs_shuffle(self):
        """Return True when the next step is shuffling the activation deck (a new round): the
        deck is empty and no Marine is still taking his turn (TY-4)."""
        return (
            self.phase == PLAY
            and not self.activation.n_pile
            and not self.infestation_out
            and self.current < 0
        )

    def real_draws(self):
        """True when the players draw the real activation cards and counters (DK-2)."""
        return self.settings.at(_REAL_DRAWS) == 1

    def reserve(self):
        """Return the Marine a campaign may call as its reinforcement now, or -1 (TY-14): the
        unused one, once, after a Marine was lost in the level just finished."""
        if not self.campaign or self.reinforced or not self.lost_this_level:
            return -1
        for m in range(5):
            if not self.used[m]:
                return m
        return -1

    def _count(self):
        """The infestation count from the level and the settings now (TY-8, TY-9)."""
        if not self.level:
            return
        total = _INFESTATION[self.level - 1] + self.settings.at(_ADVANCED)
        total -= self.settings.at(_BRIEFING_COUNTED)
        self.infestation_total = total
        self.infestation_left = total - self.revealed if total > self.revealed else 0

    def marines_standing(self):
        """Return how many Marines in play are not out of action."""
        count = 0
        for m in range(5):
            if self.in_play[m] and self.status[m] != OUT:
                count += 1
        return count

    # -- folding
    def apply(self, event):
        """Fold one event into the state; raise ValueError for an illegal one (MissingValue
        when it needs a setting the player has not entered)."""
        apply_checked(self, event, MODE)
        self._count()

    def _apply(self, kind, data):
        if kind == "activate":
            self._activate(data)
        elif kind == "move" or kind == "action":
            self._spend()
        elif kind == "attack":
            self._attack(data)
        elif kind == "place":
            self._place(data)
        elif kind == "wound":
            self._playing()
            m = self._marine(data)
            if self.status[m] == OUT:
                raise ValueError("already out of action")
            self.status[m] += 1
            if self.status[m] == OUT:
                self.specials[m] = 0
                self.lost_this_level = True
                if self.current == m:
                    self.current = -1
                    self.actions_left = 0
                if not self.marines_standing():
                    self._finish(LOSS)
        elif kind == "shuffle":
            if not self.needs_shuffle():
                raise ValueError("not the end of a round")
            self.activation.reshuffle(data)
            self.round += 1
            self.current = -1
            self.last_card = -1
        elif kind == "end_turn":
            if self.current < 0:
                raise ValueError("no Marine's turn")
            self.current = -1
            self.actions_left = 0
        elif kind == "destroy" or kind == "return":
            self._playing()
            k = self._kind(data)
            if not self.board[k]:
                raise ValueError("none on the board")
            self.board[k] -= 1
            self.bag.put(k)
        elif kind == "console":
            if self.level != 1:
                raise ValueError("no console on this level")
            if self.console_open:
                raise ValueError("the console is open")  # activated once (TY-12)
            if len(data) != 1 or not 1 <= data[0] <= 6:
                raise ValueError("bad face")
            self._spend()
            if data[0] >= 6:  # [seed] 6 or more activates the console
                self.console_open = True
        elif kind == "special":
            m = self._marine(data)
            if not self.specials[m]:
                raise ValueError("no special card")
            self.specials[m] -= 1
        elif kind == "add_tyranid_card":
            self._playing()
            # the deck holds 2 cards per Marine of the level and the Tyranid cards
            marines = 0
            for m in range(5):
                marines += self.in_play[m]
            if self.activation.size() - 2 * marines >= _TYRANID_BOX:
                raise ValueError("6 in the box")
            self.activation.add(TYRANID_CARD)
        elif kind == "deck_out":
            if self.phase != PLAY or self.level != 1 or self.infestation_out or data:
                raise ValueError("no deck to end")
            self.infestation_out = True
        elif kind == "lictor":
            if self.phase != PLACING or self.level != 2 or self.lictor_square:
                raise ValueError("no Lictor roll now")
            if len(data) != 1 or not 1 <= data[0] <= 6:
                raise ValueError("bad face")
            self.lictor_square = data[0]
            self.bag.take(LICTOR)
            self.board[LICTOR] += 1
            for _ in range(_ENTRY_SQUARES - 1):
                self.bag.take(TERMAGANT)
            self.board[TERMAGANT] += _ENTRY_SQUARES - 1
            self.phase = PLAY
        elif kind == "start":
            self._start(data)
        elif kind == "exit":
            if self.phase != PLAY or self.level != 1:
                raise ValueError("only level 1 ends by the exit tile")
            if len(data) != 1 or not 0 <= data[0] <= self.marines_standing():
                raise ValueError("bad number of Marines")
            if data[0] and not self.console_open:
                raise ValueError("the console is not activated")
            self._finish(level_one_result(data[0]))
        elif kind == "result":
            # levels 2-3, and a campaign's Level 1: the briefing card's outcome (TY-16)
            if self.phase != PLAY or (self.level == 1 and not self.campaign):
                raise ValueError("no result to record")
            if len(data) != 1 or data[0] not in (LOSS, WIN):
                raise ValueError("bad result")
            self._finish(data[0])
        elif kind == "next_level":
            self._next_level(data)
        else:
            raise ValueError("unknown event %s" % kind)

    def _playing(self):
        if self.phase != PLAY and self.phase != PLACING:
            raise ValueError("no level in play")

    def _marine(self, data):
        if len(data) != 1 or not 0 <= data[0] < 5 or not self.in_play[data[0]]:
            raise ValueError("no such Marine")
        return data[0]

    def _kind(self, data):
        if len(data) != 1 or not 0 <= data[0] < 3:
            raise ValueError("bad Tyranid kind")
        return data[0]

    def _start(self, data):
        if self.phase != SETUP and self.phase != OVER:
            raise ValueError("a level is in play")
        if len(data) != 2 + TEAM or not 1 <= data[0] <= 3 or not 0 <= data[1] <= 1:
            raise ValueError("bad start")
        if data[1] and data[0] != 1:
            raise ValueError("a campaign starts at level 1")
        for i in range(5):
            self.in_play[i] = 0
        for i in range(2, len(data)):
            m = data[i]
            if not 0 <= m < 5 or self.in_play[m]:
                raise ValueError("bad Marines")
            self.in_play[m] = 1
        for m in range(5):
            self.used[m] = self.in_play[m]
        for m in range(5):
            self.status[m] = HEALTHY
            self.specials[m] = 1 if self.in_play[m] else 0
        self.campaign = bool(data[1])
        self.reinforced = False
        self.campaign_won = False
        self._set_up_level(data[0])

    def _set_up_level(self, level):
        """Board, bag, infestation count and activation deck for a level (RULES.md 3)."""
        self._reset_level()
        self.level = level
        self.bag.clear()
        if level == 1:
            self.board[TERMAGANT] = _ENTRY_SQUARES
            self.bag.put(TERMAGANT, _BOX[TERMAGANT] - _ENTRY_SQUARES)
            self.bag.put(GENESTEALER, _BOX[GENESTEALER])
            self.phase = PLAY
        elif level == 2:
            # the Lictor roll places one Lictor, Termagants on the other five squares
            for k in range(3):
                self.bag.put(k, _BOX[k])
            self.phase = PLACING
        else:
            for k in range(3):
                self.bag.put(k, _BOX[k])
            self.setup_left = _ENTRY_SQUARES
            self.phase = PLACING
        self._count()
        deck = self.activation
        deck.clear()
        for m in range(5):
            if self.in_play[m]:
                deck.add(m)
                deck.add(m)
        for _ in range(_TYRANID_CARDS):
            deck.add(TYRANID_CARD)

    def _place(self, data):
        self._playing()
        if self.phase == PLACING and not self.setup_left:
            raise ValueError("roll for the Lictor first")
        if not data:
            if self.bag.total:
                raise ValueError("the bag is not empty")
        else:
            k = self._kind(data)
            self.bag.take(k)
            self.board[k] += 1
        if self.phase == PLACING:
            self.setup_left -= 1
            if not self.setup_left:
                self.phase = PLAY

    def _activate(self, data):
        if self.phase != PLAY:
            raise ValueError("no level in play")
        if self.infestation_out:
            raise ValueError("the infestation deck has run out")
        deck = self.activation
        if len(data) != 1 or not deck.n_pile:
            raise ValueError("no card left")
        card = data[0]
        real = self.real_draws()
        if not real and deck.top() != card:
            raise ValueError("not the top card")
        if not 0 <= card <= TYRANID_CARD:
            raise ValueError("bad card")
        # Read the Marine's actions before changing anything: a value the player has not
        # entered raises MissingValue and leaves the state as it was.
        actions = 0
        if card != TYRANID_CARD and self.status[card] != OUT:
            actions = self.actions(card)
        if real:
            deck.draw_card(card)  # ValueError when no such card is left in the draw pile
        else:
            deck.draw()
        self.last_card = card
        self.current = -1
        self.actions_left = 0
        self.idle_card = False
        self.last_hit = None
        if card == TYRANID_CARD:
            # The real deck decides (TY-9): a card is revealed even when the count says 0.
            self.revealed += 1
        elif self.status[card] == OUT:
            self.idle_card = True
        elif actions:
            self.current = card
            self.actions_left = actions

    def _spend(self):
        if self.phase != PLAY or self.current < 0:
            raise ValueError("no Marine's turn")
        if not self.actions_left:
            raise ValueError("no actions left")
        self.actions_left -= 1
        if not self.actions_left:
            self.current = -1

    def _attack(self, data):
        if not 2 <= len(data) <= 3 or not 0 <= data[0] <= PRIME or not 1 <= data[1] <= 6:
            raise ValueError("bad attack")
        target = data[0]
        face = data[1]
        free = len(data) == 3
        if free and (data[2] != 1 or self.phase != PLAY):
            raise ValueError("bad free attack")
        if free and (not 0 <= self.last_card < TYRANID_CARD or self.idle_card):
            raise ValueError("no Marine's turn")  # a Marine's own free action (TY-5)
        if target == PRIME:
            if self.level != 3 or self.prime_destroyed:
                raise ValueError("no Prime to attack")
        elif not self.board[target]:
            raise ValueError("no such Tyranid on the board")
        hit = face >= self.resilience(target)
        if not free:
            self._spend()
        self.last_hit = hit
        if not hit:
            return
        if target == PRIME:
            self.prime_damage += 1
            if self.prime_damage >= self.prime_wounds():
                self.prime_destroyed = True
                self._finish(WIN)
        else:
            self.board[target] -= 1
            self.bag.put(target)

    def _finish(self, result):
        self.result = result
        self.phase = OVER
        self.current = -1
        self.actions_left = 0
        if self.campaign and self.level == 3 and result == WIN:
            self.campaign_won = True

    def _next_level(self, data):
        if not self.campaign or self.phase != OVER or self.level == 3:
            raise ValueError("no next level")
        if self.result not in (MINOR, MAJOR, WIN):
            raise ValueError("the level was not won")
        if data:
            if len(data) != 1 or data[0] != self.reserve():
                raise ValueError("only unused Marine")
        for i in range(5):
            if self.in_play[i] and self.status[i] == OUT:
                self.in_play[i] = 0
                self.status[i] = HEALTHY
            elif self.in_play[i]:
                self.specials[i] += 1  # survivors keep their cards and get a new one
        if data:
            self.in_play[data[0]] = 1
            self.used[data[0]] = 1
            self.status[data[0]] = HEALTHY
            self.specials[data[0]] = 1
            self.reinforced = True
        self._set_up_level(self.level + 1)


def fold(events, settings=None):
    """Return a Game with every event applied."""
    game = Game(settings)
    for event in events:
        game.apply(event)
    return game


# ---- commands: state + randbelow -> event ---------------------------------------------------


def shuffle(game, randbelow):
    """Return the ("shuffle", order) event that starts a new round."""
    if not game.needs_shuffle():
        raise ValueError("not the end of a round")
    return ("shuffle", shuffle_order(game.activation, randbelow))


def activate(game):
    """Return the ("activate", (card,)) event revealing the top activation card."""
    card = game.activation.top()
    if card < 0:
        raise ValueError("draw pile empty")
    return ("activate", (card,))


def place(game, randbelow):
    """Return a ("place", (kind,)) draw from the bag, or ("place", ()) when it is empty."""
    kind = bag_pick(game.bag, randbelow)
    return ("place", ()) if kind < 0 else ("place", (kind,))


def lictor_roll(randbelow):
    """Return the level 2 ("lictor", (face,)) set-up roll."""
    return ("lictor", (randbelow(6) + 1,))


def attack(target, randbelow, free=False):
    """Return an ("attack", (target, face)) event (free: ("attack", (target, face, 1)), which
    costs no action)."""
    face = randbelow(6) + 1
    return ("attack", (target, face, 1)) if free else ("attack", (target, face))


def console(randbelow):
    """Return a level 1 ("console", (face,)) event."""
    return ("console", (randbelow(6) + 1,))
