"""`dicepod games DB [--device ID] [--mode M] [--league] [--json]`: every logged game's result,
folded through the same rules the device ran (see dicepod_host.results): device, game, mode,
start, length, players, winner and scores; --league prints the league table (win rates with 95 %
intervals) and head-to-head per mode instead."""

from __future__ import annotations

import argparse
import json
import os
import time

from dicepod_host import results as engine
from dicepod_host.errors import UserError
from dicepod_host.store import Store
from dicepod_host.verify import SQLITE_MAGIC

HELP = "list the games logged, with players, winner and scores (or the league table)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `dicepod games`."""
    parser.add_argument("db", metavar="DB", help="the dicepod database")
    parser.add_argument("--device", help="only this device's games")
    parser.add_argument("--mode", help="only games of this mode")
    parser.add_argument("--league", action="store_true", help="the league table and head-to-head")
    parser.add_argument("--json", action="store_true", help="print JSON")


def when(seconds: float | None) -> str:
    """A receive time as local YYYY-MM-DD HH:MM ('' when unknown)."""
    if not isinstance(seconds, (int, float)) or not 0 <= seconds < 1e11:
        return ""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def selected(store: Store, device: str | None, mode: str | None) -> list[engine.Result]:
    """The results of the store, filtered."""
    return [
        r
        for r in engine.results_of(store)
        if (device is None or r.device == device) and (mode is None or r.mode == mode)
    ]


def _database_or_hint(path: str) -> None:
    """Refuse a JSON Lines or CSV log (a simulator download, an export), naming the import."""
    try:
        if not os.path.isfile(path):
            return  # Store names what is wrong with the path
        with open(path, "rb") as f:
            head = f.read(16)
    except (OSError, ValueError):
        return
    if head and head != SQLITE_MAGIC and head.lstrip()[:1] in (b"{", b"v", b"d"):
        raise UserError(
            f"{path} is a log file, not a database: add it to one with"
            f" `dicepod import {path} --db DB`, then list that"
        )


def run(args: argparse.Namespace) -> int:
    """Print the games (or the league); return 0."""
    _database_or_hint(args.db)
    with Store(args.db, create=False) as store:
        rows = selected(store, args.device, args.mode)
    if args.league:
        table = engine.league(rows)
        if args.json:
            print(json.dumps(table, indent=2))
            return 0
        for mode, lines in sorted(table["modes"].items()):
            what = "series" if mode == "battle" else "games"
            print(f"{mode}: player, {what} finished, won, drawn, lost, rate (95 % interval)")
            for r in lines:
                rate = (
                    f"{100 * r['rate']:5.1f}% ({100 * r['low']:.1f}-{100 * r['high']:.1f}%)"
                    if r["played"]
                    else "    -  (no finished game yet)"
                )
                going = ""
                if r["in_progress"]:
                    going = f"  + {r['in_progress']} in progress"
                if mode == "battle":
                    going += f"  ({r['games']} game(s) played)"
                print(
                    f"  {r['player'][:20]:<20} {r['played']:4} {r['won']:4} {r['drawn']:4}"
                    f" {r['lost']:4}  {rate}{going}"
                )  # fmt: skip
            for h in table["head_to_head"].get(mode, ()):
                print(f"  {h['a']} {h['a_won']} - {h['b_won']} {h['b']} ({h['drawn']} drawn)")
        if not table["modes"]:
            print("no games with players yet")
        return 0
    if args.json:
        for r in rows:
            print(json.dumps(r.as_dict()))
        return 0
    for r in rows:
        print(
            "{} game {}{} {:<8} {} {:5.0f} s  {}  {}{}".format(
               r.device, r.game, f".{r.play}" if r.play > 1 else "", r.mode, when(r.started),
               r.seconds, " v ".join(r.players), r.outcome,
               "  scores {}".format("-".join(str(s) for s in r.scores)) if r.scores else "")
            + ("" if r.finished else "  (not finished)")
            + (f"  BAD {r.problem}" if r.problem else "")
        )  # fmt: skip
    print(f"{len(rows)} game(s)")
    return 0
