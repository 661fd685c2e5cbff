"""`dicepod log [--port auto|PATH|URL|GLOB ...] [--db FILE]`: log dicepods into SQLite.

`auto` logs every dicepod connected (USB serial ports with the Pico's vendor id) at once and
picks up one plugged in later; `--port` may be given again and again (paths, pyserial URLs, glob
patterns such as '/tmp/pods/*', which are scanned again like auto). Shows the games live, stores
every event once (unique on device and sequence number), reopens a port after an unplug and
back-fills what it missed, skips and counts malformed lines, and on Ctrl-C exits with everything
received written. On a terminal the live view shows each device: its mode, players, score or
state, last roll, events stored and problems (gaps, conflicts, lost events, bad lines);
`--raw` shows the raw event lines instead. Several loggers may share one database: a locked
database is waited for, never a reason to exit. `kill -USR1 PID` simulates an unplug (close,
reopen, back-fill).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import deque
from typing import Any

from dicepod_host import bounds, logger
from dicepod_host.errors import LockedError, UserError
from dicepod_host.store import Store

HELP = "log dicepods' events from USB into SQLite (every device at once), showing them live"
# How long `dicepod log` waits for a database another program holds locked while creating it.
OPEN_WAIT = 60.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `dicepod log`."""
    parser.add_argument(
        "--port",
        action="append",
        help="auto (every Pico by USB id; the default), a device path, a URL or a glob pattern;"
        " repeat for several",
    )
    parser.add_argument(
        "--db", default="dicepod.db", help="SQLite file or postgresql:// URL (default dicepod.db)"
    )
    view = parser.add_mutually_exclusive_group()
    view.add_argument("--quiet", action="store_true", help="no live view, only the summary")
    view.add_argument(
        "--plain", action="store_true", help="one line per event (default when not a terminal)"
    )
    view.add_argument("--raw", action="store_true", help="live: the raw event lines")
    parser.add_argument(
        "--idle-exit",
        type=bounds.seconds("--idle-exit"),
        metavar="SECONDS",
        help="stop after this many seconds without an event (for scripts)",
    )


class PlainView:
    """One printed line per new event."""

    def event(self, obj: dict[str, Any]) -> None:
        """Print a stored event."""
        kind, data = obj["event"]
        print(
            "{} seq {} game {} {} {}".format(
                obj["dev"], obj["seq"], obj["game"], kind, " ".join(str(v) for v in data)
            ),
            flush=True,
        )

    def update(self, ingest: Any) -> None:
        """Nothing to redraw."""

    def close(self) -> None:
        """Nothing to close."""


class _Journal:
    """What the live view knows of one device's journal: its current game's events."""

    def __init__(self) -> None:
        self.game: list[Any] = []  # the current game's event dicts, from its new_game
        self.last_roll = ""
        self.result: Any = None  # the current game folded (dicepod_host.results.Result)
        self.dirty = False


