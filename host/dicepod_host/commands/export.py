"""`dicepod export DB [--table events|games] [--format csv|jsonl] [--device ID] [-o FILE]`:
the log as tables a spreadsheet opens, or as JSON Lines.

    --table events (default)  one row per event. CSV: device, seq, game, mode, ms, received (local
                              time), kind, value_1 .. value_N (the event's data, one value a
                              column), then data (the same as one JSON list), prev, crc, v and
                              journal (the journal id, "" for protocol 1), so `dicepod verify`
                              checks a CSV export too. JSON Lines: the USB
                              protocol's own event lines (the stored crc as stored: a database
                              edited by hand shows up in verify). Both end with the
                              database's breaks and heads (break and hello/pong lines; CSV
                              rows of kind #break and #head), which verify needs too.
    --table games             one row per game: its result record (dicepod games): device, game,
                              play, mode, started, ended, seconds, events, finished, winner,
                              result, outcome, player_1 .. player_N, score_1 .. score_N, problem.

A CSV text cell a spreadsheet would take for a formula (it begins with = + - @, a tab or a
carriage return: a player named =HYPERLINK(...)) gets a leading ' so it stays text, as the
OWASP CSV-injection guidance says; numbers are written as numbers.
"""

from __future__ import annotations

import argparse
import csv
import errno
import json
import os
import stat
import sys
import time
from collections.abc import Mapping
from typing import IO, Any

from dicepod import journal, protocol_pc
from dicepod_host import results, trust
from dicepod_host.errors import UserError
from dicepod_host.store import Store

HELP = "export logged events or game results as CSV (one row each) or JSON Lines"
EVENT_HEAD = ("device", "seq", "game", "mode", "ms", "received", "kind")
EVENT_TAIL = ("data", "prev", "crc", "v", "journal")
GAME_HEAD = ("device", "game", "play", "mode", "started", "ended", "seconds", "events",
             "finished", "winner", "result", "outcome")  # fmt: skip


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `dicepod export`."""
    parser.add_argument("db", metavar="DB", help="the dicepod database written by `dicepod log`")
    parser.add_argument("--table", choices=("events", "games"), default="events")
    parser.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")
    parser.add_argument("--device", help="only this device's events")
    parser.add_argument("-o", "--output", help="write to this file (default: standard output)")


def iso(seconds: Any) -> str:
    """A Unix time as local YYYY-MM-DDTHH:MM:SS ('' when unknown or absurd)."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        return ""
    if not 0 <= seconds < 1e11:
        return ""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(seconds))


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: formula-like text gets a leading quote."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


class _SafeWriter:
    """csv.writer whose rows go through cell()."""

    def __init__(self, out: IO[str]) -> None:
        self.writer = csv.writer(out, lineterminator="\n")

    def writerow(self, row: Any) -> None:
        self.writer.writerow([cell(v) for v in row])


def _event_line(obj: Mapping[str, Any]) -> str:
    """The protocol line of a stored event; a row no device could send is written loosely (as
    JSON with its fields as stored) so that verify names it."""
    try:
        journal.check_event(obj["event"])
        for key in ("seq", "game", "ms", "v"):
            if isinstance(obj[key], bool) or not isinstance(obj[key], int):
                raise ValueError(key)
        line = protocol_pc.encode_event(
            obj["dev"], obj["seq"], obj["game"], obj["ms"], obj["event"], obj["prev"],
            obj.get("jid", ""),
        ).decode()  # fmt: skip
    except (ValueError, TypeError):
        loose = {k: obj[k] for k in ("v", "type", "dev", "seq", "game", "ms", "prev", "crc")}
        loose["event"] = [obj["event"][0], list(obj["event"][1])]
        if obj.get("jid"):
            loose["jid"] = obj["jid"]
        return json.dumps(loose, default=str) + "\n"
    cut = line.rfind(',"crc":"')
    return line[:cut] + ',"crc":"{}"}}\n'.format(obj["crc"])


