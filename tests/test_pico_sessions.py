"""Every mode's scripted session (tests/portable/app_sessions.py) played by a finger at the pins
of the emulated Pico: MicroPython v1.28.0 RPI_PICO with dicepod deployed, the real board
(display on I2C, buttons on GP10-GP13, journal and settings on LittleFS, USB link), one
App.tick(20) per host tick (tests/pico_lockstep.py) with CPython's seeded dice. After every
tick the Pico's decoded display equals CPython's rendering of the same tick; at the end the
journal and the settings file on the Pico's flash equal CPython's, byte for byte. The Battle
Game is played with `dicepod log` on the Pico's USB, which must end with every event exactly
once. A power cut mid-game: the Pico resumes what reached the flash, as CPython does from those
lines.

The heap gates are here: every mode in one session (shortened: pico_sessions.QUICK) on each
firmware's whole heap, all drivers and the USB link running. For the suite's
budget (the emulator runs at about a third of a Pico's speed, slower still in a small heap: a
collection every 4 KB), one Battle Game is played again under `dicepod log`;
tools/bench_pico.py plays every session whole."""

import json
import sqlite3
import time

import pytest
from pico_sessions import (
    EVERY_MODE,
    NAMES_IN_SEVEN_POOLS,
    QUICK,
    FingerBoard,
    Player,
    heap_at_boot,
    interned,
    journal_of,
    lockstep_files,
    record,
)
from pico_support import (
    UNTIMED,
    diff_image,
    need_pico,
    play_checked,
    start_logger,
    stop_logger,
)

from dicepod import journal as journal_module

# The stock firmware's gate: its full heap (no ballast), the code loaded into the heap, one
# mode's code at a time (dicepod.ram). Figures: docs/MEASUREMENTS.md (tools/bench_pico.py).
STOCK_FLOOR = 16 * 1024  # the least free heap left in any mode


def _play(pico, rec, mode):
    """Boot a fresh lockstep Pico, play rec's ticks of mode; return the end tick."""
    player = Player(pico)
    player.boot()
    assert pico.frame() == rec.frames[0], diff_image(pico.frame(), rec.frames[0])
    first, end = rec.marks[mode]
    play_checked(player, rec, first, end)
    journal, settings = journal_of(pico)
    assert journal == rec.journal[: rec.sizes[end]]
    assert settings == rec.settings_at[end]
    return player, end


# dicepod's own MicroPython (hardware/micropython: the stock build with a ROMFS partition, where
# `dicepod deploy` puts the package and MicroPython runs it in place from flash): every module
# imported at start and kept (dicepod.ram), at least this much heap left in every mode (#42).
ROMFS_FLOOR = 100 * 1024


def _every_mode_within(firmware):
    """Every mode in turn on a lockstep Pico with the firmware's whole heap, every driver and
    the USB link, CPython's pixels after every tick and CPython's journal and settings at the
    end. Return the lowest free heap after each mode and (pools, names, text, total) of the
    interned names."""
    need_pico()
    from dicepod_host.pico import Pico

    rec = record(EVERY_MODE, resident=firmware == "dicepod", **QUICK)
    files = lockstep_files(measure=True)
    with Pico(files=files, usb="events", firmware=firmware, timing=UNTIMED) as pico:
        player = Player(pico)
        player.boot()
        _free, start = heap_at_boot(pico)
        assert pico.frame() == rec.frames[0], diff_image(pico.frame(), rec.frames[0])
        lowest = {}
        for mode in EVERY_MODE:
            first, end = rec.marks[mode]
            play_checked(player, rec, first, end, mode)
            lowest[mode] = pico.heap()[1]
        journal, settings = journal_of(pico)
        pools, names, text, total = interned(pico)
        where = pico.exec_raw(
            "import sys\nprint(sys.modules['dicepod.app'].__file__)", ask_app=False
        )
    assert journal == rec.journal and journal.count(b"\n") > 100
    assert settings == rec.settings
    print("heap left to the app %d; lowest free after each mode: %s" % (start, lowest))
    print("names interned: %d in %d pools (%d bytes, %d of text)" % (names, pools, total, text))
    assert 0 < lowest["extras"] < start
    # the package ran from where deploy puts it on that firmware
    rom = firmware == "dicepod"
    assert ("/rom/dicepod/app.mpy" if rom else "dicepod/app.mpy") in where, where
    assert ("/rom/" in where) == rom, where
    return lowest, (pools, names, text, total)


# (tests/conftest.py's LONGEST_FIRST: minutes of one core, started first)
@pytest.mark.timeout(1500)
def test_every_mode_in_one_session_on_the_stock_firmware():
    """The stock firmware's gate (the code loaded into the heap): its whole heap."""
    lowest, (pools, names, _text, _total) = _every_mode_within("stock")
    assert min(lowest.values()) >= STOCK_FLOOR, lowest
    # The session's names, the checkpoint's with them (tests/pico_lockstep.py), fit seven pools
    # (the lowest free heap above holds them): one more name than they hold asks for a 15.4 KB
    # block at once (NAMES_IN_SEVEN_POOLS).
    assert names <= NAMES_IN_SEVEN_POOLS and pools <= 7, (names, pools)