class LiveView:
    """A rich live table, one row per device's journal: mode, players, score or state, the last
    roll, events stored and problems, with the logger's counters below; redrawn in place."""

    def __init__(self, port: str, db: str, console: Any = None) -> None:
        from rich.live import Live

        self.port = port
        self.db = db
        self.journals: dict[tuple[str, str], _Journal] = {}
        self.names: dict[tuple[str, str, int], list[str]] = {}
        self.names_at = -1e9
        self.last_draw = 0.0
        self.closing = False  # the last frame: the ports are closed, not unplugged
        self.logger: Any = None
        self.live = Live(self._render(), refresh_per_second=4, transient=False, console=console)
        self.live.start()

    def event(self, obj: dict[str, Any]) -> None:
        """Follow a stored event into its journal's current game."""
        from dicepod_host.verify import fresh_faces

        key = (obj["dev"], obj.get("jid", ""))
        state = self.journals.get(key)
        if state is None:
            state = self.journals[key] = _Journal()
            if obj["event"][0] != "new_game":
                state.game = self._earlier(key, obj["game"])  # a game begun before this run
        if obj["event"][0] == "new_game":
            state.game = []
        if state.game and state.game[-1]["game"] != obj["game"]:
            state.game = []
        if not state.game and obj["event"][0] != "new_game":
            return
        state.game.append(obj)
        mode = state.game[0]["event"][1][0] if state.game[0]["event"][1] else None
        faces = fresh_faces(str(mode), obj["event"])
        if faces:
            state.last_roll = " ".join(str(f) for f in faces)
        state.dirty = True

    def _earlier(self, key: tuple[str, str], game: int) -> list[Any]:
        """The stored events of a game that began before this run (read on the side)."""
        try:
            with Store(self.db, create=False) as reader:
                return [
                    o for o in reader.events(key[0])
                    if o.get("jid", "") == key[1] and o["game"] == game
                ]  # fmt: skip
        except UserError:
            return []

    def _fold(self, state: _Journal) -> None:
        from dicepod_host import results

        state.dirty = False
        try:
            state.result = results.fold_game(state.game, False, self.names)[-1]
        except Exception:  # a game the rules refuse is verify's to name: the row shows no score
            state.result = None

    def update(self, ingest: Any) -> None:
        """Redraw at most a few times a second (ingest: the Logger)."""
        self.logger = ingest
        now = time.monotonic()
        if now - self.last_draw >= 0.25:
            self.last_draw = now
            self.live.update(self._render())

    def _names(self) -> None:
        """Re-read the names kept on the PC every few seconds (`dicepod players` may set them)."""
        now = time.monotonic()
        if now - self.names_at < 5.0:
            return
        self.names_at = now
        try:
            with Store(self.db, create=False) as reader:
                names = reader.players()
        except UserError:
            return
        if names != self.names:
            self.names = names
            for state in self.journals.values():
                state.dirty = True

    def _render(self):
        from rich.table import Table

        self._names()
        logger = self.logger
        title = f"dicepod log  {self.port} -> {self.db}"
        table = Table(title=title, expand=False)
        for name in ("device", "mode", "players", "score / state", "last roll", "events",
                     "problems"):  # fmt: skip
            table.add_column(name)
        ports = list(getattr(logger, "ports", {}).values())
        known = {}
        for port in ports:
            for key, dev in port.ingest.devices.items():
                known[key] = (port, dev)
        for key in sorted(set(known) | set(self.journals)):
            state = self.journals.get(key) or _Journal()
            if state.dirty and state.game:
                self._fold(state)
            r = state.result
            port, dev = known.get(key, (None, None))
            label = key[0] + (f" ({key[1][:8]})" if key[1] else "")
            table.add_row(
                label,
                r.mode if r is not None else "",
                " v ".join(r.players) if r is not None else "",
                _state_of(r),
                state.last_roll,
                str(dev.have + len(dev.above) - dev.held) if dev is not None else "",
                ", ".join(_problems(port, key, dev, self.closing)) or "-",
            )
        if logger is not None:
            c = logger.counts
            table.caption = "new {}  duplicate {}  rejected {}  conflict {}  reconnects {}".format(
                c["new"], c["duplicate"], logger.rejects(), c["conflict"], c["reconnects"]
            )
        return table

    def close(self) -> None:
        """Stop the live display."""
        self.closing = True
        self.live.update(self._render())
        self.live.stop()


def _state_of(result: Any) -> str:
    """A result's score or state in a few words."""
    if result is None:
        return ""
    if result.problem:
        return f"BAD {result.problem}"
    scores = "-".join(str(s) for s in result.scores)
    if result.mode in ("battle", "tests") and scores:
        return f"{scores}  {result.outcome}"
    return result.outcome


def _lost(port: Any, key: tuple[str, str]) -> int:
    """Events of a journal lost to flash damage (the logger counts them as had)."""
    return sum(port.ingest.lost.get(key, {}).values()) if port is not None else 0