def write_events(store: Store, out: IO[str], fmt: str, device: str | None = None) -> int:
    """Write the events of store to the text stream out; return how many."""
    n = 0
    if fmt == "jsonl":
        for obj in store.events(device):
            out.write(_event_line(obj))
            n += 1
        out.writelines(trust.export_lines(store, device))  # what verify needs beside them
        return n
    modes = {(g[0], g[1]): g[2] for g in store.games(device)}
    width = 0
    for obj in store.events(device):
        width = max(width, len(obj["event"][1]))
    writer = _SafeWriter(out)
    values = tuple(f"value_{i + 1}" for i in range(width))
    writer.writerow(EVENT_HEAD + values + EVENT_TAIL)
    for obj in store.events(device, received=True):
        kind, data = obj["event"]
        writer.writerow(
            (obj["dev"], obj["seq"], obj["game"], modes.get((obj["dev"], obj["game"]), ""),
             obj["ms"], iso(obj.get("received")), kind)
            + tuple(data) + ("",) * (width - len(data))
            + (json.dumps(list(data), separators=(",", ":"), default=str), obj["prev"],
               obj["crc"], obj["v"], obj.get("jid", ""))
        )  # fmt: skip
        n += 1
    for dev, seq, kind, data, prev, jid in trust.export_rows(store, device):
        writer.writerow((dev, seq, "", "", "", "", kind) + ("",) * width + (data, prev, "", 2, jid))
    return n


def write_games(store: Store, out: IO[str], fmt: str, device: str | None = None) -> int:
    """Write one row (or JSON line) per game; return how many."""
    rows = [r for r in results.results_of(store) if device is None or r.device == device]
    if fmt == "jsonl":
        for r in rows:
            out.write(json.dumps(r.as_dict()) + "\n")
        return len(rows)
    players = max([len(r.players) for r in rows] + [0])
    scores = max([len(r.scores) for r in rows] + [0])
    writer = _SafeWriter(out)
    writer.writerow(
        GAME_HEAD
        + tuple(f"player_{i + 1}" for i in range(players))
        + tuple(f"score_{i + 1}" for i in range(scores))
        + ("problem",)
    )
    for r in rows:
        writer.writerow(
            (r.device, r.game, r.play, r.mode, iso(r.started), iso(r.ended), r.seconds, r.events,
             int(r.finished), r.winner or "", r.result or "", r.outcome)
            + tuple(r.players) + ("",) * (players - len(r.players))
            + tuple(r.scores) + ("",) * (scores - len(r.scores))
            + (r.problem or "",)
        )  # fmt: skip
    return len(rows)


def open_output(path: str) -> IO[str]:
    """Open a file to write text to; UserError for a folder, a FIFO nobody reads, no access."""
    try:
        if os.path.isdir(path):
            raise UserError(f"cannot write {path}: it is a directory")
        if os.path.exists(path) and stat.S_ISFIFO(os.stat(path).st_mode):
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO when nobody reads it
            os.set_blocking(fd, True)
            return open(fd, "w", encoding="utf-8", newline="")
        return open(path, "w", encoding="utf-8", newline="")
    except OSError as err:
        reason = "no program reads that FIFO" if err.errno == errno.ENXIO else err.strerror
        raise UserError(f"cannot write {path}: {reason or err}") from err


def run(args: argparse.Namespace) -> int:
    """Export; return 0."""
    write = write_games if args.table == "games" else write_events
    with Store(args.db, create=False) as store:
        if args.device and args.device not in store.devices():
            raise UserError(f"no device {args.device[:40]} in {args.db}")
        if not args.output:
            write(store, sys.stdout, args.format, args.device)
            return 0
        out = open_output(args.output)
        try:
            with out:
                n = write(store, out, args.format, args.device)
        except OSError as err:
            raise UserError(f"cannot write {args.output}: {err.strerror or err}") from err
    what = "game(s)" if args.table == "games" else "event(s)"
    print(f"exported {n} {what} to {args.output}", file=sys.stderr)
    return 0
