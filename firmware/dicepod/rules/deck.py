"""Decks, bags and piles (RULES.md section 5). Pure: runs unchanged on MicroPython and CPython.

Two small primitives that the game modules own as explicit state:

- `Deck`: an ordered deck of card ids (0..255) with a draw pile, a discard pile and a removed
  pile, each a preallocated `bytearray`. Draw the top card, draw a named card (the players
  drew the real one), remove a card, reshuffle the discard pile into the draw pile. The top of
  the draw pile is the end of its bytearray.
- `Bag`: a draw bag that only knows how many counters of each kind it holds (a `bytearray` of
  counts). Drawing at random happens in a command function; folding only moves counts.

Nothing here draws a random number while folding: a shuffle is an event that carries the new
order of the cards (`shuffle_order` builds it with Fisher-Yates and the injected randbelow), a
bag draw is an event that carries the kind drawn (`bag_pick` chooses it). So undo - fold again
without the last event - restores the exact previous order and contents, and a logged game
replays identically on the PC. After creation no method allocates, except the command
helpers, which build an event.
"""

from dicepod.rules.bag import Bag, bag_pick  # noqa: F401 (the bag lives apart: orks needs only it)


class Deck:
    """An ordered deck of card ids: draw pile (top = last), discard pile, removed pile."""

    def __init__(self, capacity):
        self.capacity = capacity
        self.pile = bytearray(capacity)  # draw pile; pile[n_pile - 1] is the top card
        self.n_pile = 0
        self.discard = bytearray(capacity)  # face-up pile; discard[n_discard - 1] is its top
        self.n_discard = 0
        self.removed = bytearray(capacity)  # out of the game (kept cards, cards in the box)
        self.n_removed = 0

    def clear(self):
        """Empty every pile."""
        self.n_pile = self.n_discard = self.n_removed = 0

    def size(self):
        """Return the number of cards the deck owns in all three piles."""
        return self.n_pile + self.n_discard + self.n_removed

    def add(self, card):
        """Add a new card to the discard pile (it joins the draw pile at the next reshuffle)."""
        if self.size() >= self.capacity:
            raise ValueError("deck full")
        if not 0 <= card <= 255:
            raise ValueError("bad card id")
        self.discard[self.n_discard] = card
        self.n_discard += 1

    def top(self):
        """Return the top card of the draw pile without drawing it; -1 when it is empty."""
        return self.pile[self.n_pile - 1] if self.n_pile else -1

    def draw(self):
        """Move the top card of the draw pile onto the discard pile and return it."""
        if not self.n_pile:
            raise ValueError("draw pile empty")
        self.n_pile -= 1
        card = self.pile[self.n_pile]
        self.discard[self.n_discard] = card
        self.n_discard += 1
        return card

    def draw_card(self, card):
        """Move a named card of the draw pile onto the discard pile (the players drew the real
        card from their own shuffled deck)."""
        self.n_pile = self._take(card, self.pile, self.n_pile)
        self.discard[self.n_discard] = card
        self.n_discard += 1

    def _take(self, card, where, count):
        """Remove the topmost copy of card from a pile; return the new count."""
        i = count - 1
        while i >= 0 and where[i] != card:
            i -= 1
        if i < 0:
            raise ValueError("card %d not there" % card)
        while i < count - 1:
            where[i] = where[i + 1]
            i += 1
        return count - 1

    def remove(self, card):
        """Move a card from the discard pile to the removed pile."""
        self.n_discard = self._take(card, self.discard, self.n_discard)
        self.removed[self.n_removed] = card
        self.n_removed += 1

    def reshuffle(self, order):
        """Gather the discard and draw piles into a new draw pile in `order` (top first).

        `order` comes from an event (see shuffle_order); it must hold exactly the cards of
        the two piles, or ValueError is raised and the deck is left unchanged."""
        n = self.n_pile + self.n_discard
        if len(order) != n:
            raise ValueError("shuffle size")
        # Multiset check without allocating (decks are small): each card must occur as often
        # in the order as in the two piles.
        for card in order:
            if _count(order, card, len(order)) != _count(self.pile, card, self.n_pile) + _count(
                self.discard, card, self.n_discard
            ):
                raise ValueError("shuffle cards")
        i = 0
        for card in order:
            self.pile[n - 1 - i] = card
            i += 1
        self.n_pile = n
        self.n_discard = 0


def _count(seq, card, n):
    """Return how many of the first n items of seq equal card."""
    found = 0
    for i in range(n):
        if seq[i] == card:
            found += 1
    return found


def shuffle_order(deck, randbelow):
    """Command helper: a Fisher-Yates order (top first) of the deck's draw and discard piles."""
    cards = []
    for i in range(deck.n_pile):
        cards.append(deck.pile[i])
    for i in range(deck.n_discard):
        cards.append(deck.discard[i])
    i = len(cards) - 1
    while i > 0:
        j = randbelow(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
        i -= 1
    return tuple(cards)