def _problems(port: Any, key: tuple[str, str], dev: Any, closing: bool = False) -> list[str]:
    """What is wrong with a journal on its port: gaps, conflicts, lost events, bad lines."""
    out = []
    if port is not None and port.handle is None and not closing:
        out.append("unplugged")
    if dev is not None:
        gap = dev.top - dev.have - len(dev.above)
        if dev.missing:
            out.append(f"{dev.missing} missing (not on the device)")
        elif gap > 0:
            out.append(f"{gap} missing (asking the device)")
    if port is not None:
        lost = _lost(port, key)
        if lost:
            out.append(f"{lost} lost to flash damage")
        if port.ingest.key == key or port.ingest.key is None:
            if port.ingest.counts["conflict"]:
                out.append("{} conflict(s)".format(port.ingest.counts["conflict"]))
            if port.ingest.rejects():
                out.append(f"{port.ingest.rejects()} bad line(s)")
    return out


class RawView:
    """A rich live table: the device, its game, the last events and the counters."""

    def __init__(self, port: str, db: str, console: Any = None) -> None:
        from rich.live import Live

        self.port = port
        self.db = db
        self.recent = deque(maxlen=12)
        self.mode = {}
        self.last_draw = 0.0
        self.ingest = None
        self.live = Live(self._render(), refresh_per_second=4, transient=False, console=console)
        self.live.start()

    def event(self, obj: dict[str, Any]) -> None:
        """Remember a stored event for the table."""
        if obj["event"][0] == "new_game" and obj["event"][1]:
            self.mode[(obj["dev"], obj["game"])] = obj["event"][1][0]
        self.recent.append(obj)

    def update(self, ingest: Any) -> None:
        """Redraw at most a few times a second."""
        self.ingest = ingest
        now = time.monotonic()
        if now - self.last_draw >= 0.25:
            self.last_draw = now
            self.live.update(self._render())

    def _render(self):
        from rich.table import Table

        ingest = self.ingest
        title = f"dicepod log  {self.port} -> {self.db}"
        if ingest is not None and ingest.device:
            title += f"  device {ingest.device}"
        table = Table(title=title, expand=False)
        for name in ("device", "seq", "game", "mode", "event", "values"):
            table.add_column(name)
        for obj in self.recent:
            kind, data = obj["event"]
            table.add_row(
                obj["dev"],
                str(obj["seq"]),
                str(obj["game"]),
                self.mode.get((obj["dev"], obj["game"]), ""),
                kind,
                " ".join(str(v) for v in data),
            )
        if ingest is not None:
            c = ingest.counts
            table.caption = "new {}  duplicate {}  rejected {}  conflict {}  reconnects {}".format(
                c["new"],
                c["duplicate"],
                ingest.rejects(),
                c["conflict"],
                c["reconnects"],
            )
        return table

    def close(self) -> None:
        """Stop the live display."""
        self.live.update(self._render())
        self.live.stop()


def open_store(path: str, wait: float = OPEN_WAIT) -> Store:
    """Open (or create) the database, waiting while another program holds it locked."""
    deadline = time.monotonic() + wait
    while True:
        try:
            return Store(path, timeout=1.0)
        except LockedError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.2)


def run(args: argparse.Namespace) -> int:
    """Log until Ctrl-C (or --idle-exit); return 0."""
    ports = args.port or ["auto"]
    store = open_store(args.db)
    view = None
    try:
        if not args.quiet:
            if args.plain or not sys.stdout.isatty():
                view = PlainView()
            elif args.raw:
                view = RawView(" ".join(ports), args.db)
            else:
                view = LiveView(" ".join(ports), args.db)
        try:
            ingest = logger.run(ports, store, view=view, idle_exit=args.idle_exit)
        finally:
            if view is not None:
                view.close()
    finally:
        left = store.pending()
        try:
            store.close()
        except LockedError:
            print(
                f"dicepod log: {args.db} stayed locked: {left} event(s) not written (the device"
                " still has them: log again to back-fill)",
                file=sys.stderr,
            )
    c = ingest.counts
    print(
        "dicepod log: {} new event(s), {} duplicate(s), {} rejected line(s) "
        "({} malformed, {} oversize), {} conflict(s), {} reconnect(s), {} device(s) -> {}".format(
            c["new"],
            c["duplicate"],
            ingest.rejects(),
            c["malformed"],
            c["oversize"],
            c["conflict"],
            c["reconnects"],
            len({p.ingest.device for p in ingest.ports.values() if p.ingest.device}),
            args.db,
        ),
        file=sys.stderr,
        flush=True,
    )
    return 0
