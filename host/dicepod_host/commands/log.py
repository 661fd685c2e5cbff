"""`dicepod log [--port auto|PATH|URL|GLOB ...] [--db FILE]`: log dicepods into SQLite.

`auto` logs every dicepod connected (USB serial ports with the Pico's vendor id) at once and
picks up one plugged in later; `--port` may be given again and again (paths, pyserial URLs, glob
patterns such as '/tmp/pods/*', which are scanned again like auto). Shows the games live, stores
every event once (unique on device and sequence number), reopens a port after an unplug and
back-fills what it missed, skips and counts malformed lines, and on Ctrl-C exits with everything
received written. Several loggers may share one database: a locked database is waited for,
never a reason to exit. `kill -USR1 PID` simulates an unplug (close, reopen, back-fill).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import deque
from typing import Any

from dicepod_host import bounds, logger
from dicepod_host.errors import LockedError
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
    parser.add_argument("--db", default="dicepod.db", help="SQLite file (default dicepod.db)")
    view = parser.add_mutually_exclusive_group()
    view.add_argument("--quiet", action="store_true", help="no live view, only the summary")
    view.add_argument(
        "--plain", action="store_true", help="one line per event (default when not a terminal)"
    )
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


class LiveView:
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
