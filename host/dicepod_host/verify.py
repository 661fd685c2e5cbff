"""`dicepod verify`'s engine: check a log's checksums and hash chain, then fold every game
through the same rules modules as the device, and name the first bad event.

Shell (reads files and databases). A log is a dicepod SQLite database, an exported JSON Lines
file (the USB protocol's event lines) or an exported CSV file. Per device, in sequence order:

1. each line: the protocol parser's checks (version, fields, checksum over every field);
2. the chain: seqs 1, 2, 3, ... without gap or duplicate; the first prev is the journal's
   GENESIS and each next prev is the chain hash of the event before (dicepod.journal);
3. game ids: +1 at each new_game, unchanged otherwise;
4. dice: values 1..6 wherever an event kind carries dice (fresh_faces / dice_values);
5. rules: each game's effective events (the undo rule and the fold step of dicepod.replay, the
   device's own) folded through dicepod.rules.modes.module(mode).Game, whose apply() raises
   ValueError for an illegal event.
   A mode whose rules module is missing is reported as a note: steps 1-4 still run.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from dicepod import journal, protocol_pc, replay
from dicepod.rules import modes
from dicepod.settings import MissingValue, Settings
from dicepod_host import records, trust
from dicepod_host.errors import UserError
from dicepod_host.records import Event, Pair

CSV_FIELDS = ("v", "dev", "seq", "game", "ms", "kind", "data", "prev", "crc")
SQLITE_MAGIC = b"SQLite format 3\x00"
# The largest JSON Lines or CSV log read (a dicepod event line is ~100 bytes: 5 million events).
MAX_LOG_BYTES = 512 << 20


def _all(data):
    return data


def _second(data):
    return data[1:2]


def _battle_reroll_fresh(data):
    # ("reroll", (k, kept1..keptk, new...)): the new dice follow the k kept ones
    return data[1 + data[0] :] if data and isinstance(data[0], int) else ()


def _battle_reroll_all(data):
    return data[1:]


# (mode, kind) -> the dice faces freshly rolled in an event's data (for statistics).
_FRESH = {
    ("battle", "reroll"): _battle_reroll_fresh,
    ("tests", "reroll"): _second,
    ("tests", "rolloff"): _all,
    ("tests", "d3"): _all,
    ("tests", "d3p1"): _all,
    ("tyranid", "attack"): _second,
    ("tyranid", "console"): _all,
    ("tyranid", "lictor"): _all,
    ("orks", "attack"): _second,
    ("orks", "add"): _second,
}
# (mode, kind) -> every value of the data that is a die face (for the 1..6 check), where it
# differs from the fresh faces.
_DICE = {("battle", "reroll"): _battle_reroll_all, ("free", "loaded"): lambda data: data[6:]}


def fresh_faces(mode: str | None, event: Event) -> tuple[Any, ...]:
    """Return the dice faces an event rolled (() when it rolled none)."""
    kind, data = event
    if kind == "roll":
        return data
    pick = _FRESH.get((mode or "", kind))
    return pick(data) if pick else ()


def dice_values(mode: str | None, event: Event) -> tuple[Any, ...]:
    """Return every value of an event that must be a die face (1..6)."""
    pick = _DICE.get((mode or "", event[0]))
    return pick(event[1]) if pick else fresh_faces(mode, event)


def effective_pairs(
    pairs: list[Pair],
) -> list[Pair]:
    """Undo applied to a game's [(seq, event)] (the device's rule: dicepod.replay.keep)."""
    marks = replay.keep(pair[1][0] for pair in pairs)
    return [pair for pair, mark in zip(pairs, marks) if mark]


class Problem:
    """One bad event: where it is and what is wrong."""

    def __init__(
        self,
        message: str,
        device: int | str | None = None,
        game: int | str | None = None,
        seq: int | str | None = None,
        line: int | None = None,
    ) -> None:
        self.message = message
        self.device = device
        self.game = game
        self.seq = seq
        self.line = line

    def where(self) -> str:
        """Return 'device D game G seq S (line L)' with the parts that are known."""
        parts = []
        if self.device is not None:
            parts.append("device %s" % self.device)
        if self.game is not None:
            parts.append("game %s" % self.game)
        if self.seq is not None:
            parts.append("seq %s" % self.seq)
        text = " ".join(parts)
        if self.line is not None:
            text = (text + " (line %d)" % self.line) if text else "line %d" % self.line
        return text

    def as_dict(self) -> dict[str, Any]:
        """Return the problem as a JSON-able dict."""
        return {
            "device": self.device,
            "game": self.game,
            "seq": self.seq,
            "line": self.line,
            "error": self.message,
        }

    def __str__(self) -> str:
        return "%s: %s" % (self.where(), self.message)


class Report:
    """What verify found."""

    def __init__(self) -> None:
        self.devices = 0
        self.games = 0
        self.events = 0
        self.problems = []
        self.notes = []
        self.rules_checked = 0  # games folded through their rules module
        self.journals = []  # (device, journal id, events, first seq, last seq) per journal
        self.damaged = set()  # (device label, game) with events lost to flash damage

    @property
    def ok(self) -> bool:
        """True when every game is intact and legal."""
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        """Return the report as a JSON-able dict."""
        return {
            "ok": self.ok,
            "devices": self.devices,
            "games": self.games,
            "events": self.events,
            "rules_checked": self.rules_checked,
            "journals": [
                {"device": d, "journal": j, "events": n, "first": a, "last": b}
                for d, j, n, a, b in self.journals
            ],
            "problems": [p.as_dict() for p in self.problems],
            "notes": self.notes,
        }


# --- reading logs ----------------------------------------------------------------------------


def load(path: str | Path) -> list[tuple[int | None, Any]]:
    """Return a list of (line number or None, event dict or Problem) from a log file or DB."""
    if isinstance(path, str) and path.startswith(("postgresql://", "postgres://")):
        return _load_db(path)  # a league's server
    p = Path(path)
    if not p.exists():
        raise UserError("no such file: %s" % path)
    if p.is_dir():
        raise UserError("%s is a directory, not a log" % path)
    if not p.is_file():
        raise UserError("%s is not a regular file (a device or a pipe), not a log" % path)
    try:
        with open(p, "rb") as f:
            head = f.read(16)
            if head == SQLITE_MAGIC:
                raw = b""
            else:
                raw = head + f.read(MAX_LOG_BYTES + 1 - len(head))
    except OSError as err:
        raise UserError("cannot read %s: %s" % (path, err.strerror or err)) from err
    if head == SQLITE_MAGIC:
        return _load_db(path)
    if len(raw) > MAX_LOG_BYTES:
        raise UserError("%s is larger than %d MB: not a dicepod log" % (path, MAX_LOG_BYTES >> 20))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError("%s is not a dicepod log (not text, not a database)" % path) from None
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    if first.startswith("{"):
        records = _load_jsonl(text)
    elif _csv_header(first):
        records = _load_csv(text)
    else:
        raise UserError("%s is not a dicepod log (JSON Lines, CSV export or database)" % path)
    if not any(isinstance(r[1], dict) for r in records):
        raise UserError("%s is not a dicepod log (no event in it)" % path)
    return records


def _load_db(path):
    from dicepod_host.store import Store

    store = Store(path, create=False)
    try:
        out = []
        for obj in store.events():
            raw = dict(obj)
            raw["event"] = [obj["event"][0], list(obj["event"][1])]
            out.append((None, _check(raw, None)))
        for dev, jid, first, last, prev in store.breaks():
            out.append(
                (None, {"type": "break", "dev": dev, "jid": jid, "from": first, "to": last,
                        "prev": prev})
            )  # fmt: skip
        out.extend((None, record) for record in trust.head_records(store))
        return out
    finally:
        store.close()


def _check(raw, line_no):
    try:
        obj = protocol_pc.check_event_dict(raw)
        records.check_bounds(obj)
        return obj
    except (ValueError, TypeError, KeyError) as err:
        return Problem(
            _reason(err), _named(raw.get("dev")), _named(raw.get("game")), _named(raw.get("seq")),
            line_no,
        )  # fmt: skip


def _named(value):
    """A field of a bad line as it may be shown (a number or a short string, else None)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    if isinstance(value, int):
        return value if abs(value) < 1 << 64 else None
    return value[:40]


