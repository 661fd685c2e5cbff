"""`dicepod combos`: the Battle Game scoring rolls in a set of dice, using the firmware's own
rules (dicepod.rules.scoring), for people (a readable summary) and for other tools (--json, and
--batch for many rolls, one per line on stdin, one JSON object per line on stdout)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from dicepod.rules import scoring
from dicepod.rules.dice import counts
from dicepod_host.errors import UsageError

HELP = "list the Battle Game scoring rolls, bust and ALL OUT! for a set of dice"

_MOST = 6  # the Battle Game rolls six dice


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Dice values as arguments, or --batch to read rolls from stdin."""
    parser.add_argument("dice", nargs="*", metavar="DIE", help="die values 1-6 (1 to 6 dice)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--batch",
        action="store_true",
        help="read one roll per line (values separated by spaces) from stdin; "
        "write one JSON object per line",
    )


def parse_dice(words: list[str], where: str = "") -> tuple[int, ...]:
    """Return the dice as a tuple of ints; raise UsageError for anything else."""
    if not words:
        raise UsageError(f"{where}no dice given")
    if len(words) > _MOST:
        raise UsageError(f"{where}too many dice: {len(words)} (at most {_MOST})")
    dice = []
    for word in words:
        try:
            value = int(word)
        except ValueError:
            raise UsageError(f"{where}not a whole number: {word!r}") from None
        if not 1 <= value <= 6:
            raise UsageError(f"{where}die value {value} is outside 1-6")
        dice.append(value)
    return tuple(dice)


def _summary(dice):
    """Return (bust, scoring list as JSON-able dicts, all_out) for dice."""
    face_counts = counts(dice)
    found = scoring.mask(face_counts)
    listed = [
        {"kind": scoring.kind(combo), "values": list(combo)}
        for i, combo in enumerate(scoring.COMBOS)
        if found >> i & 1
    ]
    return found == 0, listed, scoring.all_out(face_counts)


def classify(dice: tuple[int, ...], _cache: dict[Any, Any] = {}) -> dict[str, Any]:  # noqa: B006 (a deliberate memo: 462 multisets at most)
    """Return the JSON-able object for one roll (keys in the documented order)."""
    key = tuple(sorted(dice))
    summary = _cache.get(key)
    if summary is None:
        summary = _cache[key] = _summary(key)
    bust, scoring, all_out = summary
    return {"dice": list(dice), "bust": bust, "scoring": scoring, "all_out": all_out}


def _readable(dice):
    obj = classify(dice)
    lines = ["Dice: {}".format(" ".join(str(d) for d in dice))]
    if obj["bust"]:
        lines.append("BUST: no scoring roll")
    else:
        lines.append("Scoring rolls:")
        for item in obj["scoring"]:
            lines.append("  " + scoring.name(tuple(item["values"])))
    lines.append("ALL OUT! possible: %s" % ("yes" if obj["all_out"] else "no"))
    return "\n".join(lines)


def _batch(stream):
    """Read every line first (so bad input writes nothing to stdout), then write the objects."""
    out = []
    try:
        for number, line in enumerate(stream, 1):
            dice = parse_dice(line.split(), f"line {number}: ")
            out.append(json.dumps(classify(dice)))
    except UnicodeDecodeError:
        raise UsageError("--batch: stdin is not text (one roll per line: 1 2 3 6 6 4)") from None
    if out:
        sys.stdout.write("\n".join(out) + "\n")


def run(args: argparse.Namespace) -> int:
    """Classify the dice given (or each line of stdin with --batch)."""
    if args.batch:
        if args.dice:
            raise UsageError("--batch reads the dice from stdin: give no dice as arguments")
        _batch(sys.stdin)
        return 0
    dice = parse_dice(args.dice)
    if args.json:
        print(json.dumps(classify(dice)))
    else:
        print(_readable(dice))
    return 0
