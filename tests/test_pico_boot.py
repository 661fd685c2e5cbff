"""Issue 43, point 2 on the emulated Pico (the real MicroPython firmware in the RP2040): a few
of the generated journals and settings files of tests/portable/test_boot_generated.py, written
onto the flash as the device leaves them, boot to a screen; the app answers a press (its loop
runs: main.py did not fall to the REPL) and journals no crash. Skips without the emulator."""

import pytest
from pico_sessions import journal_in
from pico_support import need_pico
from test_boot_generated import _written

from dicepod_host.pico import Pico, read_littlefs


@pytest.mark.parametrize("seed", [1, 3, 4, 5])  # Orks twice (a question pending), Tyranid, Battle
def test_a_generated_save_boots_on_the_pico(seed, tmp_path):
    need_pico()
    from dicepod_host import pico as pico_module

    storage = _written(seed)
    files = pico_module.deployed_files()
    files.update({"journal/%d" % seg: storage.segment(seg) for seg in storage.segments()})
    if storage.side("ack") is not None:
        files["journal/ack"] = storage.side("ack")
    if storage.settings:
        files["settings.json"] = storage.settings
    image = tmp_path / "boot.img"
    pico_module.build_flash(image, files=files, deploy=False)
    with Pico(flash=str(image)) as pico:
        pico.run_until_frame(max_ms=15_000)  # a screen (TimeoutError: none came)
        down, _up = pico.tap("BACK", after_ms=500)
        assert pico.i2c_bytes(since_ns=down) > 0  # the app's loop redraws: it answers a press
    lines = journal_in(read_littlefs(image.read_bytes())).splitlines()
    assert lines and not [line for line in lines if b"crash" in line]
