"""dicepod's MicroPython for the Pico: the stock v1.28.0 RPI_PICO build with a ROMFS partition.

PC-side code (never deployed). The stock firmware loads every module's bytecode into the heap
(about 56 KB for the modules a boot imports); with a ROMFS partition `dicepod deploy` puts the
package there and MicroPython runs it in place from flash, which leaves every mode room on 64 KB
of heap (hardware/micropython/README.md has the figures). The only change to the stock build is
one line of board configuration (hardware/micropython/build.sh builds it from the sources).

The repository holds no firmware image: hardware/micropython/ holds two binary patches
(bsdiff4) from the stock UF2 and ELF to dicepod's, and their results' SHA-256. make() applies
them to a verified stock build (the same one the emulated Pico runs, ../shared/rp2) and checks
the results, so what is flashed is the build the patches were written from, byte for byte.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from dicepod_host.errors import UserError

CHECKOUT = Path(__file__).resolve().parent.parent.parent
PATCHES = CHECKOUT / "hardware" / "micropython"
NAME = "dicepod-micropython-v1.28.0"  # + .uf2 / .elf
STOCK = {".uf2": "RPI_PICO-v1.28.0.uf2", ".elf": "RPI_PICO-v1.28.0.elf"}
SUMS = "SHA256SUMS"  # in PATCHES: the stock files' and the results' digests


def read_sums(path: Path) -> dict[str, str]:
    """{file name: sha256 hex} from a SHA256SUMS file (sha256sum's format)."""
    want = {}
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if len(parts) == 2:
            want[parts[1].lstrip("*")] = parts[0]
    return want


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def make(stock: Path, out: Path, suffixes: tuple[str, ...] = (".uf2", ".elf")) -> list[Path]:
    """Write dicepod's firmware files (NAME + suffix) into out from the stock build in the
    folder stock (or from the stock file itself, for one suffix); return their paths.
    UserError when a stock file is missing or not the build the patches were made from."""
    import bsdiff4

    want = read_sums(PATCHES / SUMS)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for suffix in suffixes:
        source = Path(stock) if Path(stock).is_file() else Path(stock) / STOCK[suffix]
        if not source.is_file():
            raise UserError(f"no stock MicroPython build at {source}")
        try:
            data = source.read_bytes()
        except OSError as err:
            raise UserError(f"cannot read {source}: {err.strerror}") from None
        if _sha(data) != want[STOCK[suffix]]:
            raise UserError(
                f"{source} is not the MicroPython v1.28.0 RPI_PICO build the patches were made "
                "from (its SHA-256 differs): build dicepod's firmware from the sources with "
                "hardware/micropython/build.sh instead"
            )
        result = bsdiff4.patch(data, (PATCHES / (NAME + suffix + ".bsdiff4")).read_bytes())
        if _sha(result) != want[NAME + suffix]:
            raise UserError(f"patching {source} gave the wrong bytes (a damaged patch file?)")
        target = out / (NAME + suffix)
        target.write_bytes(result)
        written.append(target)
    return written


def write_patches(stock: Path, built: Path) -> None:
    """Write the patches from the stock build (folder stock) to the build in the folder built
    (hardware/micropython/build.sh's OUT), and SHA256SUMS."""
    import bsdiff4

    lines = []
    for suffix, name in STOCK.items():
        old = (Path(stock) / name).read_bytes()
        new = (Path(built) / (NAME + suffix)).read_bytes()
        (PATCHES / (NAME + suffix + ".bsdiff4")).write_bytes(bsdiff4.diff(old, new))
        lines += [f"{_sha(old)}  {name}", f"{_sha(new)}  {NAME + suffix}"]
    (PATCHES / SUMS).write_text("\n".join(lines) + "\n")


def main(argv: list[str]) -> int:
    """python -m dicepod_host.uf2 write OUT: the patches from ../shared/rp2 to OUT's build."""
    if len(argv) != 2 or argv[0] != "write":
        print(main.__doc__, file=sys.stderr)
        return 2
    from dicepod_host.pico import require_rp2

    write_patches(require_rp2(), Path(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
