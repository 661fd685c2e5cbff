"""`dicepod log [--port auto|PATH|URL] [--db FILE]`: log a dicepod's events into SQLite.

Finds the Pico by its USB vendor id with `auto`, opens any pyserial URL, shows the game live,
stores every event once (unique on device and sequence number), reopens the port after an
unplug and back-fills what it missed, skips and counts malformed lines, and on Ctrl-C exits with
everything received committed. `kill -USR1 PID` simulates an unplug (close, reopen, back-fill).
"""

import sys
import time
from collections import deque

from dicepod_host import logger
from dicepod_host.store import Store

HELP = "log a dicepod's events from USB into SQLite, showing the game live"


def add_arguments(parser):
    """Arguments of `dicepod log`."""
    parser.add_argument(
        "--port", default="auto", help="auto (find the Pico by USB id), a device path or a URL"
    )
    parser.add_argument("--db", default="dicepod.db", help="SQLite file (default dicepod.db)")
    view = parser.add_mutually_exclusive_group()
    view.add_argument("--quiet", action="store_true", help="no live view, only the summary")
    view.add_argument(
        "--plain", action="store_true", help="one line per event (default when not a terminal)"
    )
    parser.add_argument(
        "--idle-exit",
        type=float,
        metavar="SECONDS",
        help="stop after this many seconds without an event (for scripts)",
    )


class PlainView:
    """One printed line per new event."""

    def event(self, obj):
        """Print a stored event."""
        kind, data = obj["event"]
        print(
            "%s seq %d game %d %s %s"
            % (obj["dev"], obj["seq"], obj["game"], kind, " ".join(str(v) for v in data)),
            flush=True,
        )

    def update(self, ingest):
        """Nothing to redraw."""

    def close(self):
        """Nothing to close."""


class LiveView:
    """A rich live table: the device, its game, the last events and the counters."""

    def __init__(self, port, db, console=None):
        from rich.live import Live

        self.port = port
        self.db = db
        self.recent = deque(maxlen=12)
        self.mode = {}
        self.last_draw = 0.0
        self.ingest = None
        self.live = Live(self._render(), refresh_per_second=4, transient=False, console=console)
        self.live.start()

    def event(self, obj):
        """Remember a stored event for the table."""
        if obj["event"][0] == "new_game" and obj["event"][1]:
            self.mode[(obj["dev"], obj["game"])] = obj["event"][1][0]
        self.recent.append(obj)

    def update(self, ingest):
        """Redraw at most a few times a second."""
        self.ingest = ingest
        now = time.monotonic()
        if now - self.last_draw >= 0.25:
            self.last_draw = now
            self.live.update(self._render())

    def _render(self):
        from rich.table import Table

        ingest = self.ingest
        title = "dicepod log  %s -> %s" % (self.port, self.db)
        if ingest is not None and ingest.device:
            title += "  device %s" % ingest.device
        table = Table(title=title, expand=False)
        for name in ("seq", "game", "mode", "event", "values"):
            table.add_column(name)
        for obj in self.recent:
            kind, data = obj["event"]
            table.add_row(
                str(obj["seq"]),
                str(obj["game"]),
                self.mode.get((obj["dev"], obj["game"]), ""),
                kind,
                " ".join(str(v) for v in data),
            )
        if ingest is not None:
            c = ingest.counts
            table.caption = "new %d  duplicate %d  rejected %d  conflict %d  reconnects %d" % (
                c["new"],
                c["duplicate"],
                ingest.rejects(),
                c["conflict"],
                c["reconnects"],
            )
        return table

    def close(self):
        """Stop the live display."""
        self.live.update(self._render())
        self.live.stop()


def run(args):
    """Log until Ctrl-C (or --idle-exit); return 0."""
    store = Store(args.db)
    view = None
    try:
        if not args.quiet:
            if args.plain or not sys.stdout.isatty():
                view = PlainView()
            else:
                view = LiveView(args.port, args.db)
        try:
            ingest = logger.run(args.port, store, view=view, idle_exit=args.idle_exit)
        finally:
            if view is not None:
                view.close()
    finally:
        store.close()
    c = ingest.counts
    print(
        "dicepod log: %d new event(s), %d duplicate(s), %d rejected line(s) "
        "(%d malformed, %d oversize), %d conflict(s), %d reconnect(s) -> %s"
        % (
            c["new"],
            c["duplicate"],
            ingest.rejects(),
            c["malformed"],
            c["oversize"],
            c["conflict"],
            c["reconnects"],
            args.db,
        ),
        file=sys.stderr,
        flush=True,
    )
    return 0
