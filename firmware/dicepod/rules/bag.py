"""A draw bag (RULES.md section 5), see dicepod.rules.deck. Pure: runs unchanged on MicroPython
and CPython. Apart from the deck so a game that only draws from a bag loads only this."""


class Bag:
    """A draw bag: counts of counters by kind (0..kinds-1), drawn at random."""

    def __init__(self, kinds):
        self.counts = bytearray(kinds)
        self.total = 0

    def clear(self):
        """Empty the bag."""
        for i in range(len(self.counts)):
            self.counts[i] = 0
        self.total = 0

    def put(self, kind, n=1):
        """Put n counters of a kind into the bag."""
        if not 0 <= kind < len(self.counts):
            raise ValueError("bad kind")
        if self.counts[kind] + n > 255:
            raise ValueError("bag full")
        self.counts[kind] += n
        self.total += n

    def take(self, kind):
        """Take one counter of a kind out of the bag (the fold of a draw)."""
        if not 0 <= kind < len(self.counts) or not self.counts[kind]:
            raise ValueError("not in bag")
        self.counts[kind] -= 1
        self.total -= 1

    def kind_at(self, index):
        """Return the kind of the index-th counter (0 <= index < total) counting kind by kind."""
        kind = 0
        for count in self.counts:
            if index < count:
                return kind
            index -= count
            kind += 1
        raise ValueError("index past bag")


def bag_pick(bag, randbelow):
    """Command helper: the kind of a counter drawn at random, or -1 when the bag is empty."""
    if not bag.total:
        return -1
    return bag.kind_at(randbelow(bag.total))