def _reason(err):
    return str(err.args[0]) if err.args else type(err).__name__


def _load_jsonl(text):
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = records.parse_line(line)
        except ValueError as err:
            raw = _loose(line)
            out.append(
                (
                    n,
                    Problem(_reason(err), raw.get("dev"), raw.get("game"), raw.get("seq"), n),
                )
            )
            continue
        if obj.get("type") == "break":  # events the device lost to flash damage
            out.append((n, obj))
            continue
        if obj.get("type") in ("hello", "pong") and "event" not in obj:  # the device's last seq
            out.append((n, {"type": "head", "dev": obj["dev"], "jid": obj["jid"],
                            "seq": obj["seq"], "head": obj.get("head", "")}))  # fmt: skip
            continue
        if obj.get("type") != "event":
            out.append((n, Problem("not an event line", obj.get("dev"), None, obj.get("seq"), n)))
            continue
        out.append((n, obj))
    return out


def _loose(line):
    """Best-effort fields of a line that failed the checks (to name it)."""
    if len(line) > protocol_pc.MAX_LINE:
        return {}
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return {}
    if not isinstance(obj, dict):
        return {}
    return {k: _named(obj.get(k)) for k in ("dev", "game", "seq")}


def _csv_header(line):
    """True for the header of a CSV export (this one's, or the older v,dev,seq,... one)."""
    names = set(line.replace(" ", "").split(","))
    return {"seq", "game", "ms", "kind", "data", "prev", "crc", "v"} <= names and bool(
        names & {"dev", "device"}
    )


