"""`dicepod dash`'s engine: the club's and the class's page, served by the simulator's local
server code (dicepod_host.sim.server: its Handler and SimServer), from a database `dicepod log`
may be writing at the same time. Nothing is fetched from outside: the page, its script and its
data come from here, the charts are SVG drawn by the page's own script.

Routes:
    /            web/index.html
    /dash.js     web/dash.js (and any other file in web/)
    /data.json   everything the page shows (see data()): recomputed only when the database has
                 changed (the number of events or the newest receive time), so many open pages
                 and a page polling every second cost one fold per change
"""

from __future__ import annotations

import json
import threading
from http import HTTPStatus
from pathlib import Path
from typing import Any

from dicepod_host import results, stats
from dicepod_host.errors import UserError
from dicepod_host.sim.server import Handler, SimServer
from dicepod_host.store import Store

WEB = Path(__file__).resolve().parent / "web"
RECENT = 20  # games in the recent list


def data(store: Store) -> dict[str, Any]:
    """Return the page's data: league and head-to-head per mode, recent games, pooled dice (all
    devices) and per device against the exact distribution, sums of N dice, sample sizes."""
    events = [
        o for o in store.events(received=True)
        if isinstance(o["seq"], int) and isinstance(o["game"], int) and isinstance(o["dev"], str)
    ]  # fmt: skip
    games = results.fold_results(events, store.players())
    table = results.league(games)
    recent = sorted(games, key=lambda r: (r.ended or 0, r.device, r.game, r.play), reverse=True)
    dice = stats.collect([(None, o) for o in events]).report()
    count, newest = store.changes()
    return {
        "events": count,
        "newest": newest,
        "devices": store.devices(),
        "games": len(games),
        "finished": sum(1 for r in games if r.finished),
        "league": table["modes"],
        "head_to_head": table["head_to_head"],
        "recent": [r.as_dict() for r in recent[:RECENT]],
        "dice": dice,
    }


class DashHandler(Handler):
    """The simulator's handler with the dashboard's routes."""

    server_version = "dicepod-dash"

    def do_GET(self) -> None:
        """Serve one of the routes in the module docstring."""
        url = self.path.split("#", 1)[0].partition("?")[0]
        try:
            if url in ("/", "/index.html"):
                self._file(WEB, "index.html")
            elif url == "/data.json":
                body = self.server.snapshot()  # type: ignore[attr-defined]
                self._send(body, "application/json")
            elif url.count("/") == 1 and url[1:] and not url[1:].startswith((".", "_")):
                self._file(WEB, url[1:])
            else:
                self.send_error(HTTPStatus.NOT_FOUND)
        except UserError as err:
            body = json.dumps({"error": str(err)}).encode()
            self.send_response(HTTPStatus.SERVICE_UNAVAILABLE)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    do_HEAD = do_GET


class DashServer(SimServer):
    """The dashboard's server: one database, its data cached until the database changes."""

    def __init__(self, address: tuple[str, int], db: str) -> None:
        super().__init__(address, DashHandler)
        self.db = db
        self.lock = threading.Lock()
        self.key: tuple[int, float] | None = None
        self.body = b""

    def snapshot(self) -> bytes:
        """Return data.json's bytes, folding again only when the database changed."""
        with self.lock, Store(self.db, create=False) as store:
            key = store.changes()
            if key != self.key:
                self.body = json.dumps(data(store), default=str).encode()
                self.key = key
            return self.body


def make_server(db: str, host: str = "127.0.0.1", port: int = 0) -> DashServer:
    """Check the database and bind the server (port 0: any free port)."""
    Store(db, create=False).close()
    try:
        return DashServer((host, port), db)
    except OSError as err:
        raise UserError(
            f"cannot serve on {host}:{port} ({err.strerror or err}): try another --port, or"
            " --port 0 for any free one"
        ) from None


def serve_in_thread(db: str, host: str = "127.0.0.1", port: int = 0) -> DashServer:
    """Start a dashboard server in a daemon thread; return it (.shutdown() stops it)."""
    server = make_server(db, host, port)
    threading.Thread(target=server.serve_forever, name="dicepod-dash", daemon=True).start()
    return server
