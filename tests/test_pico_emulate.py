"""`dicepod emulate --pico` for people: the real firmware on the emulated Pico, presses from a
script at the pins, the port printed; `dicepod log` records every journal event exactly once
and `dicepod verify` accepts it. A firmware that fails at boot shows its traceback."""

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest
from pico_support import need_pico

from dicepod import journal
from dicepod.rules import free
from dicepod_host.cli import main
from dicepod_host.pico import ROMFS_OFFSET, build_flash, read_littlefs

need_pico(module=True)

SCRIPT = """\
# Free roll: a new game (six dice), three rolls
DOWN 4
OK
OK 3
"""
EVENTS = 1 + len(free.SETTINGS) + 3  # new_game, a set per Free roll setting, three rolls


def _dicepod(*args, **kw):
    return subprocess.Popen(
        [sys.executable, "-m", "dicepod_host.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def _count(db):
    if not os.path.exists(db):
        return 0
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=1)
    try:
        return con.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


@pytest.mark.parametrize("micropython", ["stock", "dicepod"])
def test_emulate_pico_then_log_and_verify(micropython, tmp_path, capsys):
    """On either MicroPython build (dicepod's: the package in its ROMFS partition)."""
    need_pico()
    script = tmp_path / "free.txt"
    script.write_text(SCRIPT)
    image = tmp_path / "flash.img"
    db = str(tmp_path / "log.db")
    link = tmp_path / "pod"
    emu = _dicepod(
        "emulate",
        "--pico",
        "--script",
        str(script),
        "--linger",
        "60",
        "--flash",
        str(image),
        "--device-id",
        "00000000000000a1",
        "--link",
        str(link),
        "--micropython",
        micropython,
    )
    log = None
    try:
        line = emu.stdout.readline()
        assert line.startswith("port: /dev/pts/"), line
        port = line.split(" ", 1)[1].strip()
        assert os.path.realpath(link) == port  # --link: a stable name for the pty
        log = _dicepod("log", "--port", str(link), "--db", db, "--quiet")
        done = []
        threading.Thread(target=lambda: done.extend(emu.stderr), daemon=True).start()
        deadline = time.monotonic() + 150
        while time.monotonic() < deadline and not any("presses done" in x for x in done):
            time.sleep(0.2)
        assert any("presses done" in x for x in done), done
        # new game + Free roll's settings + 3 rolls; then nothing more arrives
        while time.monotonic() < deadline and _count(db) < EVENTS:
            time.sleep(0.2)
        time.sleep(1.0)
        log.send_signal(signal.SIGINT)
        assert log.wait(20) == 0
    finally:
        for proc in (log, emu):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
    # The journal on the Pico's flash, read from the image: every line in the database once.
    flash = image.read_bytes()
    files = read_littlefs(flash)
    in_rom = flash[ROMFS_OFFSET : ROMFS_OFFSET + 3] == b"\xd2\xcd\x31"  # a ROMFS image's header
    assert in_rom == (micropython == "dicepod")
    assert ("dicepod/app.mpy" in files) == (micropython == "stock")
    segments = sorted(int(k[len("journal/") :]) for k in files if k[len("journal/") :].isdigit())
    data = b"".join(files["journal/%d" % n] for n in segments)
    lines = [x for x in data.splitlines(keepends=True) if x[:1].isdigit()]
    con = sqlite3.connect(db)
    rows = con.execute("SELECT seq, game, ms, kind FROM events ORDER BY seq").fetchall()
    devices = [r[0] for r in con.execute("SELECT id FROM devices")]
    con.close()
    assert devices == ["00000000000000a1"]  # --device-id: the flash chip's unique id
    assert len(rows) == len(lines) == EVENTS
    for row, raw in zip(rows, lines):
        (seq, game, ms, event, _prev), _body = journal.decode(raw)
        assert row == (seq, game, ms, event[0])
    assert [r[3] for r in rows].count("roll") == 3  # no tap lost while a screen loaded
    capsys.readouterr()
    assert main(["verify", db]) == 0
    assert capsys.readouterr().out.startswith("OK: 1 device(s), 1 game(s)")


def test_emulate_pico_shows_a_boot_traceback(tmp_path):
    need_pico()
    image = tmp_path / "broken.img"
    build_flash(str(image), files={"main.py": b"import dicepod.app\nimport not_a_module\n"})
    result = subprocess.run(
        [
            *(sys.executable, "-m", "dicepod_host.cli", "emulate", "--pico"),
            *("--flash", str(image), "--linger", "0"),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 1
    assert "Traceback (most recent call last):" in result.stderr, result.stderr
    assert "ImportError: no module named 'not_a_module'" in result.stderr, result.stderr
    assert "showed nothing" in result.stderr and "stays on at its REPL" in result.stderr
