"""dicepod.rules.free: folding rolls and self-tests, illegal events, the chi-square against a
fair die (exact integer arithmetic, checked against the float formula) and the 1 % verdict,
with non-default settings. Portable."""

from seeded import Seeded, scripted

from dicepod.rules import free
from dicepod.settings import Settings


def _chi_float(counts):
    n = sum(counts[1:])
    expected = n / 6
    return sum((counts[f] - expected) ** 2 / expected for f in range(1, 7))


def test_rolls_fold_into_counts():
    game = free.fold(
        [("new_game", ("free",)), ("roll", (1, 6, 6)), ("roll", (2,)), ("set", ("free.dice", 2))]
    )
    assert game.counts == [0, 1, 1, 0, 0, 0, 2]
    assert game.rolls == 2 and game.dice == 4 and game.last == (2,)
    assert game.settings.get("free.dice") == 2


def test_roll_command_uses_the_dice_setting():
    settings = Settings(free.SETTINGS, {"free.dice": 3})
    game = free.Game(settings)
    event = free.roll(game, scripted([0, 5, 2]))
    assert event == ("roll", (1, 6, 3))
    game.apply(event)
    assert game.counts[6] == 1


def test_illegal_events_are_refused_and_change_nothing():
    game = free.Game()
    for event in (
        ("roll", ()),
        ("roll", (1, 2, 3, 4, 5, 6, 1)),
        ("roll", (0,)),
        ("roll", (7,)),
        ("selftest", (10, 1, 1, 1, 1, 1, 1)),
        ("selftest", (0, 0, 0, 0, 0, 0, 0)),
        ("selftest", (6, 1, 1, 1, 1, 1)),
        ("shuffle", ()),
    ):
        try:
            game.apply(event)
        except ValueError:
            pass
        else:
            raise AssertionError("accepted %r" % (event,))
    assert game.counts == [0] * 7 and game.rolls == 0 and game.tests == 0


def test_selftest_event_from_counts():
    counts = [0, 100, 98, 103, 99, 101, 99]
    event = free.selftest_event(counts)
    assert event == ("selftest", (600, 100, 98, 103, 99, 101, 99))
    game = free.Game()
    game.apply(event)
    assert game.tests == 1 and game.last_test == event[1]


def test_chi_square_is_exact_and_matches_the_formula():
    rng = Seeded(4)
    for n in (6, 60, 601, 6000):
        counts = [0] * 7
        for _ in range(n):
            counts[rng.randbelow(6) + 1] += 1
        x100 = free.chi_square_x100(counts)
        assert (
            x100 == int(_chi_float(counts) * 100 + 1e-9) or abs(x100 - _chi_float(counts) * 100) < 1
        )
    assert free.chi_square_x100([0, 10, 10, 10, 10, 10, 10]) == 0
    assert free.chi_square_x100([0] * 7) == 0
    assert free.format_x100(1508) == "15.08" and free.format_x100(7) == "0.07"


def test_verdict_at_one_percent():
    assert free.passes([0, 100, 100, 100, 100, 100, 100])
    assert not free.passes([0, 0, 0, 0, 0, 0, 0])
    fair_enough = [0, 130, 90, 100, 100, 90, 90]  # 6*sum(c^2)/600 - 600 = 12.0
    assert free.chi_square_x100(fair_enough) == 1200 and free.passes(fair_enough)
    loaded = [0, 70, 100, 100, 100, 100, 130]  # 18.0
    assert free.chi_square_x100(loaded) == 1800 and not free.passes(loaded)
    edge_pass = [0, 115, 100, 100, 100, 100, 85]  # 4.5
    assert free.passes(edge_pass)


def result_seeded_selftest():
    rng = Seeded(99)
    counts = [0] * 7
    for _ in range(1200):
        counts[rng.randbelow(6) + 1] += 1
    return [counts, free.chi_square_x100(counts), free.passes(counts)]


def test_sums_are_counted_for_the_dice_rolled_last_and_reset_starts_again():
    game = free.fold(
        [("new_game", ("free",)), ("roll", (1, 2)), ("roll", (6, 6)), ("roll", (3, 4))]
    )
    assert game.sum_dice == 2 and game.sum_rolls == 3
    assert game.sums[3] == 1 and game.sums[12] == 1 and game.sums[7] == 1 and sum(game.sums) == 3
    game.apply(("roll", (1, 1, 1)))  # three dice: another experiment
    assert game.sum_dice == 3 and game.sum_rolls == 1 and game.sums[3] == 1
    assert game.counts[1] == 4 and game.dice == 9
    game.apply(("reset", ()))
    assert game.rolls == 0 and game.dice == 0 and game.counts == [0] * 7 and game.last == ()
    assert game.sum_rolls == 0 and sum(game.sums) == 0


def test_exact_sum_distribution():
    assert free.ways(1) == [0, 1, 1, 1, 1, 1, 1]
    assert free.ways(2) == [0, 0, 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]
    for n in range(1, 7):
        w = free.ways(n)
        assert sum(w) == 6**n
        assert w[n] == 1 and w[6 * n] == 1 and w[n - 1] == 0
        assert w[n : 6 * n + 1] == w[n : 6 * n + 1][::-1]  # symmetric
    assert max(free.ways(3)) == 27  # sums 10 and 11


def test_fairness_in_words():
    even = [0, 100, 100, 100, 100, 100, 100]
    assert free.p_percent(even) == 99
    assert free.verdict(even) == "Fair: a fair die is this uneven 99% of the time."
    fair_enough = [0, 130, 90, 100, 100, 90, 90]  # chi-square 12.0: 3.5 % of fair dice
    assert free.p_percent(fair_enough) == 3
    assert free.verdict(fair_enough).startswith("Fair: a fair die is this uneven 3%")
    middling = [0, 115, 100, 100, 100, 100, 85]  # 4.5: about 48 %
    assert free.p_percent(middling) == 47
    loaded = [0, 70, 100, 100, 100, 100, 130]  # 18.0
    assert free.p_percent(loaded) == 0
    assert free.verdict(loaded) == "Not fair? A fair die is this uneven less than 1% of the time."


def test_the_percent_table_is_the_chi_square_tail():
    import sys

    if sys.implementation.name == "micropython":
        return  # the table is a const there (no attribute); CPython's doubles check it
    import math

    def tail(x):
        return math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2) * (
            1 + x / 3
        )

    for x100 in range(0, 2500, 7):  # counted as p_percent counts
        got = 0
        for critical in free._CRITICAL_X100:
            if x100 <= critical:
                got += 1
        want = min(99, int(tail(x100 / 100) * 100 + 1e-9))
        assert abs(got - want) <= 1, (x100, got, want)
