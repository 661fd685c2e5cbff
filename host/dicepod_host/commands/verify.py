"""`dicepod verify FILE|DB [--json]`: check the hash chain and fold every game through the rules.

Exit 0 when every game is intact and legal; otherwise exit 1 and name the first bad event
(device, game, sequence number, line, what is wrong)."""

from __future__ import annotations

import argparse
import json

from dicepod_host import verify as engine

HELP = "check a logged or exported game log: hash chain, dice values, rules"
# Problems printed in text mode (all of them go into --json).
_SHOWN = 20


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `dicepod verify`."""
    parser.add_argument("log", metavar="FILE|DB", help="a dicepod database, JSONL or CSV export")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args: argparse.Namespace) -> int:
    """Verify the log; return 0 when intact and legal, 1 otherwise."""
    report = engine.verify_path(args.log)
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
        return 0 if report.ok else 1
    for note in report.notes:
        print(f"note: {note}")
    for problem in report.problems[:_SHOWN]:
        print(f"BAD {problem}")
    if len(report.problems) > _SHOWN:
        print(f"... and {len(report.problems) - _SHOWN} more problems")
    summary = (
        f"{report.devices} device(s), {report.games} game(s), {report.events} event(s), "
        f"{report.rules_checked} game(s) folded through their rules"
    )
    # Each journal (a device's flash since it was last wiped), for logs that name them.
    journals = [
        f"journal {jid} of device {device}: {count} event(s), seq {first}..{last}"
        for device, jid, count, first, last in report.journals
        if jid
    ]
    if report.ok:
        print(f"OK: {summary}")
        for line in journals:
            print(line)
        return 0
    first = report.problems[0]
    print(f"FAIL: {summary}; first bad event: {first}")
    for line in journals:
        print(line)
    return 1
