"""Hardware randbelow: exact rejection behaviour on scripted byte sources, general n, and a
quick uniformity check on the real source."""

from checks import skip

from dicepod.drivers.rng import HardwareRandom, randbelow_from


class _Script:
    """A byte source that hands out the given bytes and counts what it handed out."""

    def __init__(self, data):
        self.data = bytes(data)
        self.pos = 0

    def __call__(self, k):
        out = self.data[self.pos : self.pos + k]
        if len(out) < k:
            raise AssertionError("source exhausted")
        self.pos += k
        return out


def test_die_rejects_252_to_255_exactly():
    src = _Script([252, 253, 254, 255, 251])
    rng = HardwareRandom(src, chunk=1)
    assert rng.randbelow(6) == 251 % 6  # 5
    assert src.pos == 5 and rng.rejected == 4
    # 0..251 are all accepted, each face exactly 42 times.
    src = _Script(range(252))
    rng = HardwareRandom(src, chunk=1)
    counts = [0] * 6
    for _ in range(252):
        counts[rng.randbelow(6)] += 1
    assert counts == [42] * 6 and rng.rejected == 0


def test_general_small_n_limits():
    for n, limit in ((2, 256), (3, 255), (10, 250), (100, 200), (129, 129), (256, 256)):
        if limit < 256:
            src = _Script([limit, limit - 1])
            rng = HardwareRandom(src, chunk=1)
            assert rng.randbelow(n) == (limit - 1) % n
            assert rng.rejected == 1, n
        else:
            src = _Script([255])
            assert HardwareRandom(src, chunk=1).randbelow(n) == 255 % n


def test_large_n_uses_two_bytes_and_rejects_above_the_multiple():
    # n = 1000: two bytes (span 65536), limit 65000 = 65 * 1000.
    src = _Script([0xFD, 0xE8, 0x12, 0x34])  # 65000 rejected, then 0x1234 = 4660
    rng = HardwareRandom(src, chunk=1)
    assert rng.randbelow(1000) == 4660 % 1000
    assert rng.rejected == 1 and rng.bytes_used == 4


def test_n_one_and_bad_n():
    rng = HardwareRandom(_Script([]), chunk=1)
    assert rng.randbelow(1) == 0  # no byte needed
    try:
        rng.randbelow(0)
        raise AssertionError("no error")
    except ValueError:
        pass


def test_readinto_source_is_used():
    data = [255, 3]
    pos = [0]

    def readinto(buf):
        buf[0] = data[pos[0]]
        pos[0] += 1

    rng = HardwareRandom(readinto=readinto, chunk=1)
    assert rng.randbelow(6) == 3 and rng.rejected == 1


def test_default_source_is_roughly_uniform():
    randbelow = randbelow_from()  # os.urandom: the real source on both interpreters
    counts = [0] * 6
    for _ in range(600):
        counts[randbelow(6)] += 1
    # Each face expects 100; 40..160 fails with probability far below 1e-6.
    assert min(counts) > 40 and max(counts) < 160, counts


def test_chunked_source_consumes_bytes_in_order():
    src = _Script(list(range(250, 256)) + list(range(26)))  # 252..255 rejected
    rng = HardwareRandom(src, chunk=8)
    faces = [rng.randbelow(6) for _ in range(6)]
    assert faces == [250 % 6, 251 % 6, 0, 1, 2, 3]
    assert rng.rejected == 4 and rng.bytes_used == 10 and src.pos == 16


def test_readinto_pool_allocates_nothing():
    import gc

    if not hasattr(gc, "mem_alloc"):
        skip("no gc.mem_alloc (CPython): the MicroPython run measures it")
    counter = [0]

    def readinto(buf):
        for i in range(len(buf)):
            buf[i] = counter[0] & 0xFF
            counter[0] += 1

    rng = HardwareRandom(readinto=readinto)
    rng.randbelow(6)
    gc.collect()
    gc.disable()
    try:
        before = gc.mem_alloc()
        for _ in range(500):
            rng.randbelow(6)
        after = gc.mem_alloc()
    finally:
        gc.enable()
    assert after == before, after - before


def result_scripted_faces():
    src = _Script(range(256))
    rng = HardwareRandom(src, chunk=1)
    return [rng.randbelow(6) + 1 for _ in range(20)]
