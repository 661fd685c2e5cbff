"""Exact fractions as (numerator, denominator) int pairs in lowest terms: the one home of the
helpers the odds of every mode use (MicroPython has no fractions module and no math.gcd). Pure:
runs unchanged on MicroPython and CPython."""


def gcd(a, b):
    """Return the greatest common divisor of two non-negative ints (gcd(0, 0) = 0)."""
    while b:
        a, b = b, a % b
    return a


def reduce(num, den):
    """Return num/den as a reduced (num, den) pair with den > 0 (0/den -> (0, 1)); ValueError
    for a denominator that is not positive."""
    if den <= 0:
        raise ValueError("denominator")
    g = gcd(num if num >= 0 else -num, den)
    return (num // g, den // g) if num else (0, 1)


def text(fraction):
    """Return a fraction pair as 'num/den'."""
    return "%d/%d" % (fraction[0], fraction[1])
