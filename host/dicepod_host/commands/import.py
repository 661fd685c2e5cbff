"""`dicepod import FILE [FILE ...] --db DB`: add a log to the club's database: the simulator's
download (JSON Lines), an export of `dicepod export` (JSON Lines or the event CSV) or another
dicepod database.

Each file is verified first (`dicepod verify`'s checks: checksums, hash chain, every game
re-played); a file with a problem is refused whole, naming the first problem. Its events are then
stored exactly once, as `dicepod log` stores them (unique on device, journal and sequence
number): importing the same file again, or a file holding events the logger already stored,
adds nothing. An event that differs from the one stored under its number is a conflict: counted,
never stored over the first, and the exit code is 1.
"""

from __future__ import annotations

import argparse
import sys
import time

from dicepod_host import verify
from dicepod_host.errors import UserError
from dicepod_host.store import Store

HELP = "add a simulator download, an export or another database to a database (verified, once)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `dicepod import`."""
    parser.add_argument("files", nargs="+", metavar="FILE", help="JSON Lines, CSV or database")
    parser.add_argument("--db", required=True, help="the dicepod database to add to")


def run(args: argparse.Namespace) -> int:
    """Verify and import each file; return 0 (1 when an event conflicted with a stored one)."""
    loaded = []
    for path in args.files:
        records = verify.load(path)
        report = verify.verify_records(records)
        if not report.ok:
            first = report.problems[0]
            raise UserError(
                f"{path} does not verify ({len(report.problems)} problem(s); first: {first}):"
                " nothing imported"
            )
        loaded.append((path, records))
    conflicts = 0
    with Store(args.db) as store:
        now = time.time()
        for path, records in loaded:
            counts = {"new": 0, "duplicate": 0, "conflict": 0}
            for _line, obj in records:
                kind = obj.get("type")
                if kind == "head":
                    continue  # the device's own report of its last seq: the logger's to keep
                if kind == "break":
                    store.add_break(obj)
                    continue
                counts[store.add_event(obj, received=now)] += 1
            store.commit()
            conflicts += counts["conflict"]
            print(
                "{}: {} new event(s), {} already stored, {} conflict(s) -> {}".format(
                    path, counts["new"], counts["duplicate"], counts["conflict"], args.db
                )
            )
    if conflicts:
        print(
            f"dicepod import: {conflicts} event(s) differ from the ones stored under their"
            " numbers (kept the first; see `dicepod verify`)",
            file=sys.stderr,
        )
        return 1
    return 0