def _load_csv(text):
    out = []
    reader = csv.DictReader(io.StringIO(text))
    rows = iter(reader)
    while True:
        try:
            row = next(rows)
        except StopIteration:
            break
        except csv.Error as err:  # a field longer than csv's limit, a NUL byte, ...
            n = reader.line_num
            out.append((n, Problem("malformed CSV (%s)" % _reason(err), line=n)))
            break
        n = reader.line_num
        if row.get("kind") in ("#break", "#head"):  # an export's break and head rows
            out.append((n, _csv_mark(row, n)))
            continue
        try:
            raw = {
                "v": int(row["v"]),
                "type": "event",
                "dev": row["dev"] if "dev" in row else row["device"],
                "seq": int(row["seq"]),
                "game": int(row["game"]),
                "ms": int(row["ms"]),
                "event": [row["kind"], _json_field(row["data"])],
                "prev": row["prev"],
                "crc": row["crc"],
            }
            if row.get("journal"):  # the journal id (protocol 2)
                raw["jid"] = row["journal"]
        except (KeyError, ValueError, TypeError, RecursionError, OverflowError) as err:
            out.append((n, Problem("malformed CSV row (%s)" % _reason(err), line=n)))
            continue
        out.append((n, _check(raw, n)))
    return out


def _csv_mark(row, n):
    """A break or head record from an export's CSV row (a Problem when malformed)."""
    try:
        dev, jid, seq = row["device"], row.get("journal") or "", int(row["seq"])
        if row["kind"] == "#head":
            return {"type": "head", "dev": dev, "jid": jid, "seq": seq, "head": row["prev"]}
        last = _json_field(row["data"])[0]
        if not isinstance(last, int) or isinstance(last, bool):
            raise ValueError("bad break")
        return {"type": "break", "dev": dev, "jid": jid, "from": seq, "to": last,
                "prev": row["prev"]}  # fmt: skip
    except (KeyError, ValueError, TypeError, IndexError, RecursionError) as err:
        return Problem("malformed CSV row (%s)" % _reason(err), line=n)


def _json_field(text):
    if text is None or len(text) > protocol_pc.MAX_LINE:
        raise ValueError("data field too long")
    return json.loads(text)


# --- checking ----------------------------------------------------------------------------------


