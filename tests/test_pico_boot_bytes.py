"""Issue 48, point 3 on the emulated Pico: bytes a PC may send as the Pico is plugged in (Ctrl-C,
the raw REPL's Ctrl-A..Ctrl-E) arrive every 10 ms of emulated time from power-on until the
first frame and a while after it: the app starts, answers a button, and nothing reaches the
REPL. Both firmware builds: the package on the file system (stock) and in ROMFS (dicepod)."""

import itertools

import pytest
from pico_support import need_pico

BYTES = (b"\x03", b"\x03\x03\x03", b"\x01", b"\x04", b"\x02", b"\x05", b"\x01\x03\x04")


@pytest.mark.parametrize("firmware", ["stock", "dicepod"])
def test_repl_bytes_from_power_on_never_stop_the_app(tmp_path, firmware):
    need_pico()
    from dicepod_host.pico import Pico

    with Pico(flash=str(tmp_path / "flash.img"), firmware=firmware, usb="events") as pico:
        chunks = itertools.cycle(BYTES)
        sent = 0
        while not any(pico.frame()):
            assert pico.now_ms < 5_000, "no frame: " + pico.boot_output()
            pico.usb_write(next(chunks))
            sent += 1
            pico.run_ms(10)
        for _ in range(30):  # and for the app's first passes after it
            pico.usb_write(next(chunks))
            pico.run_ms(10)
        menu = pico.frame()
        pico.tap("DOWN")
        pico.run_ms(200)
        out = pico.usb_read().decode("latin-1")
        assert pico.frame() != menu, out[-2000:]  # the app answers a button
        assert ">>>" not in out and "raw REPL" not in out, out[-2000:]
        assert "KeyboardInterrupt" not in out, out[-2000:]
        assert pico.boots == 1
        assert sent > 10, sent  # bytes from well before the first frame


def test_back_held_at_power_on_is_the_way_to_the_repl(tmp_path):
    """The safe boot stays: BACK held from power-on, the app does not start and the REPL runs
    what the PC sends."""
    need_pico()
    from dicepod_host.pico import Pico

    with Pico(flash=str(tmp_path / "flash.img"), usb="events") as pico:
        pico.press("BACK", hold_ms=1500, bounce=False, at_ms=0)
        pico.run_ms(2000)
        assert not any(pico.frame())  # no app, no frame
        assert "safe boot" in pico.usb_read().decode("latin-1")
        assert pico.exec_raw("print(6 * 7)").strip() == "42"
