"""The simulator's web server (PC side, stdlib only): serves the page, MicroPython's WebAssembly
build from the npm package that ./dev setup installs, and the firmware tree as one JSON bundle.

Routes (nothing else; no path ever leaves the three folders):
    /                     web/index.html
    /<name>               web/<name> (sim.js, simboard.py, ...)
    /mp/<name>            node_modules/@micropython/micropython-webassembly-pyscript/<name>
    /bundle.json          {"micropython": version, "firmware": {path: text}, "sim": {...}},
                          read from disk on every request, so a reload picks up edits
"""

import json
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import dicepod_host
from dicepod_host.errors import UserError

ROOT = Path(dicepod_host.__file__).resolve().parent.parent.parent
FIRMWARE = ROOT / "firmware"
WEB = Path(__file__).resolve().parent / "web"
MP_PACKAGE = "@micropython/micropython-webassembly-pyscript"
MP_DIR = ROOT / "node_modules" / MP_PACKAGE
# The files of the simulator's Python side, written next to the firmware in the wasm file system.
SIM_PY = ("simboard.py",)

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


def micropython_package_version():
    """Return the installed npm package's version, or None when it is missing."""
    try:
        return json.loads((MP_DIR / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def check_ready():
    """Raise UserError when the firmware or the WebAssembly port is missing."""
    if not (FIRMWARE / "dicepod").is_dir():
        raise UserError("no firmware tree at %s" % FIRMWARE)
    if not (MP_DIR / "micropython.mjs").is_file() or not (MP_DIR / "micropython.wasm").is_file():
        raise UserError(
            "MicroPython's WebAssembly port is not installed (%s): run ./dev setup" % MP_PACKAGE
        )


def firmware_files(root=FIRMWARE):
    """Return {relative posix path: text} for every firmware file the Pico would get."""
    files = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        if path.suffix in (".pyc", ".mpy"):
            continue
        try:
            files[path.relative_to(root).as_posix()] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # the firmware is Python source; a stray binary file is not served
    return files


def bundle():
    """Return the JSON bundle bytes: the firmware tree and the simulator's Python side."""
    from dicepod import MICROPYTHON_VERSION

    sim = {name: (WEB / name).read_text(encoding="utf-8") for name in SIM_PY}
    data = {
        "micropython": MICROPYTHON_VERSION,
        "package": micropython_package_version(),
        "firmware": firmware_files(),
        "sim": sim,
    }
    return json.dumps(data).encode()


class Handler(BaseHTTPRequestHandler):
    """GET only, from the three folders above; quiet unless `verbose` is set on the server."""

    server_version = "dicepod-sim"

    def log_message(self, format, *args):
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
        path = (folder / name).resolve()
        if path.parent != folder.resolve() or not path.is_file():
            self.send_error(HTTPStatus.NOT_FOUND)
            return
        ctype = _TYPES.get(path.suffix, "application/octet-stream")
        self._send(path.read_bytes(), ctype, cache)

    def do_GET(self):
        """Serve one of the routes in the module docstring."""
        url = self.path.split("?", 1)[0].split("#", 1)[0]
        try:
            if url in ("/", "/index.html"):
                self._file(WEB, "index.html")
            elif url == "/bundle.json":
                self._send(bundle(), "application/json")
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
    """The simulator's HTTP server; `url` is the page's address."""

    daemon_threads = True
    verbose = False

    @property
    def url(self):
        host, port = self.server_address[:2]
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        if ":" in shown:
            shown = "[%s]" % shown
        return "http://%s:%d/" % (shown, port)


def make_server(host="127.0.0.1", port=0):
    """Bind the server (port 0 = any free port); raise UserError when the port is taken."""
    check_ready()
    try:
        return SimServer((host, port), Handler)
    except OSError as err:
        raise UserError(
            "cannot serve on %s:%d (%s): try another --port, or --port 0 for any free one"
            % (host, port, err.strerror or err)
        ) from None


def serve_in_thread(host="127.0.0.1", port=0):
    """Start a server in a daemon thread; return it (call .shutdown() to stop)."""
    server = make_server(host, port)
    thread = threading.Thread(target=server.serve_forever, name="dicepod-sim", daemon=True)
    thread.start()
    return server