def verify_records(records: Iterable[tuple[int | None, Any]]) -> Report:
    """Check (line, event dict or Problem) records; return a Report."""
    report = Report()
    by_journal = {}
    breaks = {}
    heads = {}
    hashes = {}  # the chain hash the device reported with its head (hello), per journal
    logged = set()  # devices the logger heard say hello: each journal of theirs has a head
    for line_no, item in records:
        if isinstance(item, Problem):
            report.problems.append(item)
            continue
        key = (item["dev"], item.get("jid", ""))
        if item.get("type") == "break":
            breaks.setdefault(key, {})[item["from"]] = (item["to"], item["prev"])
        elif item.get("type") == "head":
            if item["seq"] >= heads.get(key, 0):
                hashes[key] = (item["seq"], item.get("head", ""))
            heads[key] = max(heads.get(key, 0), item["seq"])
        elif item.get("type") == "logged":
            logged.add(item["dev"])
        else:
            by_journal.setdefault(key, []).append((item["seq"], line_no, item))
    report.devices = len({dev for dev, _jid in by_journal})
    for key in sorted(by_journal):
        items = by_journal[key]
        items.sort(key=lambda t: (t[0], t[1] or 0))
        label = key[0] if not key[1] else "%s journal %s" % key
        report.journals.append((key[0], key[1], len(items), items[0][0], items[-1][0]))
        trusted, forged = trust.vouched(items, breaks.get(key, {}))
        for first, last in forged:
            report.problems.append(Problem(
                "a break of seq %d..%d that no event of the device's chain names (a %s event)"
                % (first, last, trust.LOST), label, None, first))  # fmt: skip
        _verify_device(label, items, report, trusted)
        if key not in heads and key[0] in logged:
            report.problems.append(Problem(
                "no head recorded for this journal: the device's last seq is unknown",
                label))  # fmt: skip
        head_seq, head = hashes.get(key, (0, ""))
        mine = trust.head_mismatch(items, head_seq, head)
        if mine is not None:
            report.problems.append(Problem(
                "the device reported chain head %s at this seq; the log's event hashes to %s"
                % (head, mine), label, None, head_seq))  # fmt: skip
        top = heads.get(key, 0)
        if top > items[-1][0]:
            report.problems.append(
                Problem(
                    "the log ends at seq %d but the device reported seq %d: %d event(s) "
                    "missing at the end" % (items[-1][0], top, top - items[-1][0]),
                    label,
                    None,
                    items[-1][0] + 1,
                )
            )
    for key in sorted(set(heads) - set(by_journal)):
        if heads[key]:
            label = key[0] if not key[1] else "%s journal %s" % key
            report.problems.append(Problem(
                "the device reported seq %d but none of this journal's events are in the log"
                % heads[key], label))  # fmt: skip
    return report


def verify_path(path: str | Path) -> Report:
    """Verify a log file or database; return a Report."""
    return verify_records(load(path))


