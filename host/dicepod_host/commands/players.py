"""`dicepod players DB [DEVICE [NAME ...]] [--game G]`: the names of a device's players, kept on
the PC (for devices that keep none): slot order (the first name is player 1). With no names,
print the names kept; with names, keep them (for one game with --game, else for every game of
the device that has no names of its own). `dicepod games` and the dashboard show them."""

from __future__ import annotations

import argparse

from dicepod_host import bounds
from dicepod_host.errors import UserError
from dicepod_host.store import Store

HELP = "name a device's players (kept on the PC), or list the names kept"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `dicepod players`."""
    parser.add_argument("db", metavar="DB", help="the dicepod database")
    parser.add_argument("device", metavar="DEVICE", nargs="?", help="a device id")
    parser.add_argument("names", metavar="NAME", nargs="*", help="the players, in slot order")
    parser.add_argument(
        "--game",
        type=bounds.integer("--game", 1, 2**32 - 1),
        default=0,
        help="only this game of the device",
    )


def run(args: argparse.Namespace) -> int:
    """List or set the names; return 0."""
    with Store(args.db, create=False) as store:
        if args.device is not None and args.device not in store.devices():
            raise UserError(f"no device {args.device[:40]} in {args.db}")
        if args.names:
            if args.device is None:
                raise UserError("name the device first: dicepod players DB DEVICE NAME ...")
            store.set_players(args.device, args.names, args.game)
        for (device, game), names in sorted(store.players().items()):
            if args.device is None or device == args.device:
                where = f"game {game}" if game else "every game"
                print("{} {}: {}".format(device, where, ", ".join(names)))
    return 0
