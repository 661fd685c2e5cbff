"""`dicepod players DB [DEVICE [NAME ...]] [--game G] [--journal J]`: the names of a device's
players, kept on the PC (for devices that keep none), in slot order (the first name is player 1).

With no names, print the names kept, game by game. With names: `--game G` names that game (and
`--journal J` picks the journal when a re-flashed device has a game G in more than one); without
`--game`, every game of the device logged so far that has no names yet. Games logged later stay
unnamed (shown as `<device>:P1` ...) until named: names never carry over to another evening's
players by themselves. The options may come anywhere, before the device too."""

from __future__ import annotations

import argparse
from typing import Any

from dicepod_host import bounds
from dicepod_host.errors import UserError
from dicepod_host.store import Store

HELP = "name the players of a device's games (kept on the PC), or list the names kept"


class _Intermixed(argparse.ArgumentParser):
    """Options anywhere among the positionals (`players DB --game 1 DEV Ada`): plain argparse
    takes the optional positionals as empty at the first option and refuses the rest."""

    _mixing = False

    def parse_known_args(  # pyright: ignore[reportIncompatibleMethodOverride]
        self, args: Any = None, namespace: Any = None
    ) -> Any:
        if self._mixing:
            return super().parse_known_args(args, namespace)
        self._mixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._mixing = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `dicepod players`."""
    parser.__class__ = type("PlayersParser", (_Intermixed, type(parser)), {})
    parser.add_argument("db", metavar="DB", help="the dicepod database")
    parser.add_argument("device", metavar="DEVICE", nargs="?", help="a device id")
    parser.add_argument("names", metavar="NAME", nargs="*", help="the players, in slot order")
    parser.add_argument(
        "--game",
        type=bounds.integer("--game", 1, 2**32 - 1),
        default=0,
        help="only this game of the device",
    )
    parser.add_argument(
        "--journal",
        metavar="J",
        help="the journal of the game (a re-flashed device has several; see `dicepod verify`)",
    )


def run(args: argparse.Namespace) -> int:
    """List or set the names; return 0."""
    with Store(args.db, create=False) as store:
        if args.device is not None and args.device not in store.devices():
            raise UserError(f"no device {args.device[:40]} in {args.db}")
        if args.names:
            if args.device is None:
                raise UserError("name the device first: dicepod players DB DEVICE NAME ...")
            named = store.set_players(args.device, args.names, args.game, args.journal)
            if not named:
                raise UserError(
                    f"every logged game of {args.device} has names already: rename one with"
                    " --game G"
                )
            print(
                "named {} game(s) of {}: {}".format(
                    len(named),
                    args.device,
                    ", ".join(f"{g} ({m})" + (f" journal {j}" if j else "") for j, g, m in named),
                )
            )
            return 0
        elif args.game or args.journal is not None:
            raise UserError("--game and --journal name players: give the names too")
        for (device, jid, game), names in sorted(store.players().items()):
            if args.device is None or device == args.device:
                where = f"journal {jid} game {game}" if jid else f"game {game}"
                print("{} {}: {}".format(device, where, ", ".join(names)))
    return 0
