"""Smoke test of the emulated dicepod: the real MicroPython v1.28.0 RPI_PICO firmware with
dicepod deployed as `dicepod deploy` installs it, on an emulated RP2040 with the circuit of
hardware/WIRING.md. One booted Pico serves the module (boot, press, USB); the power cut gets a
Pico of its own. Skips with one line when the UF2 / boot ROM are absent (tests/pico_support)."""

import time

import pytest
from pico_support import cpython_boot_screen, diff_image, need_pico

from dicepod_host.pico import Pico, PicoError, read_littlefs

need_pico(module=True)


@pytest.fixture(scope="module")
def pico():
    need_pico()
    with Pico() as board:
        board.boot_ms = board.run_until_frame(max_ms=10_000)
        board.boot_frame = board.frame()
        yield board


def test_boots_to_the_menu_with_cpythons_pixels(pico):
    # The first frame arrives after MicroPython's boot, board.make() and App.start().
    assert 50 < pico.boot_ms < 5_000, pico.boot_ms
    want = cpython_boot_screen()
    assert pico.boot_frame == want, diff_image(pico.boot_frame, want)


def test_a_press_at_the_pins_changes_the_screen(pico):
    before = pico.frame()
    down, up = pico.press("DOWN", hold_ms=80, bounce=True)
    pico.run_ms((up - pico.now_ns) / 1e6 + 200)
    # The contact bounced: several edges on GP11, then it settled low and came back high.
    edges = [e for e in pico.events("pin", since_ns=down) if e["pin"] == 11]
    assert len(edges) >= 6, edges
    assert edges[-1]["level"] == 1
    after = pico.frame()
    assert after != before, "DOWN did not change the screen"
    # One press moved the cursor one row, not several (the bounce was debounced).
    pico.press("UP", hold_ms=80, bounce=True)
    pico.run_ms(400)
    assert pico.frame() == before, diff_image(pico.frame(), before)


def test_press_to_last_i2c_byte_is_measured(pico):
    got = [pico.measure_press(b) for b in ("DOWN", "UP")]
    for m in got:
        # the edge, the app's 20 ms tick, the redraw of the cursor rows over a 400 kHz bus
        assert 5 < m["latency_ms"] < 1_000, m
        assert m["down_ns"] < m["last_i2c_ns"] <= pico.now_ns
        assert 16 < m["i2c_bytes"] < 1_100, m  # a cursor move is a partial redraw
    assert got[1]["down_ns"] - got[0]["down_ns"] > 120e6  # a finger's pace between presses


def test_scripted_presses_all_land(pico):
    # DOWN then UP back, at play()'s pace: each one moves the cursor, none is lost.
    start = pico.frame()
    pico.play("DOWN")
    moved = pico.frame()
    pico.play("UP")
    assert moved != start and pico.frame() == start


def test_usb_serial_opens_with_pyserial(pico):
    # Last of the shared Pico's tests: Ctrl-C stops main.py (the app is gone afterwards).
    import serial

    with pico.running(realtime=True):
        link = serial.Serial(pico.usb_port, 115200, timeout=0.2)
        try:
            link.reset_input_buffer()
            # The app keeps Ctrl-C off (issue 12): the protocol's `repl` asks it to stop; then
            # Ctrl-B at the friendly REPL prints the banner.
            link.write(b"\nrepl\n")
            seen = b""
            end = time.monotonic() + 20
            while b'"type":"repl"' not in seen and time.monotonic() < end:
                seen += link.read(512)
            assert b'"type":"repl"' in seen, seen
            time.sleep(0.5)
            link.write(b"\x02")
            seen = b""
            end = time.monotonic() + 20
            while b">>> " not in seen and time.monotonic() < end:
                seen += link.read(512)
            assert b"MicroPython v1.28.0" in seen and b"Raspberry Pi Pico with RP2040" in seen, seen
            link.write(b"print(6 * 7)\r")
            seen = b""
            end = time.monotonic() + 20
            while b"42\r\n>>> " not in seen and time.monotonic() < end:
                seen += link.read(512)
            assert b"42\r\n>>> " in seen, seen
        finally:
            link.close()


def test_power_cut_after_a_flash_write_then_reboot(tmp_path):
    need_pico()
    image = tmp_path / "flash.img"
    # A bare MicroPython (no main.py): the raw REPL writes a file of several pages.
    with Pico(flash=str(image), deploy=False, files={"keep.txt": b"kept\n"}) as board:
        board.run_ms(300)
        assert board.exec_raw("import os\nprint(sorted(os.listdir()))").strip() == "['keep.txt']"
        before = board.flash_ops
        board.power_cut(after_flash_ops=2)
        board.usb_write(b"\x01")
        board.usb_write(b"f = open('new.txt', 'w')\nf.write('x' * 9000)\nf.close()\n\x04")
        assert board.run_ms(3_000) == "power_cut"
        assert board.flash_ops == before + 2
        # The image file holds exactly what reached the flash: LittleFS is consistent.
        files = read_littlefs(image.read_bytes())
        assert files["keep.txt"] == b"kept\n"
        board.power_on()
        board.run_ms(300)
        out = board.exec_raw(
            "import os, machine\nprint(sorted(os.listdir()), machine.reset_cause())"
        ).strip()
        assert out.startswith("['keep.txt'") and out.endswith(" 1"), out
        assert board.boots == 2


def test_sh1106_module_shows_the_same_boot_screen():
    # The 1.3" module: the firmware's device.display setting picks the SH1106 driver, and the
    # board's SH1106 model (132-column RAM, panel at columns 2..129) decodes what it sends.
    need_pico()
    files = {"settings.json": b'{"device.display": 1}'}
    with Pico(files=files, display="sh1106", usb="events") as board:
        board.run_until_frame(max_ms=10_000)
        got = board.frame()
        assert board.oled.ram_width == 132
    want = cpython_boot_screen()
    assert got == want, diff_image(got, want)


def test_a_flash_image_runs_one_chip_at_a_time(tmp_path):
    # Two emulators on one image would corrupt its file system: the second is refused.
    image = str(tmp_path / "one.img")
    with Pico(flash=image, deploy=False, usb="events"):
        with pytest.raises(PicoError, match="in use by another emulated Pico"):
            Pico(flash=image, usb="events")
        with pytest.raises(ValueError, match="makes a new flash image"):
            Pico(flash=image, files={"x.txt": b"x"}, usb="events")
    with Pico(flash=image, usb="events") as again:  # free again once the first has stopped
        again.run_ms(50)
