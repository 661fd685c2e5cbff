"""`dicepod odds WHAT`: exact odds from the firmware's own rules.

`dicepod odds bust --reroll M [--kept V ...] [--kept-can-score [yes|no]] [--json]`: the
Battle Game's exact bust probability (dicepod.rules.odds) for re-rolling M dice next to the kept
dice, under either reading of "kept dice alone can score" (docs/RULES.md BG-9): the bare flag
means yes, and without it the device's default (yes, the literal reading) holds.

Plugging in more subcommands: each is a module with the shape of a verb (HELP,
add_arguments(parser), run(args) -> int). `bust` lives here; `test` (target-number tests) is
picked up from dicepod_host/commands/_odds_test.py when that module exists (the leading
underscore keeps cli.py from taking it for a verb of its own). To add another, put its module
name in _PLUGINS below.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import sys

from dicepod.rules import battle, odds
from dicepod.rules.fraction import text as fraction_text
from dicepod_host.errors import UsageError

HELP = "exact odds: `odds bust` (Battle Game bust chance), `odds test` (target-number tests)"

# (subcommand, module under dicepod_host.commands) added only when the module exists.
_PLUGINS = (("test", "_odds_test"),)

_BUST_HELP = "Exact bust probability for re-rolling M dice next to kept dice (Battle Game)"


def _count(word):
    """--reroll: a whole number of dice."""
    try:
        return int(word)
    except ValueError:
        raise UsageError("--reroll: not a whole number: %r" % word) from None


def _die(word):
    """--kept: a die value 1-6."""
    try:
        value = int(word)
    except ValueError:
        raise UsageError("--kept: not a whole number: %r" % word) from None
    if not 1 <= value <= 6:
        raise UsageError("--kept: die value %d is outside 1-6" % value)
    return value


def _device_default() -> int:
    """The device's default for battle.kept_can_score (1 = yes)."""
    for spec in battle.SETTINGS:
        if spec[0] == battle.KEPT_CAN_SCORE and spec[1] is not None:
            return spec[1]
    raise LookupError(battle.KEPT_CAN_SCORE)


def _add_bust(sub):
    parser = sub.add_parser("bust", help=_BUST_HELP, description=_BUST_HELP)
    parser.add_argument("--reroll", required=True, type=_count, metavar="M", help="dice re-rolled")
    parser.add_argument(
        "--kept", nargs="*", default=[], type=_die, metavar="V", help="values of the kept dice"
    )
    parser.add_argument(
        "--kept-can-score",
        nargs="?",
        const="yes",
        default=None,
        choices=("yes", "no"),
        help='setting "kept dice alone can score": yes (the bare flag; kept dice are part of '
        "the new roll) or no (a scoring roll must use a re-rolled die); default: the device's "
        "(%s)" % ("yes" if _device_default() else "no"),
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(_odds_run=run_bust)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Subcommands: bust (here), and each plug-in module that exists."""
    sub = parser.add_subparsers(dest="odds_what", metavar="WHAT")
    _add_bust(sub)
    for name, module_name in _PLUGINS:
        full = "dicepod_host.commands." + module_name
        if importlib.util.find_spec(full) is None:
            continue
        module = importlib.import_module(full)
        plugin = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(plugin)
        plugin.set_defaults(_odds_run=module.run)


def run(args: argparse.Namespace) -> int:
    """Run the chosen subcommand."""
    handler = getattr(args, "_odds_run", None)
    if handler is None:
        raise UsageError("odds: choose what to compute (see `dicepod odds --help`)")
    return handler(args)


def _percent(fraction):
    return "%.1f%%" % (100.0 * fraction[0] / fraction[1])


def run_bust(args: argparse.Namespace) -> int:
    """Print the exact bust probability (and, without --json, the keep hint)."""
    m, kept = args.reroll, tuple(args.kept)
    if not 1 <= m <= 6:
        raise UsageError("--reroll must be 1 to 6 dice, not %d" % m)
    if m + len(kept) > 6:
        raise UsageError("too many dice: %d re-rolled + %d kept (at most 6)" % (m, len(kept)))
    if args.kept_can_score is None:
        setting = _device_default()
    else:
        setting = 1 if args.kept_can_score == "yes" else 0
    fraction = odds.bust(m, kept, setting)
    if args.json:
        obj = {
            "reroll": m,
            "kept": list(kept),
            "bust": fraction_text(fraction),
            "bust_float": fraction[0] / fraction[1],
        }
        print(json.dumps(obj))
        return 0
    where = " next to kept %s" % " ".join(str(v) for v in kept) if kept else ""
    rule = " (kept dice alone can score)" if setting and kept else ""
    print(
        "Re-rolling %d %s%s%s: bust %s = %s"
        % (m, "die" if m == 1 else "dice", where, rule, fraction_text(fraction), _percent(fraction))
    )
    if kept:
        best, best_fraction = odds.best_keep(kept, setting, extra=m)
        if best == kept:
            print("Hint: keeping %s is the lowest risk." % " ".join(str(v) for v in kept))
        else:
            keep = "keep %s" % " ".join(str(v) for v in best) if best else "keep nothing"
            print(
                "Hint: %s and re-roll %d: bust %s = %s"
                % (
                    keep,
                    m + len(kept) - len(best),
                    fraction_text(best_fraction),
                    _percent(best_fraction),
                )
            )
    sys.stdout.flush()
    return 0
