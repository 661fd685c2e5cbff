"""`dicepod deploy`: compile the firmware to .mpy and copy it to a Pico with mpremote (a clean,
hash-checked copy; the journal and settings on the board are kept), then start it."""

from __future__ import annotations

import argparse
import os

HELP = "compile the firmware and copy it to a connected Pico (clean copy, hashes checked)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options: --port."""
    parser.add_argument(
        "--port",
        default=os.environ.get("DICEPOD_PORT", "auto"),
        help="serial port of the Pico, or `auto` to find it by USB vendor id (default: "
        "$DICEPOD_PORT or auto)",
    )


def run(args: argparse.Namespace) -> int:
    """Deploy and print progress; UserError on any problem."""
    from dicepod_host.deploy import deploy

    summary = deploy(args.port, progress=lambda text: print(text, flush=True))
    print(
        "deployed {} files to {} ({} copied{}, {} stale removed) in {:.1f} s".format(
            summary["files"],
            summary["port"],
            summary["copied"],
            ", the package written into ROMFS" if summary["romfs"] else "",
            summary["removed"],
            summary["seconds"],
        )
    )
    return 0
