"""`dicepod firmware`'s one .uf2 file: dicepod's MicroPython and the compiled package in its ROMFS
partition. Built twice, byte-identical; the package in it equals the compiled tree; and on the
emulated Pico (the real firmware on the emulated RP2040), its blocks written to the flash as the
boot ROM's UF2 drive writes them turn a blank flash into a dicepod and a Pico that holds a game
into the same game, its journal intact."""

from pathlib import Path

import pytest
from pico_support import cpython_boot_screen, diff_image, need_pico

from dicepod_host import deploy, uf2
from dicepod_host.cli import main
from dicepod_host.errors import UserError
from dicepod_host.pico import (
    FLASH_SIZE,
    FS_OFFSET,
    ROMFS_OFFSET,
    Pico,
    build_flash,
    find_rp2,
    read_littlefs,
)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """(the .uf2's bytes, a second build's bytes, the printed output), from the command."""
    need_pico()
    out = tmp_path_factory.mktemp("uf2")
    first, second = out / "a.uf2", out / "b.uf2"
    assert main(["firmware", "--out", str(first)]) == 0
    assert main(["firmware", "--out", str(out)]) == 0  # a folder: dicepod.uf2 in it
    assert (out / "dicepod.uf2").read_bytes() != b""
    second.write_bytes((out / "dicepod.uf2").read_bytes())
    return first.read_bytes(), second.read_bytes()


def flash_uf2(image: Path, data: bytes) -> None:
    """Write the UF2's blocks into the flash image file as the boot ROM's drive does: each
    block's payload at its target address, nothing else touched."""
    flash = bytearray(image.read_bytes())
    for offset, payload in uf2.blocks(data):
        flash[offset : offset + len(payload)] = payload
    image.write_bytes(bytes(flash))


def test_the_uf2_is_reproducible_and_holds_the_compiled_tree(made, tmp_path, capsys):
    """Byte-identical twice; its blocks write dicepod's MicroPython as make() gives it and the
    compiled tree's ROMFS image, none at or above the file system; a differing package is
    refused with its name."""
    data, again = made
    assert data == again
    got = uf2.blocks(data)
    assert max(offset + len(p) for offset, p in got) <= FS_OFFSET
    assert all(len(p) == uf2.PAGE and offset % uf2.PAGE == 0 for offset, p in got)
    firmware = uf2.make(find_rp2(), tmp_path / "fw", suffixes=(".uf2",))[0].read_bytes()
    want = uf2.blocks(firmware)
    assert got[: len(want)] == want
    rom = b"".join(p for _offset, p in got[len(want) :])
    built = deploy.compile_tree(deploy.firmware_root(), tmp_path / "build", lambda _t: 0)
    tree = {k: p.read_bytes() for k, p in built.items()}
    held = uf2.read_romfs(rom)
    package = {k for k in tree if k.startswith("dicepod/")}
    assert set(held) == package | {"m"}
    assert all(held[k] == tree[k] for k in package)
    assert held["m"].endswith(tree["main.py"])  # the program dicepod's build runs
    # The checker compares with the compiled tree: one changed module is named.
    changed = dict(held, **{"dicepod/app.mpy": tree["dicepod/app.mpy"] + b"\0"})
    with pytest.raises(UserError, match=r"differs from the compiled tree.*dicepod/app\.mpy"):
        uf2.check(data, firmware, changed, FS_OFFSET, ROMFS_OFFSET)


def test_a_blank_pico_flashed_with_the_uf2_shows_the_main_menu(made, tmp_path):
    """Onto an erased flash: the boot ROM's writes, then power on: the main menu CPython
    draws."""
    image = tmp_path / "flash.img"
    image.write_bytes(b"\xff" * FLASH_SIZE)
    flash_uf2(image, made[0])
    with Pico(flash=image, firmware="dicepod") as pico:
        pico.run_until_frame(max_ms=10_000)
        want = cpython_boot_screen()
        assert pico.frame() == want, diff_image(pico.frame(), want)


def test_a_pico_holding_a_game_resumes_it_after_the_uf2(made, tmp_path):
    """A Pico deployed onto the stock firmware plays a free-roll game (journal on its file
    system), then gets the .uf2: the file system's bytes are untouched, and after power-on the
    same game shows, from dicepod's build, its journal intact."""
    image = tmp_path / "flash.img"
    build_flash(image)  # the stock firmware, the package deployed on the file system
    with Pico(flash=image) as pico:
        pico.run_until_frame(max_ms=10_000)
        for button in ("DOWN",) * 4 + ("OK",) * 3:  # Free roll, open it, roll twice
            pico.play(button)
        game = pico.frame()
        pico.power_cut()
    before = image.read_bytes()
    journal = {k: v for k, v in read_littlefs(before).items() if k.startswith("journal")}
    assert journal and sum(v.count(b"roll") for v in journal.values()) >= 2, journal
    flash_uf2(image, made[0])
    after = image.read_bytes()
    assert after[FS_OFFSET:] == before[FS_OFFSET:]
    assert after[:ROMFS_OFFSET] != before[:ROMFS_OFFSET]  # dicepod's MicroPython now
    with Pico(flash=image, firmware="dicepod") as pico:
        pico.run_until_frame(max_ms=10_000)
        pico.run_ms(500)
        assert pico.frame() == game, diff_image(pico.frame(), game)
        assert pico.frame() != cpython_boot_screen()
        pico.power_cut()
    files = read_littlefs(image.read_bytes())
    assert {k: v for k, v in files.items() if k.startswith("journal")} == journal
