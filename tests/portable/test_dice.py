"""dicepod.rules.dice: rolling with an injected randbelow, counts, checks, multisets.
Portable: runs under CPython (pytest) and real MicroPython (tests/mp_runner.py)."""

from checks import raises
from seeded import Seeded, scripted

from dicepod.rules import dice


def test_roll_uses_randbelow_six():
    assert dice.roll(4, scripted([0, 5, 2, 3])) == (1, 6, 3, 4)
    assert dice.roll(0, scripted([])) == ()


def test_seeded_rolls_are_fair_enough():
    source = Seeded(7)
    faces = dice.counts(dice.roll(6000, source.randbelow))
    assert faces[0] == 0 and sum(faces) == 6000
    for face in range(1, 7):
        assert 850 < faces[face] < 1150, faces


def test_counts_and_back():
    assert dice.counts((6, 1, 6, 3)) == [0, 1, 0, 1, 0, 0, 2]
    assert dice.from_counts([0, 1, 0, 1, 0, 0, 2]) == (1, 3, 6, 6)
    assert dice.from_counts([0] * 7) == ()


def test_check_rejects_bad_dice():
    assert dice.check([1, 6]) == (1, 6)
    assert raises(dice.check, (0,))
    assert raises(dice.check, (7,))
    assert raises(dice.check, ("3",))
    assert raises(dice.check, (1,) * 7)
    assert dice.check((1,) * 8, 8) == (1,) * 8


def test_contains_and_remove():
    assert dice.contains(dice.counts((1, 1, 2)), dice.counts((1, 2)))
    assert not dice.contains(dice.counts((1, 2)), dice.counts((1, 1)))
    assert dice.remove((3, 1, 4, 1, 5), (1, 5)) == (3, 4, 1)
    assert raises(dice.remove, (1, 2), (3,))


def test_multisets_and_multinomial_cover_every_ordered_roll():
    sizes = (1, 6, 21, 56, 126, 252, 462)  # C(n + 5, 5)
    for n in range(7):
        previous = None
        seen = weight = 0
        for one in dice.multisets(n):  # streamed: a Pico-sized heap holds no list of them
            assert list(one) == sorted(one) and len(one) == n
            assert previous is None or one > previous  # strictly increasing: all distinct
            previous = one
            seen += 1
            weight += dice.multinomial(dice.counts(one))
        assert seen == sizes[n]
        # Their multinomial weights add up to the 6**n ordered rolls.
        assert weight == 6**n
    assert dice.multinomial(dice.counts((6, 6, 1))) == 3


def test_at_least_counts_successes():
    assert dice.at_least((1, 4, 5, 6, 3), 4) == 3
    assert dice.at_least((), 2) == 0


def result_seeded_rolls():
    source = Seeded(2024)
    return [list(dice.roll(6, source.randbelow)) for _ in range(5)]