def _verify_device(device, items, report, breaks=None):
    """Check one journal's events (device: its label); breaks: {first: (last, prev)} of the
    events the device lost to flash damage (its chain resumes after them)."""
    resume = {last + 1: (first, prev) for first, (last, prev) in (breaks or {}).items()}
    expected_seq = 1
    prev_hash = journal.GENESIS
    game_id = 0
    game = None  # the game being collected: [game id, mode, [(seq, event, line)], first line]
    last_seq = None
    problems = report.problems
    for seq, line_no, obj in items:
        report.events += 1
        event = obj["event"]
        kind = event[0]
        if seq == last_seq:
            problems.append(Problem("duplicate seq %d" % seq, device, obj["game"], seq, line_no))
            continue
        last_seq = seq
        message = None
        # a break the device marked: the chain resumes at last + 1 with the break's prev (the
        # log may hold some of the lost events, logged before the damage)
        lost = resume.get(seq)
        if lost is not None and lost[0] <= expected_seq <= seq and obj["prev"] == lost[1]:
            report.notes.append(
                "device %s: seq %d..%d lost to flash damage on the device (its journal marks "
                "the break)" % (device, lost[0], seq - 1)
            )
            expected_seq = seq
            prev_hash = obj["prev"]
            report.damaged.add((device, obj["game"]))
            if obj["game"] != game_id and kind != "new_game":
                game_id = obj["game"]  # the new_game was lost
                if game is not None:
                    _fold_game(device, game, report)
                game = None
        if seq != expected_seq:
            if seq > expected_seq:
                missing = (
                    "%d" % expected_seq
                    if seq == expected_seq + 1
                    else "%d..%d" % (expected_seq, seq - 1)
                )
                message = "chain broken: seq %s missing before it" % missing
            else:
                message = "seq out of order"
        elif obj["prev"] != prev_hash:
            if seq > 1:
                message = "chain broken: prev hash %s does not match seq %d" % (
                    obj["prev"],
                    seq - 1,
                )
            else:
                message = "chain broken: the first event's prev is not %s" % journal.GENESIS
        if message:
            problems.append(Problem(message, device, obj["game"], seq, line_no))
        prev_hash = protocol_pc.chain_hash(obj)
        expected_seq = seq + 1
        if kind == "new_game":
            if game is not None:
                _fold_game(device, game, report)
            if obj["game"] != game_id + 1:
                message = "game id %d after game %d (new_game must add 1)" % (obj["game"], game_id)
                problems.append(Problem(message, device, obj["game"], seq, line_no))
            game_id = obj["game"]
            game = [game_id, event[1][0] if event[1] else None, [], line_no]
        elif obj["game"] != game_id:
            message = "game id %d inside game %d" % (obj["game"], game_id)
            problems.append(Problem(message, device, obj["game"], seq, line_no))
        mode = game[1] if game is not None else None
        for value in dice_values(mode, event):
            if not isinstance(value, int) or not 1 <= value <= 6:
                message = "dice value %r outside 1-6 in %s" % (value, kind)
                problems.append(Problem(message, device, obj["game"], seq, line_no))
                break
        if game is not None:
            game[2].append((seq, event, line_no))
    if game is not None:
        _fold_game(device, game, report)


def _fold_game(device, game, report):
    game_id, mode, raw, _line = game
    report.games += 1
    if (device, game_id) in report.damaged:
        report.notes.append(
            "device %s game %d: events lost to flash damage; checked the chain and dice "
            "values only" % (device, game_id)
        )
        return
    try:
        module = modes.module(str(mode))
    except ValueError:
        report.problems.append(
            Problem("unknown mode %r" % (mode,), device, game_id, raw[0][0], raw[0][2])
        )
        return
    except ImportError:
        report.notes.append(
            "device %s game %d: rules for mode %s are not available; "
            "checked the chain and dice values only" % (device, game_id, mode)
        )
        return
    lines = {seq: line_no for seq, _e, line_no in raw}
    pairs = effective_pairs([(seq, event) for seq, event, _l in raw])
    try:
        state = module.Game(Settings(module.SETTINGS))
    except Exception as err:  # a rules module that cannot start is a finding, not a crash
        report.notes.append("mode %s: Game() failed (%s)" % (mode, _reason(err)))
        return
    report.rules_checked += 1
    for seq, event in pairs:
        try:
            replay.step(state, event)  # the app's own events stepped over
        except ValueError as err:
            message = "illegal %s: %s" % (event[0], _reason(err))
        except MissingValue as err:
            message = "%s needs the setting %s" % (event[0], err.args[0] if err.args else "?")
        except Exception as err:  # tampered data can trip a rules module in any way
            message = "illegal %s: rules raised %s" % (event[0], type(err).__name__)
        else:
            continue
        report.problems.append(Problem(message, device, game_id, seq, lines.get(seq)))
        return
    # Free roll's loaded die (a class's demonstration): named, never taken for fair dice.
    loaded = [event[1] for _seq, event in pairs if event[0] == "loaded"]
    if loaded:
        report.notes.append(
            "device %s game %d: %d roll(s) of a LOADED die, weights %s (Free roll's "
            "demonstration)" % (device, game_id, len(loaded), " ".join(map(str, loaded[-1][:6])))
        )
