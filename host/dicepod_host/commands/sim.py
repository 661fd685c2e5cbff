"""`dicepod sim`: serve the browser simulator (the real firmware on MicroPython's WebAssembly
port) on a local address and print it; --open also opens a browser when there is a display.
`dicepod sim --export DIR` writes the simulator as a folder that needs no server (sim/export.py)."""

from __future__ import annotations

import argparse
import os
import sys

from dicepod_host import bounds

HELP = "run the real firmware in a browser simulator (a local page; no Pico needed)"
DEFAULT_PORT = 8765


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options: --port, --host, --open."""
    parser.add_argument(
        "--port",
        type=bounds.integer("--port", 0, 65535),
        default=DEFAULT_PORT,
        help="port (default %(default)s; 0 = any free)",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default %(default)s)"
    )
    parser.add_argument(
        "--open", action="store_true", help="open the page in a browser (when there is a display)"
    )
    parser.add_argument("--verbose", action="store_true", help="log every request")
    parser.add_argument(
        "--export",
        metavar="DIR",
        help="write the simulator to DIR instead of serving it: open DIR/index.html from a"
        " file or any static web host, offline",
    )


def has_display() -> bool:
    """True when a browser window can be shown (always outside Linux/BSD)."""
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def open_browser(url: str) -> bool:
    """Open url in a browser; return False (and open nothing) when there is no display."""
    if not has_display():
        return False
    import webbrowser

    try:
        return bool(webbrowser.open(url, new=2))
    except webbrowser.Error:
        return False


def export(folder: str) -> int:
    """Write the exported simulator and print its files and size."""
    from pathlib import Path

    from dicepod_host.sim.export import export as write

    sizes = write(Path(folder))
    total = sum(sizes.values())
    print(f"exported the simulator to {folder}: {len(sizes)} files, {total:,} bytes", flush=True)
    for name, size in sizes.items():
        print(f"  {name:<16} {size:>10,} bytes")
    print(f"open {Path(folder) / 'index.html'} in a browser: no server, no network")
    return 0


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C (or write the export and return)."""
    if args.export:
        return export(args.export)
    from dicepod_host.sim import server as sim_server

    server = sim_server.make_server(args.host, args.port)
    sim_server.start_warming()
    server.verbose = args.verbose
    url = server.url
    print(f"dicepod simulator: {url}  (Ctrl-C stops it)", flush=True)
    if args.open and not open_browser(url):
        print(f"no display to open a browser on: open {url} in a browser", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        server.server_close()
    return 0
