"""Hardware random numbers: an unbiased randbelow(n) over a byte source.

Driver (shell code). On the Pico the source is `os.urandom`: on an RP2040 it draws ring-
oscillator bits through a CRC-8 whitener. MicroPython 1.28 has no separate API
for the RP2350's TRNG (the Pico stubs in typings/ list none), so on a Pico 2 os.urandom is used
as well: what feeds it there (ring oscillator or TRNG) is the rp2 port's choice, not ours. A
direct TRNG reader (machine.mem32 on the TRNG registers) would plug in as `readinto`, but is not
written without a Pico 2 to check it on. The source is injected: tests pass a scripted byte
source and check exactly which bytes are rejected.

Rejection sampling: for n <= 256 one byte b is drawn and rejected when b >= 256 - 256 % n, so
every value keeps the same number of byte values (for a die, n = 6: bytes 252..255 are
rejected, then b % 6, never plain b % 6, which would favour 0..3). Larger n draws just enough
bytes for the range and rejects above the largest multiple of n.

Bytes are fetched `chunk` at a time (default 16) and used up in order, so os.urandom's one small
bytes object is allocated per 16 bytes, not per face; a `readinto` source allocates nothing.
`bytes_used` and `rejected` count every byte consumed and every rejected draw.
"""

import os

from micropython import const

_BYTE_VALUES = const(256)


class HardwareRandom:
    """randbelow(n) from a byte source: source(k) -> k bytes, or readinto(buf) filling buf."""

    def __init__(self, source=None, readinto=None, chunk=16):
        self._source = source if source is not None else os.urandom
        self._readinto = readinto
        self._chunk = chunk
        self._pool = bytearray(chunk) if readinto is not None else b""
        self._pos = chunk if readinto is not None else 0
        self.bytes_used = 0
        self.rejected = 0

    def _byte(self):
        if self._pos >= len(self._pool):
            if self._readinto is not None:
                self._readinto(self._pool)
            else:
                self._pool = self._source(self._chunk)
            self._pos = 0
        b = self._pool[self._pos]
        self._pos += 1
        self.bytes_used += 1
        return b

    def randbelow(self, n):
        """Return an unbiased int in 0..n-1; ValueError for n < 1."""
        if n < 1:
            raise ValueError("randbelow needs n >= 1")
        if n == 1:
            return 0
        if n <= _BYTE_VALUES:
            limit = _BYTE_VALUES - _BYTE_VALUES % n  # e.g. 252 for n = 6
            while True:
                b = self._byte()
                if b < limit:
                    return b % n
                self.rejected += 1
        nbytes = 1
        span = _BYTE_VALUES
        while span < n:
            nbytes += 1
            span <<= 8
        limit = span - span % n
        while True:
            x = 0
            for _ in range(nbytes):
                x = (x << 8) | self._byte()
            if x < limit:
                return x % n
            self.rejected += 1


def randbelow_from(source=None):
    """Return a bound randbelow(n) over source (default os.urandom)."""
    return HardwareRandom(source).randbelow


def hexdigits(data):
    """Bytes as lower-case hex digits (a device id from machine.unique_id())."""
    return "".join("%02x" % b for b in data)


def new_id():
    """16 random hex digits (a new journal's identity) from the hardware's random source."""
    return hexdigits(os.urandom(8))
