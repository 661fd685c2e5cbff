"""`dicepod db copy SRC DST`: copy a club's log into another database, typically an SQLite
file into a league's PostgreSQL server (`postgresql://user@host:port/dbname`).

Every row comes along (events, games, player names, the heads devices reported, the breaks of
damaged flash); rows already in DST stay as they are, so running it twice stores once. An
event that differs from the one DST holds under its (device, journal, seq) is counted as a
conflict and never stored over it (exit 1)."""

from __future__ import annotations

import argparse
import sys

from dicepod_host.store import Store
from dicepod_host.store_pg import copy

HELP = "copy a database into another (an SQLite file into a PostgreSQL server), once"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `dicepod db`."""
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    cp = sub.add_parser("copy", help="copy every row of SRC into DST (idempotent)")
    cp.add_argument("src", metavar="SRC", help="the database to copy (file or postgresql:// URL)")
    cp.add_argument("dst", metavar="DST", help="the database to copy into (created if new)")


def run(args: argparse.Namespace) -> int:
    """Copy SRC into DST; return 0 (1 when an event conflicted with a stored one)."""
    with Store(args.src, create=False) as src, Store(args.dst) as dst:
        counts = copy(src, dst)
        names = (src.path, dst.path)
    print(
        "{} -> {}: {} new event(s), {} already stored, {} conflict(s); {} game(s), "
        "{} player name(s), {} head(s), {} break(s)".format(
            *names, counts["new"], counts["duplicate"], counts["conflict"], counts["games"],
            counts["players"], counts["heads"], counts["breaks"],
        )
    )  # fmt: skip
    if counts["conflict"]:
        print(
            f"dicepod db copy: {counts['conflict']} event(s) differ from the ones stored under"
            " their numbers (kept the first; see `dicepod verify`)",
            file=sys.stderr,
        )
        return 1
    return 0
