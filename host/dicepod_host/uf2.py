"""dicepod's MicroPython for the Pico (the stock v1.28.0 RPI_PICO build with a ROMFS partition),
and the one .uf2 file that holds it with the compiled package in that partition.

PC-side code (never deployed). The stock firmware loads every module's bytecode into the heap;
with a ROMFS partition MicroPython runs the package in place from flash
(hardware/micropython/README.md). The build differs from the stock one in two things: the
partition, and the program it runs at power-on, /rom/m (ROMFS) instead of the file system's
main.py, so a Pico whose file system holds no program starts the app
(hardware/micropython/build.sh builds it from the sources).

The repository holds no firmware image: hardware/micropython/ holds two binary patches
(bsdiff4) from the stock UF2 and ELF to dicepod's, and their results' SHA-256. make() applies
them to a verified stock build (the same one the emulated Pico runs, ../shared/rp2) and checks
the results, so what is flashed is the build the patches were written from, byte for byte.

firmware_file() adds the package: its UF2 blocks write that firmware, then the ROMFS image of
the compiled tree (deploy.romfs_files) into the partition, and nothing at or above the file
system, so a Pico keeps its journal and settings. Fixed ordering and no timestamps make it
byte-identical between runs; it is read back and compared with the compiled tree before it is
written.
"""

from __future__ import annotations

import hashlib
import struct
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


FLASH_BASE = 0x10000000  # the RP2040's flash in its address space (XIP)
UF2_MAGIC = (0x0A324655, 0x9E5D5157, 0x0AB16F30)  # start 0, start 1, end
UF2_FAMILY = 0x2000  # flag: the family id field is set
UF2_NOT_MAIN = 0x0001  # flag: not for the main flash (skipped by the boot ROM)
PAGE = 256  # payload bytes per block: the RP2040 boot ROM takes 256-byte pages only
SECTOR = 4096  # the boot ROM erases a 4 KiB sector before the first page it writes there


def blocks(data: bytes) -> list[tuple[int, bytes]]:
    """[(flash offset, payload)] of a UF2 file's blocks for the main flash, in file order.
    ValueError on a malformed file."""
    if len(data) % 512:
        raise ValueError("a UF2 file is a whole number of 512-byte blocks")
    out = []
    for at in range(0, len(data), 512):
        start0, start1, flags, addr, size = struct.unpack_from("<5I", data, at)
        (end,) = struct.unpack_from("<I", data, at + 508)
        if (start0, start1, end) != UF2_MAGIC or size > 476:
            raise ValueError(f"UF2 block {at // 512} is malformed")
        if not flags & UF2_NOT_MAIN:
            out.append((addr - FLASH_BASE, bytes(data[at + 32 : at + 32 + size])))
    return out


def encode(chunks: list[tuple[int, bytes]], family: int) -> bytes:
    """A UF2 file writing each (flash offset, 256 bytes) of chunks, numbered in order."""
    out = bytearray()
    for i, (offset, payload) in enumerate(chunks):
        head = struct.pack(
            "<8I", UF2_MAGIC[0], UF2_MAGIC[1], UF2_FAMILY, FLASH_BASE + offset, PAGE, i,
            len(chunks), family,
        )  # fmt: skip
        out += head + payload.ljust(476, b"\0") + struct.pack("<I", UF2_MAGIC[2])
    return bytes(out)


def read_romfs(image: bytes) -> dict[str, bytes]:
    """{path: bytes} of a ROMFS image (MicroPython's vfs.VfsRom format, mpremote's writer)."""

    def uint(at):
        value = 0
        while True:
            byte = image[at]
            value, at = (value << 7) | (byte & 0x7F), at + 1
            if not byte & 0x80:
                return value, at

    def walk(at, end, prefix, out):
        while at < end:
            kind, at = uint(at)
            size, at = uint(at)
            if kind in (4, 5):  # a folder, a file: name, then records / its data record
                length, body = uint(at)
                name = prefix + image[body : body + length].decode()
                if kind == 4:
                    walk(body + length, at + size, name + "/", out)
                else:
                    _data_kind, data_at = uint(body + length)
                    data_size, data_at = uint(data_at)
                    out[name] = bytes(image[data_at : data_at + data_size])
            at += size
        return out

    if image[:3] != b"\xd2\xcd\x31":
        raise ValueError("not a ROMFS image (no header)")
    size, at = uint(3)
    return walk(at, at + size, "", {})


