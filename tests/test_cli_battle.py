"""The `dicepod combos` and `dicepod odds bust` verbs, run as the real command (a subprocess):
the exact JSON other tools read, --batch over all 46,656 rolls of six dice against the naive
classifier of the portable tests, and bad input -> one line on stderr, exit 2, no traceback."""

import importlib.machinery
import json
import subprocess
import sys
import types
from fractions import Fraction

import pytest
from harness import ROOT
from test_battle import naive

from dicepod_host import cli


def dicepod(*args, stdin=None):
    """Run `dicepod ARGS` as a separate process; return the CompletedProcess."""
    return subprocess.run(
        [sys.executable, "-m", "dicepod_host.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def _expected(dice):
    bust, found, all_out = naive(tuple(sorted(dice)))
    return bust, sorted(found), all_out


def _check_object(obj, dice):
    assert list(obj) == ["dice", "bust", "scoring", "all_out"]
    assert obj["dice"] == list(dice)
    bust, found, all_out = _expected(dice)
    got = [(item["kind"], tuple(item["values"])) for item in obj["scoring"]]
    assert len(got) == len(set(got))
    assert sorted(got) == found and obj["bust"] is bust and obj["all_out"] is all_out
    for _kind, values in got:
        assert list(values) == sorted(values)


def test_combos_json_example():
    out = dicepod("combos", "1", "2", "3", "6", "6", "4", "--json")
    assert out.returncode == 0 and out.stderr == ""
    obj = json.loads(out.stdout)
    assert obj == {
        "dice": [1, 2, 3, 6, 6, 4],
        "bust": False,
        "scoring": [
            {"kind": "lucky_six", "values": [6]},
            {"kind": "double_six", "values": [6, 6]},
            {"kind": "straight", "values": [1, 2, 3]},
            {"kind": "straight", "values": [1, 2, 3, 4]},
            {"kind": "straight", "values": [2, 3, 4]},
        ],
        "all_out": True,
    }
    _check_object(obj, (1, 2, 3, 6, 6, 4))


@pytest.mark.parametrize(
    "dice", [(1, 1, 2, 4, 5, 5), (5, 5, 5), (3,), (6, 6, 6, 6, 6, 6), (2, 2, 2, 3, 4)]
)
def test_combos_json_other_rolls(dice):
    out = dicepod("combos", *map(str, dice), "--json")
    assert out.returncode == 0
    _check_object(json.loads(out.stdout), dice)


def test_combos_readable():
    out = dicepod("combos", "1", "2", "3", "6", "6", "4")
    assert out.returncode == 0
    assert "Straight 1-2-3-4" in out.stdout and "Double Six" in out.stdout
    assert "ALL OUT! possible: yes" in out.stdout
    out = dicepod("combos", "1", "1", "2", "4", "5", "5")
    assert "BUST" in out.stdout and "ALL OUT! possible: no" in out.stdout


def test_combos_batch_every_roll_of_six_dice():
    lines = []
    for index in range(6**6):
        dice = []
        for _ in range(6):
            dice.append(index % 6 + 1)
            index //= 6
        lines.append(" ".join(map(str, dice)))
    out = dicepod("combos", "--batch", stdin="\n".join(lines) + "\n")
    assert out.returncode == 0, out.stderr
    got = out.stdout.splitlines()
    assert len(got) == 6**6
    memo = {}
    for line, text in zip(lines, got):
        dice = tuple(int(v) for v in line.split())
        obj = json.loads(text)
        key = tuple(sorted(dice))
        if key not in memo:
            _check_object(obj, dice)
            memo[key] = (obj["bust"], obj["scoring"], obj["all_out"])
        assert obj["dice"] == list(dice)
        assert (obj["bust"], obj["scoring"], obj["all_out"]) == memo[key]
    assert len(memo) == 462


def test_combos_batch_fewer_dice_and_tabs():
    out = dicepod("combos", "--batch", stdin="6\n1\t2  3\n4 4 4 4\n")
    assert out.returncode == 0
    objects = [json.loads(line) for line in out.stdout.splitlines()]
    assert [o["dice"] for o in objects] == [[6], [1, 2, 3], [4, 4, 4, 4]]
    assert [o["all_out"] for o in objects] == [True, True, False]


def test_odds_bust_json():
    out = dicepod("odds", "bust", "--reroll", "3", "--json")
    assert out.returncode == 0 and out.stderr == ""
    obj = json.loads(out.stdout)
    assert list(obj) == ["reroll", "kept", "bust", "bust_float"]
    assert obj["reroll"] == 3 and obj["kept"] == [] and obj["bust"] == "17/36"
    assert abs(obj["bust_float"] - 17 / 36) < 1e-12
    obj = json.loads(dicepod("odds", "bust", "--reroll", "2", "--kept", "1", "1", "--json").stdout)
    assert obj == {"reroll": 2, "kept": [1, 1], "bust": "7/18", "bust_float": 7 / 18}


def test_odds_bust_kept_can_score_flag():
    """BG-9: the default is the device's (kept dice can score); the bare flag means yes."""
    default = json.loads(dicepod("odds", "bust", "--reroll", "1", "--kept", "6", "--json").stdout)
    assert default["bust"] == "0/1"
    flag = dicepod("odds", "bust", "--reroll", "1", "--kept", "6", "--kept-can-score", "--json")
    assert json.loads(flag.stdout)["bust"] == "0/1"
    no = dicepod("odds", "bust", "--reroll", "1", "--kept", "6", "--kept-can-score", "no")
    assert no.returncode == 0 and "5/6" in no.stdout
    yes = dicepod(
        "odds", "bust", "--json", "--kept", "6", "--kept-can-score", "yes", "--reroll", "1"
    )
    assert json.loads(yes.stdout)["bust"] == "0/1"
    bad = dicepod("odds", "bust", "--reroll", "1", "--kept-can-score", "maybe")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    for m in range(1, 7):
        obj = json.loads(dicepod("odds", "bust", "--reroll", str(m), "--json").stdout)
        fraction = Fraction(obj["bust"])
        assert str(fraction) == obj["bust"] or obj["bust"] == "%d/1" % fraction
        assert 0 < fraction < 1 and abs(obj["bust_float"] - float(fraction)) < 1e-12


def _brute_bust(m, kept, kept_can_score):
    """P(bust) over the 6**m ordered rolls (grouped by their sorted faces, each group weighted
    by its count of orderings), each judged by the naive classifier of the portable tests
    (every subset of positions): a roll scores when some scoring subset holds a re-rolled die,
    or (kept dice can score) any scoring subset at all."""
    from collections import Counter
    from itertools import combinations_with_replacement
    from math import factorial, prod

    from test_odds import _naive_bust

    busts = 0
    for roll in combinations_with_replacement(range(1, 7), m):
        if _naive_bust(roll, kept, kept_can_score):
            busts += factorial(m) // prod(factorial(c) for c in Counter(roll).values())
    return Fraction(busts, 6**m)


def test_odds_bust_agrees_with_brute_force_under_both_settings(capsys):
    """Every state (1-6 dice re-rolled next to every kept multiset) under --kept-can-score yes
    and no, and the default (= yes, the device's), through the verb's own code."""
    from dicepod.rules.dice import multisets

    checked = 0
    memo = {}
    for m in range(1, 7):
        for k in range(7 - m):
            for kept in multisets(k):
                for word, setting in (("yes", 1), ("no", 0), (None, 1)):
                    args = ["odds", "bust", "--reroll", str(m), "--json"]
                    if kept:
                        args += ["--kept"] + [str(v) for v in kept]
                    if word:
                        args += ["--kept-can-score", word]
                    assert cli.main(args) == 0
                    got = Fraction(json.loads(capsys.readouterr().out)["bust"])
                    key = (m, kept, setting)
                    if key not in memo:
                        memo[key] = _brute_bust(m, kept, setting)
                    assert got == memo[key], (m, kept, word)
                    checked += 1
    assert checked == 3 * 792  # 792 states: m = 1..6 re-rolled, every multiset of the rest kept


def test_odds_bust_readable_with_hint():
    out = dicepod("odds", "bust", "--reroll", "2", "--kept", "1", "1")
    assert out.returncode == 0
    first, hint = out.stdout.splitlines()
    assert "7/18" in first and "38.9%" in first
    assert "keep nothing" in hint and "re-roll 4" in hint and "7/27" in hint
    out = dicepod("odds", "bust", "--reroll", "4")
    assert out.stdout.count("\n") == 1 and "7/27" in out.stdout


BAD = [
    ("combos", "7"),
    ("combos", "0"),
    ("combos", "-1"),
    ("combos", "x"),
    ("combos", "1.5"),
    ("combos", "1", "2", "3", "4", "5", "6", "1"),
    ("combos",),
    ("combos", "--json"),
    ("combos", "1", "--batch"),
    ("odds",),
    ("odds", "bust"),
    ("odds", "bust", "--reroll", "0"),
    ("odds", "bust", "--reroll", "7"),
    ("odds", "bust", "--reroll", "x"),
    ("odds", "bust", "--reroll", "3", "--kept", "1", "2", "3", "4"),
    ("odds", "bust", "--reroll", "1", "--kept", "9"),
    ("odds", "bust", "--reroll", "1", "--kept", "one"),
    ("odds", "cheese"),
]


@pytest.mark.parametrize("args", BAD, ids=[" ".join(a) for a in BAD])
def test_bad_input_is_one_line_exit_2(args):
    out = dicepod(*args)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stdout == ""
    assert out.stderr.startswith("dicepod: ") and out.stderr.count("\n") == 1, out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize(
    "stdin",
    ["1 2 3\n1 2 7\n", "1 2 3\n\n", "x\n", "1 2 3 4 5 6 6\n"],
    ids=["7", "blank", "x", "7d"],
)
def test_batch_bad_line_writes_nothing(stdin):
    out = dicepod("combos", "--batch", stdin=stdin)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("dicepod: line ") and out.stderr.count("\n") == 1


def test_odds_plugs_in_a_test_subcommand(monkeypatch, capsys):
    """`odds test` comes from dicepod_host.commands._odds_test when that module exists."""
    name = "dicepod_host.commands._odds_test"
    plugin = types.ModuleType(name)
    plugin.__spec__ = importlib.machinery.ModuleSpec(name, None)
    plugin.HELP = "target-number test odds (stand-in)"
    plugin.add_arguments = lambda parser: parser.add_argument("--tn", type=int, required=True)
    plugin.run = lambda args: print("tn", args.tn) or 0
    monkeypatch.setitem(sys.modules, name, plugin)
    assert cli.main(["odds", "test", "--tn", "4"]) == 0
    assert capsys.readouterr().out == "tn 4\n"
    assert cli.main(["odds", "bust", "--reroll", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bust"] == "5/6"


@pytest.mark.parametrize("dice", [(2, 3, 4, 1, 1, 1), (6, 6, 3, 4, 5, 2), (5, 5, 5, 6, 1, 2)])
def test_the_device_and_the_pc_name_the_scoring_rolls_alike(dice):
    """One name per scoring roll (issue 13): the device's set-aside choices, one at a time, read
    exactly as `dicepod combos` lists them (both call dicepod.rules.scoring.name; the simulator
    runs the same firmware)."""
    from app_board import DOWN, Board, menu, press

    from dicepod.app import App

    listed = dicepod("combos", *map(str, dice)).stdout.split("\n")
    pc = [line.strip() for line in listed if line.startswith("  ")]
    app = App(Board(seed=3))
    app.start()
    menu(app, "battle")
    app.session.change_setting("battle.rows", 3)
    app.session.play(("roll", dice))
    screen = app.stack[-1]
    device = []
    for _ in range(len(screen.options)):
        if len(screen.options[screen.cursor]) == 1:  # one scoring roll: its name alone
            words = (screen.lines[0] + " " + screen.lines[1]).split()
            device.append(" ".join([w for w in words if "/" not in w]))  # not the index 2/5
        press(app, DOWN)
    assert pc and sorted(device) == sorted(pc), (device, pc)
