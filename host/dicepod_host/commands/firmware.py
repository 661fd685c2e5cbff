"""`dicepod firmware [--stock UF2] [--out DIR]`: write dicepod's MicroPython build as a UF2 file
to flash onto a Pico (hold BOOTSEL, plug it in, copy the file), before `dicepod deploy`.

dicepod's build is MicroPython v1.28.0's RPI_PICO firmware with a ROMFS partition: deploy puts
the package there and MicroPython runs it in place from flash, so its bytecode takes no heap
(hardware/micropython/README.md). It is made from the stock UF2 with the patch in
hardware/micropython, and checked byte for byte; a stock UF2 other than the one the patch was
made from is refused (build it from the sources with hardware/micropython/build.sh instead).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from dicepod_host.errors import UserError

HELP = "write dicepod's MicroPython (the Pico firmware with a ROMFS partition) as a .uf2 file"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options: --stock, --out."""
    parser.add_argument(
        "--stock",
        help="MicroPython v1.28.0's RPI_PICO .uf2 to make it from (default: the one the "
        "emulated Pico uses, $DICEPOD_RP2 or ../shared/rp2)",
    )
    parser.add_argument("--out", default=".", help="folder to write the .uf2 into (default: .)")


def run(args: argparse.Namespace) -> int:
    """Write the UF2; print where, and what to do with it."""
    from dicepod_host import uf2

    if args.stock:
        stock = Path(args.stock)
        if not stock.is_file():
            raise UserError(f"no such file: {stock}")
    else:
        from dicepod_host.pico import find_rp2

        found = find_rp2()
        if found is None:
            raise UserError(
                "give MicroPython v1.28.0's RPI_PICO .uf2 with --stock FILE (no stock firmware "
                "found in $DICEPOD_RP2 or ../shared/rp2)"
            )
        stock = found
    out = Path(args.out)
    if not out.is_dir():
        raise UserError(f"no such folder: {args.out}")
    try:
        (path,) = uf2.make(stock, out, suffixes=(".uf2",))
    except OSError as err:
        raise UserError(f"cannot write the firmware into {args.out}: {err.strerror}") from None
    print(f"wrote {path} ({path.stat().st_size} bytes)")
    print(
        "flash it: hold BOOTSEL, plug the Pico in, copy the file onto the RPI-RP2 drive; then "
        "run `dicepod deploy` (the player's journal and settings on the Pico's file system are "
        "kept)"
    )
    return 0