def firmware_file(
    stock: Path, root: Path | None = None, progress: Callable[[str], Any] = print
) -> tuple[bytes, dict[str, Any]]:
    """The one .uf2 file: dicepod's MicroPython (make() from the stock UF2 stock) and the
    firmware tree root compiled into its ROMFS partition; and what it holds, {firmware, files,
    romfs, romfs_bytes, blocks}. UserError when it cannot be made or does not check out."""
    import tempfile

    from dicepod_host import deploy
    from dicepod_host.pico import FS_OFFSET, ROMFS_BYTES, ROMFS_OFFSET

    root = Path(root) if root else deploy.firmware_root()
    with tempfile.TemporaryDirectory(prefix="dicepod-firmware-") as tmp:
        (made,) = make(stock, Path(tmp), suffixes=(".uf2",))
        progress(f"dicepod's MicroPython: {made.name}, checked against {SUMS}")
        firmware = made.read_bytes()
        built = deploy.compile_tree(root, Path(tmp) / "build", progress)
        if deploy.MAIN not in built:
            raise UserError(f"{root} holds no {deploy.MAIN}: not a dicepod firmware tree")
        files = deploy.romfs_files(built)
    image = deploy.romfs_image(files)
    if len(image) > ROMFS_BYTES:
        raise UserError(
            f"the package ({len(image)} bytes as a ROMFS image) does not fit the firmware's "
            f"ROMFS partition ({ROMFS_BYTES} bytes)"
        )
    chunks = blocks(firmware)
    if max(offset + len(payload) for offset, payload in chunks) > ROMFS_OFFSET:
        raise UserError(f"{made.name} writes into its own ROMFS partition")
    (family,) = struct.unpack_from("<I", firmware, 28)
    padded = image.ljust(-(-len(image) // SECTOR) * SECTOR, b"\xff")  # whole sectors
    chunks += [(ROMFS_OFFSET + at, padded[at : at + PAGE]) for at in range(0, len(padded), PAGE)]
    data = encode(chunks, family)
    check(data, firmware, files, FS_OFFSET, ROMFS_OFFSET)
    return data, {
        "firmware": made.name,
        "files": len(files),
        "romfs": ROMFS_OFFSET,
        "romfs_bytes": len(image),
        "blocks": len(chunks),
    }


def check(
    data: bytes, firmware: bytes, files: dict[str, bytes], fs_offset: int, romfs_offset: int
) -> None:
    """Raise UserError unless the UF2 data writes the firmware's payloads as they are, a ROMFS
    image holding exactly files at romfs_offset, and nothing at or above fs_offset."""
    got = blocks(data)
    top = max(offset + len(payload) for offset, payload in got)
    if top > fs_offset:
        raise UserError(f"the .uf2 would write the file system's blocks (up to 0x{top:x})")
    want = blocks(firmware)
    rest = got[len(want) :]
    if [(o, p.ljust(PAGE, b"\0")) for o, p in want] != got[: len(want)]:
        raise UserError("the .uf2's firmware blocks differ from dicepod's MicroPython")
    if [o for o, _p in rest] != list(range(romfs_offset, romfs_offset + PAGE * len(rest), PAGE)):
        raise UserError("the .uf2's ROMFS blocks are not one run from the partition's start")
    try:
        held = read_romfs(b"".join(p for _o, p in rest))
    except (ValueError, IndexError, UnicodeDecodeError) as err:
        raise UserError(f"the .uf2's ROMFS image cannot be read back: {err}") from None
    if held != files:
        bad = sorted(k for k in set(held) | set(files) if held.get(k) != files.get(k))
        raise UserError(f"the package in the .uf2 differs from the compiled tree ({bad[:5]})")


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
