"""Issue 12 on the emulated Pico (the real rp2 MicroPython v1.28.0 with dicepod deployed, real
LittleFS on its flash, real TinyUSB CDC): no byte sent over USB stops the game or reaches the
REPL while the app runs (Ctrl-C is off), the game goes on and the journal keeps growing; the
protocol's `repl` hands the line over: `dicepod deploy` onto the running game succeeds, and
the app it starts again resumes that game from the flash. Skips with one line when the UF2 /
boot ROM are absent."""

import random

import pytest
from pico_sessions import journal_in
from pico_support import need_pico

from dicepod_host.pico import Pico, read_littlefs


def _journal_lines(image):
    data = journal_in(read_littlefs(image.read_bytes()))
    return [line for line in data.splitlines() if line[:1].isdigit()]


@pytest.fixture(scope="module")
def pico(tmp_path_factory):
    need_pico()
    image = tmp_path_factory.mktemp("pico") / "flash.img"
    with Pico(flash=str(image)) as board:
        board.image = image
        board.run_until_frame(max_ms=10_000)
        yield board


def test_bytes_for_the_repl_do_not_stop_the_game(pico):
    for button in ("DOWN", "DOWN", "DOWN", "DOWN", "OK", "OK"):
        pico.tap(button)  # Free roll: a new game, a roll (each OK after it rolls again)
    pico.run_ms(300)
    before = len(_journal_lines(pico.image))
    assert before >= 2
    rng = random.Random(12)
    for chunk in (
        b"\x03",
        b"\x03\x03\x03",
        b"\x01",  # raw REPL
        b"\x01import os\r\nos.remove('main.py')\r\n\x04",
        b"\x02",
        b"\x04",  # soft reset at the friendly REPL
        b"\x05",  # paste mode
        bytes(rng.randrange(256) for _ in range(3000)),
        b"x" * 5000 + b"\n",
    ):
        pico.usb_write(chunk)
        pico.run_ms(150)
    frame = pico.frame()
    pico.tap("OK")  # the game still answers a press
    pico.run_ms(300)
    assert pico.frame() != frame
    after = _journal_lines(pico.image)
    assert len(after) > before, (before, len(after))
    files = read_littlefs(pico.image.read_bytes())
    assert "main.py" in files  # nothing sent was ever executed
    assert pico.boots == 1  # no soft reset either


def test_dicepod_deploy_onto_the_running_game(pico, capsys, monkeypatch):
    # The same Pico, its game still running after the bytes above: `dicepod deploy` asks the
    # app for the line (protocol `repl`, answered once the journal is on the flash), finds
    # every file up to date, and starts the app again, which resumes the game.
    from dicepod_host import deploy
    from dicepod_host.cli import main

    # The emulator on a loaded machine runs slower than a Pico: 120 s per mpremote call.
    real_deploy = deploy.deploy
    monkeypatch.setattr(deploy, "deploy", lambda port, **kw: real_deploy(port, timeout=120, **kw))
    pico.run_ms(3000)  # the app reads what is left of the garbage (128 bytes a tick)
    seq = len(_journal_lines(pico.image))
    with pico.running(realtime=True):
        code = main(["deploy", "--port", pico.usb_port])
        printed = capsys.readouterr()
        assert code == 0, printed.err + printed.out
        assert "the dicepod app handed the USB line over to the REPL" in printed.out
        assert "files already up to date" in printed.out
        assert "deployed" in printed.out.splitlines()[-1]
    assert len(_journal_lines(pico.image)) == seq  # every event was already on the flash
    pico.run_until_frame(max_ms=10_000)  # the app again (soft reboot: main.py)
    frame = pico.frame()
    pico.tap("OK")  # the resumed game answers a press: another event
    pico.run_ms(300)
    assert pico.frame() != frame
    assert len(_journal_lines(pico.image)) == seq + 1
