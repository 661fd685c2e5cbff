"""`dicepod firmware [--stock UF2] [--out PATH]`: write the one file that makes a Pico a dicepod,
dicepod.uf2: dicepod's MicroPython with the compiled package in its ROMFS partition. Hold
BOOTSEL, plug the Pico in, copy the file onto the RPI-RP2 drive: no Python is needed on the
computer that does that, and the Pico's file system (a player's journal and settings) is never
written, so a Pico that holds a game resumes it.

dicepod's MicroPython is made from the stock UF2 with the patch in hardware/micropython and
checked byte for byte; a stock UF2 other than the one the patch was made from is refused (build
it from the sources with hardware/micropython/build.sh instead). The file is byte-identical
between runs on the same sources, and read back and compared with the compiled tree before it is
written (dicepod_host.uf2). `dicepod deploy` updates a Pico that is plugged in.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from dicepod_host.errors import UserError

HELP = "write dicepod.uf2: dicepod's MicroPython and the compiled package, one file to flash"
FILE = "dicepod.uf2"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options: --stock, --out."""
    parser.add_argument(
        "--stock",
        help="MicroPython v1.28.0's RPI_PICO .uf2 to make it from (default: the one the "
        "emulated Pico uses, $DICEPOD_RP2 or ../shared/rp2)",
    )
    parser.add_argument(
        "--out",
        default=".",
        help=f"the file to write, or a folder to write {FILE} into (default: .)",
    )


def run(args: argparse.Namespace) -> int:
    """Build, check and write the file; print where, what it holds, and what to do with it."""
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
    path = out / FILE if out.is_dir() else out
    if not path.parent.is_dir():
        raise UserError(f"no such folder: {path.parent}")
    data, held = uf2.firmware_file(stock, progress=lambda text: print(text, flush=True))
    part = path.with_name(path.name + ".part")
    try:
        part.write_bytes(data)
        os.replace(part, path)
    except OSError as err:
        part.unlink(missing_ok=True)
        raise UserError(f"cannot write {path}: {err.strerror}") from None
    print(f"wrote {path} ({len(data):,} bytes, {held['blocks']} UF2 blocks)")
    print(
        f"it holds dicepod's MicroPython ({held['firmware']}) and the dicepod package: "
        f"{held['files']} files in a ROMFS image of {held['romfs_bytes']:,} bytes at flash "
        f"offset 0x{held['romfs']:x}; it never writes the file system"
    )
    print(
        "flash it: hold BOOTSEL, plug the Pico in, copy the file onto the RPI-RP2 drive; the "
        "player's journal and settings on the Pico are kept (to update a Pico that is plugged "
        "in, `dicepod deploy` does it over USB)"
    )
    return 0
