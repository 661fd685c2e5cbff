"""`dicepod odds test`: exact success distributions checked against brute-force enumeration for
1-6 dice, every TN and modifier combination inside the caps; errors and exit codes."""

import json
import math
import subprocess
import sys
from fractions import Fraction
from functools import reduce

import pytest

from dicepod_host import cli

# Modifier sets: none, one source, two sources, and totals far past the caps.
MOD_SETS = (
    [[]]
    + [[x] for x in (-5, -4, -3, -2, -1, 1, 2, 3, 4, 5)]
    + [[x, y] for x in (-2, -1, 1, 2) for y in (-1, 1, 3)]
)


def _passes(face, tn):
    """The rulebook's test, written out independently: natural 6 passes, natural 1 fails."""
    return face == 6 or (face != 1 and face >= tn)


def _final(tn, mods):
    return min(6, max(2, tn - sum(mods)))


def _brute(n, tn):
    """Counts of 0..n successes over all 6^n ordered throws."""
    counts = [0] * (n + 1)
    for index in range(6**n):
        successes = 0
        for _ in range(n):
            successes += _passes(index % 6 + 1, tn)
            index //= 6
        counts[successes] += 1
    return counts


def _brute_reroll(n, tn, rule):
    """Counts over all throws and re-rolls: 'failures' (each failed die once) or 'one'."""
    counts = [0] * (n + 1)
    if rule == "failures":
        for index in range(36**n):
            successes = 0
            for _ in range(n):
                first, second = index % 6 + 1, index // 6 % 6 + 1
                successes += _passes(first, tn) or _passes(second, tn)
                index //= 36
            counts[successes] += 1
        return counts, 36**n
    for index in range(6 ** (n + 1)):
        faces = [(index // 6**i) % 6 + 1 for i in range(n + 1)]
        successes = sum(_passes(f, tn) for f in faces[:n])
        if successes < n and _passes(faces[n], tn):
            successes += 1
        counts[successes] += 1
    return counts, 6 ** (n + 1)


BRUTE = {(n, tn): _brute(n, tn) for n in range(1, 7) for tn in range(2, 7)}


_PARSER = []


def _run_json(capsys, argv):
    """Run `dicepod odds test ARGV --json` through the CLI's own parser (built once: the
    brute-force sweep makes hundreds of calls) and return the parsed object."""
    if not _PARSER:
        _PARSER.append(cli.build_parser())
    args = _PARSER[0].parse_args(["odds", "test"] + argv + ["--json"])
    assert args._run(args) == 0
    return json.loads(capsys.readouterr().out)


def _fractions(strings):
    pairs = [tuple(int(part) for part in s.split("/")) for s in strings]
    return pairs


@pytest.mark.parametrize("n", range(1, 7))
def test_distribution_matches_brute_force(capsys, n):
    for tn in range(2, 7):
        for mods in MOD_SETS:
            argv = ["--dice", str(n), "--tn", str(tn)] + ["--mod=%+d" % m for m in mods]
            obj = _run_json(capsys, argv)
            final = _final(tn, mods)
            assert obj["dice"] == n and obj["tn_final"] == final, (argv, obj)
            successful_faces = sum(_passes(f, final) for f in range(1, 7))
            assert Fraction(obj["p_success"]) == Fraction(successful_faces, 6)
            num, den = (int(x) for x in obj["p_success"].split("/"))
            assert math.gcd(num, den) == 1  # p_success is reduced
            pairs = _fractions(obj["distribution"])
            assert len(pairs) == n + 1
            counts = BRUTE[(n, final)]
            for (num, den), count in zip(pairs, counts):
                assert Fraction(num, den) == Fraction(count, 6**n), (argv, obj)
            # One common denominator: 6^n reduced by the gcd of every numerator and 6^n.
            dens = {den for _num, den in pairs}
            assert len(dens) == 1
            common = dens.pop()
            assert (6**n) % common == 0
            assert reduce(math.gcd, [num for num, _den in pairs], common) == 1


@pytest.mark.parametrize("rule,most", [("failures", 3), ("one", 4)])
def test_reroll_distributions_match_brute_force(capsys, rule, most):
    for n in range(1, most + 1):
        for tn in range(2, 7):
            obj = _run_json(capsys, ["--dice", str(n), "--tn", str(tn), "--reroll", rule])
            after = obj["reroll"]
            assert after["rule"] == rule
            counts, total = _brute_reroll(n, tn, rule)
            for (num, den), count in zip(_fractions(after["distribution"]), counts):
                assert Fraction(num, den) == Fraction(count, total)
            if rule == "failures":
                p = Fraction(sum(_passes(f, tn) for f in range(1, 7)), 6)
                assert Fraction(after["p_success"]) == p + (1 - p) * p


def test_json_example_from_the_issue(capsys):
    assert cli.main(["odds", "test", "--dice", "4", "--tn", "5", "--mod=+1", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["tn_final"] == 4 and obj["p_success"] == "1/2"
    assert obj["distribution"] == ["1/16", "4/16", "6/16", "4/16", "1/16"]


def test_named_sources_count_once(capsys):
    obj = _run_json(capsys, ["--dice", "1", "--tn", "5", "--mod=aim:+1", "--mod=aim:+2"])
    assert obj["tn_final"] == 3 and obj["modifier"] == 2
    obj = _run_json(capsys, ["--dice", "1", "--tn", "5", "--mod=aim:+1", "--mod=cover:+1"])
    assert obj["tn_final"] == 3


def test_text_output(capsys):
    assert (
        cli.main(["odds", "test", "--dice", "2", "--tn", "4", "--mod=-1", "--reroll", "one"]) == 0
    )
    out = capsys.readouterr().out
    assert "final TN 5+" in out and "1/3" in out and "Re-roll one die" in out
    assert "4/9" in out  # 0 successes without re-roll: (4/6)^2


def _dicepod(*args):
    return subprocess.run(
        [sys.executable, "-m", "dicepod_host.cli", *args], capture_output=True, text=True
    )


def test_dash_means_the_test_does_not_exist():
    out = _dicepod("odds", "test", "--dice", "3", "--tn", "-", "--mod=+2")
    assert out.returncode == 1
    assert out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and "does not exist" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["--dice", "0", "--tn", "4"],
        ["--dice", "x", "--tn", "4"],
        ["--dice", "3", "--tn", "7"],
        ["--dice", "3", "--tn", "four"],
        ["--dice", "3", "--tn", "4", "--mod=big"],
        ["--dice", "3", "--tn", "4", "--mod=+12"],
        ["--dice", "3"],
        ["--dice", "3", "--tn", "4", "--reroll", "twice"],
    ],
)
def test_bad_arguments_exit_2_with_one_line(argv):
    out = _dicepod("odds", "test", *argv)
    assert out.returncode == 2, out
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "Traceback" not in out.stderr
