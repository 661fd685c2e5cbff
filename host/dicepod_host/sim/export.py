"""`dicepod sim --export DIR`: the simulator as a folder that needs no server.

A page opened from file:// may not fetch (Chromium refuses it) nor load a module script from a
file, so the export puts everything where a plain <script> finds it:

    index.html        the page, with MicroPython's loader and sim.js inline as one module script
    dicepod-data.js   window.dicepodExport = {"bundle": the firmware bundle the server sends,
                      "wasm": MicroPython's WebAssembly as a data: URL}
    README.txt        what the folder is and how to open it

The same firmware gives the same bytes (keys sorted, no dates), so an export can be checked
against another with a checksum.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

from dicepod_host.errors import UserError
from dicepod_host.sim import server

DATA_NAME = "dicepod-data.js"
README = """dicepod simulator
=================

Open index.html in a browser (Chrome, Edge, Firefox or Safari): nothing to install, no server,
no network. The page runs the dicepod firmware in the browser; the journal stays in this
browser's storage, and "Download log" (in the USB panel) saves it as a file for
`dicepod verify` or `dicepod import`.

Copy the whole folder (a USB stick, a zip, a shared drive or any static web host): the page
needs its {data} beside it.
"""

# The page's links to files the server sends; the exported page has them inline instead.
_PRELOAD = re.compile(r'^<link rel="(?:modulepreload|preload)"[^>]*>\n', re.MULTILINE)
_SCRIPT = '<script type="module" src="sim.js"></script>'
_IMPORT = re.compile(r'^import \{ loadMicroPython \} from "\./mp/micropython\.mjs";\n', re.M)


def _inline(text: str, what: str) -> str:
    if re.search(r"</script", text, re.IGNORECASE):
        raise UserError(f"{what} holds '</script': it cannot go inline in the exported page")
    return text


def _loader() -> str:
    """MicroPython's ES module with its exports made plain declarations (one inline module)."""
    text = (server.MP_DIR / "micropython.mjs").read_text(encoding="utf-8")
    text, n_default = re.subn(r"\bexport default _createMicroPythonModule;?", "", text)
    text, n_load = re.subn(
        r"\bexport async function loadMicroPython\b", "async function loadMicroPython", text
    )
    if n_default != 1 or n_load != 1 or re.search(r"(?:^|[;}])\s*export\s", text):
        raise UserError(
            f"{server.MP_PACKAGE} {server.micropython_package_version()}: its exports are not"
            " the two this export knows; update host/dicepod_host/sim/export.py"
        )
    return text


def files() -> dict[str, bytes]:
    """Return {name: bytes} of the exported folder."""
    server.check_ready()
    page = (server.WEB / "index.html").read_text(encoding="utf-8")
    sim_js, n = _IMPORT.subn("", (server.WEB / "sim.js").read_text(encoding="utf-8"))
    if n != 1 or _SCRIPT not in page:
        raise UserError("sim.js or index.html changed: update host/dicepod_host/sim/export.py")
    script = (
        f'<script src="{DATA_NAME}"></script>\n<script type="module">\n'
        + _inline(_loader(), "micropython.mjs")
        + "\n"
        + _inline(sim_js, "sim.js")
        + "</script>"
    )
    page = _PRELOAD.sub("", page).replace(_SCRIPT, script)
    bundle = json.loads(server.bundle())
    wasm = (server.MP_DIR / "micropython.wasm").read_bytes()
    data = {
        "bundle": bundle,
        "wasm": "data:application/wasm;base64," + base64.b64encode(wasm).decode(),
    }
    js = (
        "// The dicepod firmware and MicroPython's WebAssembly, for index.html (dicepod sim"
        " --export).\nwindow.dicepodExport = "
        + json.dumps(data, sort_keys=True, separators=(",", ":"))
        + ";\n"
    )
    return {
        "index.html": page.encode(),
        DATA_NAME: js.encode(),
        "README.txt": README.format(data=DATA_NAME).encode(),
    }


def export(dest: Path) -> dict[str, int]:
    """Write the folder at dest (made if missing; these files replaced); return {name: size}."""
    if dest.exists() and not dest.is_dir():
        raise UserError(f"{dest} is not a folder")
    content = files()
    dest.mkdir(parents=True, exist_ok=True)
    for name, data in content.items():
        (dest / name).write_bytes(data)
    return {name: len(data) for name, data in content.items()}
