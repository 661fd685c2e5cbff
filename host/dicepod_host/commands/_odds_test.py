"""`dicepod odds test`: exact odds of a target-number test (plugged into `dicepod odds`).

    dicepod odds test --dice N --tn T [--mod=+1 --mod=cover:-1 ...] [--reroll RULE] [--json]

Prints the final target number (modifiers from differently named sources add; a name given
twice counts once, the last value; the TN is capped to 2+..6+), the chance that one die succeeds
and the exact distribution of the number of successes, computed by the firmware's own
dicepod.rules.tn. `--tn -` is a test that does not exist: exit 1. With --reroll (failures:
every failed die once; one: one failed die) the odds after that re-roll follow.

JSON: {"dice": N, "tn_final": T, "p_success": "1/2", "distribution": ["1/16", "4/16", ...]}
plus "modifier" and, with --reroll, "reroll": {"rule", "p_success", "distribution"}. Index =
number of successes. p_success is a reduced fraction; the distribution's entries all share one
denominator: 6^N (36^N after re-rolling failures, 6^(N+1) after re-rolling one die) divided by
the greatest common divisor of that power and every numerator, so 4 dice on 4+ read 1/16, 4/16,
6/16, 4/16, 1/16 and the entries add up to 1 at a glance.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from dicepod.rules import fraction
from dicepod.rules import tn as rules
from dicepod_host.errors import UsageError, UserError

HELP = "exact odds of a target-number test: final TN, chance per die, successes for N dice"

_RULES = {"none": rules.RULE_NONE, "failures": rules.RULE_FAILURES, "one": rules.RULE_ONE}


def _dice(word):
    try:
        value = int(word)
    except ValueError:
        raise UsageError(f"--dice: not a whole number: {word!r}") from None
    if not 1 <= value <= rules.MAX_DICE:
        raise UsageError(f"--dice must be 1 to {rules.MAX_DICE}, not {value}")
    return value


def _tn(word):
    text = word.strip()
    if text in ("-", "\u2013", "\u2014"):
        return 0  # a dash: the test does not exist
    if text.endswith("+"):
        text = text[:-1]
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"--tn: expected 2 to 6 (or - for a dash), not {word!r}") from None
    if not 2 <= value <= 6:
        raise UsageError(f"--tn must be 2 to 6 (or - for a dash), not {value}")
    return value


def _mod(word):
    name, sep, text = word.rpartition(":")
    if not sep:
        name = ""
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"--mod: expected [NAME:]+X or -X, not {word!r}") from None
    if not -9 <= value <= 9:
        raise UsageError(f"--mod: {value} is outside -9..+9")
    return name, value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `dicepod odds test`."""
    parser.add_argument("--dice", required=True, type=_dice, metavar="N", help="dice rolled")
    parser.add_argument(
        "--tn", required=True, type=_tn, metavar="T", help="target number 2-6, or - (a dash)"
    )
    parser.add_argument(
        "--mod",
        action="append",
        default=[],
        type=_mod,
        metavar="[NAME:]X",
        help="a modifier, e.g. --mod=+1 or --mod=cover:-1 (repeat; one value per name)",
    )
    parser.add_argument(
        "--reroll",
        choices=sorted(_RULES),
        default="none",
        help="also show the odds after a re-roll rule",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def total_modifier(mods: list[tuple[str, int]]) -> int:
    """Sum modifiers by source: unnamed ones each count, a repeated name counts once (last)."""
    named = {}
    total = 0
    for name, value in mods:
        if name:
            named[name] = value
        else:
            total += value
    return total + sum(named.values())


def report(
    dice: int, tn: int | None, mods: list[tuple[str, int]], rule: int = rules.RULE_NONE
) -> dict[str, Any]:
    """Return the JSON-able report; raise UserError (exit 1) for a test that does not exist."""
    modifier = total_modifier(mods)
    final = rules.final_tn(tn, modifier)
    if final is None:
        raise UserError("the test does not exist (TN -): no modifier can grant it", 1)
    obj = {
        "dice": dice,
        "tn_final": final,
        "p_success": fraction.text(rules.p_success(final)),
        "distribution": _strings(rules.distribution(dice, final)),
        "modifier": modifier,
    }
    if rule != rules.RULE_NONE:
        obj["reroll"] = {
            "rule": rules.RULE_NAMES[rule],
            "p_success": fraction.text(rules.p_success(final, rule)),
            "distribution": _strings(rules.distribution(dice, final, rule)),
        }
    return obj


def _strings(dist):
    nums, den = dist
    return [f"{num}/{den}" for num in nums]


def _table(label, p, dist):
    lines = [f"{label}: success per die {p} = {_percent(p)}"]
    lines.append("  successes  chance")
    for count, text in enumerate(dist):
        lines.append(f"  {count:9d}  {text:<14} {_percent(text)}")
    return lines


def _percent(text):
    num, den = text.split("/")
    return "%.2f%%" % (100.0 * int(num) / int(den))


def run(args: argparse.Namespace) -> int:
    """Print the report (text or --json)."""
    obj = report(args.dice, args.tn, args.mod, _RULES[args.reroll])
    if args.json:
        print(json.dumps(obj))
        return 0
    dice = "{} {}".format(args.dice, "die" if args.dice == 1 else "dice")
    mods = " ".join("{}{:+d}".format(n + ":" if n else "", v) for n, v in args.mod)
    where = " (base {}+{})".format(args.tn, ", modifiers " + mods if mods else "")
    print("{}, final TN {}+{}".format(dice, obj["tn_final"], where))
    for line in _table("No re-roll", obj["p_success"], obj["distribution"]):
        print(line)
    if "reroll" in obj:
        after = obj["reroll"]
        label = "Re-roll %s" % ("failures once" if after["rule"] == "failures" else "one die")
        for line in _table(label, after["p_success"], after["distribution"]):
            print(line)
    return 0
