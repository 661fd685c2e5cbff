"""`dicepod dash DB [--port N] [--host H] [--open]`: the club's and the class's dashboard, a
local page (nothing fetched from outside) with the league table, win rates and head-to-head per
mode, recent games, and the pooled dice of every device against the exact distribution, with
sample sizes, 95 % bands and the fairness tests. It updates live while `dicepod log` writes the
same database."""

from __future__ import annotations

import argparse
import sys

from dicepod_host import bounds

HELP = "serve a live local dashboard of a database: league, head-to-head, games, dice charts"
DEFAULT_PORT = 8766


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `dicepod dash`."""
    parser.add_argument("db", metavar="DB", help="the dicepod database (dicepod log may write it)")
    parser.add_argument(
        "--port",
        type=bounds.integer("--port", 0, 65535),
        default=DEFAULT_PORT,
        help="port (default %(default)s; 0 = any free)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address (default %(default)s)")
    parser.add_argument("--open", action="store_true", help="open the page in a browser")


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C."""
    from dicepod_host import dash
    from dicepod_host.commands.sim import open_browser

    server = dash.make_server(args.db, args.host, args.port)
    print(f"dicepod dashboard: {server.url}  (Ctrl-C stops it)", flush=True)
    if args.open and not open_browser(server.url):
        print(f"no display to open a browser on: open {server.url} in a browser", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        server.server_close()
    return 0
