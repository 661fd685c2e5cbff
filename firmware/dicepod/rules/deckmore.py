"""The rest of the deck operations of RULES.md section 5 that no mode on the device uses yet:
peek, draw onto the removed pile, put a card back (from the removed pile, onto the top or the
bottom of the draw pile), restart. A module apart so that a game's deck (dicepod.rules.deck)
does not hold their code in RAM; a mode that needs them makes a FullDeck. Pure; after creation
no method allocates, except peek_n."""

from dicepod.rules.deck import Deck


class FullDeck(Deck):
    """A Deck with every operation (see dicepod.rules.deck.Deck)."""

    def peek(self, depth):
        """Return the card `depth` places below the top (0 = top); -1 past the bottom."""
        if 0 <= depth < self.n_pile:
            return self.pile[self.n_pile - 1 - depth]
        return -1

    def peek_n(self, n):
        """Return a tuple of the top n cards, top first (allocates: for screens, not folding)."""
        n = min(n, self.n_pile)
        return tuple(self.pile[self.n_pile - 1 - i] for i in range(n))

    def draw_remove(self):
        """Move the top card of the draw pile onto the removed pile and return it."""
        if not self.n_pile:
            raise ValueError("draw pile empty")
        self.n_pile -= 1
        card = self.pile[self.n_pile]
        self.removed[self.n_removed] = card
        self.n_removed += 1
        return card

    def unremove(self, card):
        """Move a card from the removed pile back to the discard pile."""
        self.n_removed = self._take(card, self.removed, self.n_removed)
        self.discard[self.n_discard] = card
        self.n_discard += 1

    def return_top(self, card):
        """Move a card from the discard pile back onto the top of the draw pile."""
        self.n_discard = self._take(card, self.discard, self.n_discard)
        self.pile[self.n_pile] = card
        self.n_pile += 1

    def return_bottom(self, card):
        """Move a card from the discard pile to the bottom of the draw pile."""
        self.n_discard = self._take(card, self.discard, self.n_discard)
        i = self.n_pile
        while i > 0:
            self.pile[i] = self.pile[i - 1]
            i -= 1
        self.pile[0] = card
        self.n_pile += 1

    def restart(self):
        """Move every card (removed and discarded too) to the discard pile, ready to shuffle."""
        for i in range(self.n_pile):
            self.discard[self.n_discard] = self.pile[i]
            self.n_discard += 1
        for i in range(self.n_removed):
            self.discard[self.n_discard] = self.removed[i]
            self.n_discard += 1
        self.n_pile = self.n_removed = 0