# (tests/conftest.py's LONGEST_FIRST)
@pytest.mark.timeout(1500)
def test_every_mode_in_one_session_with_the_code_in_romfs():
    """dicepod's MicroPython: the package in its ROMFS partition, every module kept."""
    lowest, _names = _every_mode_within("dicepod")
    assert min(lowest.values()) >= ROMFS_FLOOR, lowest


def _count(db):
    try:
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=1)
    except sqlite3.OperationalError:
        return 0
    try:
        return con.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


@pytest.mark.timeout(1200)
def test_the_battle_session_at_the_pins_logged_by_dicepod_log_exactly_once(tmp_path, capsys):
    need_pico()
    from dicepod_host.cli import main
    from dicepod_host.pico import Pico

    rec = record(("battle",), games=1)
    db = tmp_path / "log.db"
    with Pico(files=lockstep_files(), timing=UNTIMED) as pico:
        with start_logger(pico.usb_port, db) as logger:
            player, _end = _play(pico, rec, "battle")
            journal, _settings = journal_of(pico)
            lines = [x for x in journal.splitlines(keepends=True) if x[:1].isdigit()]
            assert len(lines) > 20  # (the segments' header lines left out)
            # Idle ticks (no button) while the logger catches up: the device sends from its
            # queue and answers `since N` for anything it dropped.
            end = time.monotonic() + 120
            while _count(db) < len(lines) and time.monotonic() < end:
                for _ in range(25):
                    player.tick(0)
            # The device keeps running while the logger quits (its last writes need a reader).
            stop_logger(logger, timeout=60, pump=lambda: player.tick(0))
    con = sqlite3.connect(db)
    rows = con.execute("SELECT seq, game, ms, kind, data, prev FROM events ORDER BY seq").fetchall()
    con.close()
    assert [r[0] for r in rows] == list(range(1, len(lines) + 1))
    for row, line in zip(rows, lines):
        (seq, game, ms, event, prev), _body = journal_module.decode(line)
        assert row[:3] == (seq, game, ms)
        assert (row[3], tuple(json.loads(row[4]))) == event
        assert row[5] == prev
    capsys.readouterr()
    assert main(["verify", str(db)]) == 0
    assert capsys.readouterr().out.startswith("OK: 1 device(s)")


@pytest.mark.timeout(600)
def test_a_power_cut_mid_game_resumes_what_reached_the_flash():
    """A Battle Game played at the pins; the power goes right after a flash operation in the
    middle of it. Powered on again, the Pico's journal is a whole-line prefix of CPython's
    (at most the event being written is lost), the app resumes that game on the screen CPython
    draws for those lines, and the same presses after it give the same journal and pixels."""
    need_pico()
    from app_board import LineStorage, press

    from dicepod.app import App
    from dicepod_host.pico import Pico

    rec = record(("battle",))
    first, end = rec.marks["battle"]
    cut_at = first + 200  # a game started, a few rolls in
    with Pico(files=lockstep_files(), usb="events") as pico:
        player = Player(pico)
        player.boot()
        for i in range(cut_at):
            player.tick(rec.pins[i])
        before = pico.flash_ops
        pico.power_cut(after_flash_ops=3)  # inside the next journal append
        stopped = None
        for i in range(cut_at, end):
            stopped = player.tick(rec.pins[i])
            if stopped == "power_cut":
                break
        assert stopped == "power_cut" and pico.flash_ops == before + 3
        cut_tick = i
        on_flash, _settings = journal_of(pico)
        pico.power_on()
        player.boot()
        resumed, _settings = journal_of(pico)
        # What the Pico kept: whole lines, the ones CPython had written by then (the event
        # being written when the power went may be lost, nothing else).
        assert rec.journal.startswith(resumed) and resumed.endswith(b"\n")
        assert rec.sizes[cut_tick] <= len(resumed) <= rec.sizes[cut_tick + 1]
        assert on_flash.startswith(resumed)
        kept = resumed.count(b"\n")
        assert kept > 10
        # CPython's app started on those lines: the same screen, and the same journal and
        # pixels for a few more presses (a fresh seeded generator on both sides).
        board = FingerBoard(storage=LineStorage(resumed))
        app = App(board)
        app.start()
        assert pico.frame() == bytes(board.display.buffer), diff_image(
            pico.frame(), bytes(board.display.buffer)
        )
        press(app, 4, 4, 2, 4, 4, 1, 4)  # OK, OK, DOWN, OK, OK, UP, OK: rolls and choices
        for i, mask in enumerate(board.pins):
            player.tick(mask)
            assert pico.frame() == board.frames[i], diff_image(pico.frame(), board.frames[i])
        after, _settings = journal_of(pico)
        assert after == board.storage.journal() and after.count(b"\n") > kept
