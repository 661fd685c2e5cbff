"""`dicepod stats LOG [LOG ...] [--mode M] [--device ID] [--json] [--png DIR]`: statistics over
logged games: per-face counts with chi-square and p-value, scoring rolls and busts against the
exact odds, test success rates against their exact odds; --png writes charts a teacher can show.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from dicepod_host import stats as engine
from dicepod_host.errors import UserError
from dicepod_host.verify import load

HELP = "dice statistics of logged games against the exact odds (text, JSON or PNG charts)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `dicepod stats`."""
    parser.add_argument("logs", nargs="+", metavar="LOG", help="databases, JSONL or CSV exports")
    parser.add_argument("--mode", help="only games of this mode (battle, tests, free, ...)")
    parser.add_argument("--device", help="only this device's games")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    parser.add_argument("--png", metavar="DIR", help="write charts (PNG) into this directory")


def _text(report):
    lines = ["{} game(s), {} event(s)".format(report["games"], report["events"])]
    faces = report["faces"]
    if faces["dice"]:
        lines.append(
            "faces ({} dice: every roll the dice made, {} of undone rolls included):".format(
                faces["dice"], faces.get("undone", 0)
            )
        )
        for face, count in enumerate(faces["counts"], 1):
            lines.append(
                "  {}: {:6d}  ({:.1f}%)".format(face, count, 100.0 * count / faces["dice"])
            )
        lines.append(
            "  chi-square {:.3f} ({} df), p = {:.4f}: {} at the 1% level".format(
                faces["chi_square"],
                faces["df"],
                faces["p_value"],
                "fair" if faces["fair_at_1pc"] else "NOT fair",
            )
        )
    if "battle" in report:
        b = report["battle"]
        lines.append("Battle Rolls ({}):".format(b["battle_rolls"]))
        for row in b["kinds"]:
            rate = "{:.3f}".format(row["rate"]) if row["rate"] is not None else "-"
            lines.append(
                "  {:<16} {:6d}  logged {}  exact {:.3f}".format(
                    row["kind"], row["observed"], rate, row["exact"]
                )
            )
        busts = b["busts"]
        z = "{:.2f}".format(busts["z"]) if busts["z"] is not None else "-"
        lines.append(
            "  busts over all rolls and re-rolls: {} of {}, expected {:.1f} (z = {})".format(
                busts["observed"], busts["trials"], busts["expected"], z
            )
        )
    if "tests" in report:
        lines.append("Tests (per die):")
        for row in report["tests"]:
            lines.append(
                "  {}+: {:6d} dice, {:6d} successes, rate {:.3f}, exact {:.3f}".format(
                    row["tn"], row["dice"], row["successes"], row["rate"], row["exact"]
                )
            )
    for note in report.get("notes", ()):
        lines.append(f"note: {note}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Print the statistics (and write charts); return 0."""
    records = []
    for path in args.logs:
        records.extend(load(path))
    stats = engine.collect(records, mode=args.mode, device=args.device)
    if not stats.games:
        raise UserError("no games in {}".format(", ".join(args.logs)))
    report = stats.report()
    if args.png:
        directory = Path(args.png)
        if directory.exists() and not directory.is_dir():
            raise UserError(f"{directory} is not a directory")
        try:
            written = engine.charts(report, directory)
        except OSError as err:
            raise UserError(f"cannot write charts to {directory}: {err}") from err
        report["charts"] = [str(p) for p in written]
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(_text(report))
        for path in report.get("charts", ()):
            print(f"chart: {path}")
    return 0
