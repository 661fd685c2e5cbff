"""Seeded randomness for portable tests (MicroPython has no random.Random): xorshift32 with
rejection sampling, identical on CPython and MicroPython."""


class Seeded:
    """A reproducible randbelow(n) source."""

    def __init__(self, seed=1):
        self.state = (seed * 2654435761) & 0xFFFFFFFF or 1

    def next32(self):
        """Return the next 32-bit value."""
        x = self.state
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.state = x
        return x

    def randbelow(self, n):
        """Return an int in 0..n-1, unbiased."""
        limit = 0x100000000 - (0x100000000 % n)
        while True:
            x = self.next32()
            if x < limit:
                return x % n


def scripted(values):
    """Return a randbelow that yields the given values in order (raises when they run out)."""
    it = iter(values)

    def randbelow(n):
        value = next(it)
        if not 0 <= value < n:
            raise ValueError("scripted value %d not below %d" % (value, n))
        return value

    return randbelow
