"""The records the PC side passes around, and the bounds every line from a device is held to.

Shell-side types (CPython only; the device's dicepod.protocol builds and parses the same lines
without them). A protocol line parses (dicepod.protocol_pc.parse) into a dict; these TypedDicts
name its keys for the type gate, at no cost at run time:

    EventLine    {"v", "type": "event", "dev", "seq", "game", "ms", "event": (kind, data),
                  "prev", "crc"} (+ "canon", the event's canonical bytes, right after parsing)
    StoredEvent  an EventLine read back from the store (+ "received" when asked for)
    HelloLine, PongLine, EndLine   the device's answers (dev + seq, hello also fw and head)

parse_line() is protocol_pc.parse plus check_bounds(): what the PC stores is what a device can
produce. Integers are bounded where they are parsed (seq, game, ms, every int in an event's
data; SQLite's 64-bit integers never overflow), and an event's kind must be one some mode's
rules (or the app) know: KINDS, read from the rules modules' own source, so a new event kind
needs no list kept by hand.
"""

from __future__ import annotations

import ast
import inspect
from typing import Any, TypedDict

from dicepod import protocol_pc
from dicepod.rules import modes

# The wire's own bounds (game ids count new_game events, so stay under MAX_SEQ); event data are
# dice, settings, indices and counts, far inside a signed 32-bit int.
MAX_SEQ = protocol_pc.MAX_SEQ
MAX_MS = protocol_pc.MAX_MS
MAX_VALUE = 2**31 - 1
# An event (kind, data) and a (seq, event) pair, as the folds take them.
Event = tuple[str, tuple[Any, ...]]
Pair = tuple[int, Event]
# Events the app writes beside the game's own (journal and crash handler).
APP_KINDS = ("new_game", "set", "undo", "crash", "lost", "quick")


class _InJournal(TypedDict, total=False):
    jid: str  # the journal's identity (protocol 2; absent or "": protocol 1)


class EventLine(_InJournal):
    """A parsed event line (see the module docstring)."""

    v: int
    type: str
    dev: str
    seq: int
    game: int
    ms: int
    event: tuple[str, tuple[Any, ...]]
    prev: str
    crc: str


class StoredEvent(EventLine, total=False):
    """An event read back from the store (or just parsed: with its canonical bytes)."""

    received: float
    canon: bytes


class HelloLine(TypedDict):
    """The answer to hello."""

    v: int
    type: str
    dev: str
    fw: str
    seq: int
    head: str
    ms: int


class PongLine(TypedDict):
    """The answer to ping."""

    v: int
    type: str
    dev: str
    seq: int
    ms: int
    token: int


class EndLine(TypedDict):
    """The end of a back-fill."""

    v: int
    type: str
    dev: str
    seq: int


def _kinds_in(source: str) -> set[str]:
    """Event kinds a rules module dispatches on: `kind == "x"` tests and _HANDLERS keys."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name):
            if node.left.id.startswith("kind"):
                for right in node.comparators:
                    if isinstance(right, ast.Constant) and isinstance(right.value, str):
                        found.add(right.value)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if any("HANDLERS" in n for n in names):
                for key in node.value.keys:
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        found.add(key.value)
    return found


def _known_kinds() -> frozenset[str]:
    kinds = set(APP_KINDS)
    for mode, _title in modes.MODES:
        try:
            module = modes.module(mode)
            kinds |= _kinds_in(inspect.getsource(module))
        except (ImportError, OSError, TypeError, SyntaxError):
            continue  # a mode whose rules are missing: its kinds are not checked here
    return frozenset(kinds)


KINDS = _known_kinds()


def check_bounds(obj: dict[str, Any]) -> None:
    """Raise ValueError("short reason") for a parsed line no device produces (see above)."""
    for key in ("seq", "game"):
        value = obj.get(key)
        if isinstance(value, int) and value > MAX_SEQ:
            raise ValueError(f"{key} out of range")
    ms = obj.get("ms")
    if isinstance(ms, int) and ms > MAX_MS:
        raise ValueError("ms out of range")
    if obj.get("type") != "event":
        return
    if obj["game"] > obj["seq"]:
        raise ValueError("game id above seq")
    kind, data = obj["event"]
    if kind not in KINDS:
        raise ValueError("unknown event kind")
    for value in data:
        if isinstance(value, int) and not -MAX_VALUE <= value <= MAX_VALUE:
            raise ValueError("event value out of range")


def parse_line(line: bytes | str) -> dict[str, Any]:
    """Parse and check one device line; raise ValueError for anything a device does not send."""
    obj = protocol_pc.parse(line)
    check_bounds(obj)
    return obj
