"""`dicepod doctor`: what is installed and what is missing, verb by verb (the MicroPython unix
port, mpy-cross, Node and MicroPython's WebAssembly package, pyright, mpremote, a browser for the
tests, the stock Pico firmware `dicepod firmware` and the emulated Pico start from, a connected
Pico). Exit 0 when everything the PC verbs need is there, 1 otherwise; a missing Pico, stock
firmware or test browser is reported but not an error."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

HELP = "say what is installed and what is missing for each verb"
_TIMEOUT = 10  # seconds for one version query


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options."""


def _tool(name):
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else shutil.which(name)


def _version(cmd):
    """Return the first output line of cmd, or None when it cannot run."""
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (out.stdout or out.stderr).strip().splitlines()
    return text[0] if text and out.returncode == 0 else None


def checks() -> list[tuple[str, bool, str, str, bool]]:
    """Return a list of (name, ok, detail, needed_by, required)."""
    from dicepod import MICROPYTHON_VERSION
    from dicepod_host.sim import server

    root = server.ROOT
    results = []

    def add(name, ok, detail, needed_by, required=True):
        results.append((name, bool(ok), detail, needed_by, required))

    micropython = _tool("micropython")
    probe = "import sys; print('MicroPython %d.%d.%d' % sys.implementation.version[:3])"
    text = _version([micropython, "-c", probe]) if micropython else None
    add("micropython (unix port)", text, text or "missing: ./dev setup", "tests, bench")

    mpy_cross = _tool("mpy-cross")
    text = _version([mpy_cross, "--version"]) if mpy_cross else None
    pinned = bool(text and ("v" + MICROPYTHON_VERSION) in text)
    add(
        "mpy-cross",
        pinned,
        (text + ("" if pinned else f" (firmware needs {MICROPYTHON_VERSION})"))
        if text
        else "missing: ./dev setup",
        "deploy, firmware, sim, tests",
    )

    mpremote = _tool("mpremote")
    text = _version([mpremote, "version"]) if mpremote else None
    add("mpremote", text, text or "missing: ./dev setup", "deploy, firmware (its ROMFS writer)")

    node = shutil.which("node")
    text = _version([node, "--version"]) if node else None
    add("node", text, text or "missing: install Node 20+", "sim (stand-in board), tests")

    package = server.micropython_package_version()
    add(
        "npm " + server.MP_PACKAGE,
        package and (server.MP_DIR / "micropython.wasm").exists(),
        package or "missing: ./dev setup (npm ci)",
        "sim",
    )

    pyright = root / "node_modules" / ".bin" / "pyright"
    text = _version([str(pyright), "--version"]) if pyright.exists() else None
    add("pyright", text, text or "missing: ./dev setup (npm ci)", "tests (firmware gate)")

    stubs = list((root / "typings").glob("micropython_rp2_rpi_pico_stubs-*.dist-info"))
    add(
        "Pico stubs",
        stubs,
        stubs[0].name.split("-")[1].replace(".dist", "") if stubs else "missing: ./dev setup",
        "tests (firmware gate)",
    )

    chromium = "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None
    chromium = chromium or shutil.which("chromium")
    text = _version([chromium, "--version"]) if chromium else None
    add(
        "chromium",
        chromium,
        text or chromium or "missing: sudo apt-get install chromium (./dev test does it as root)",
        "tests (browser), bench",
        required=False,
    )
    try:
        import playwright  # noqa: F401

        has_playwright = True
    except ImportError:
        has_playwright = False
    add(
        "playwright (Python)",
        has_playwright,
        "installed" if has_playwright else "missing: ./dev setup",
        "tests (browser)",
        required=False,
    )

    try:
        import bsdiff4  # noqa: F401

        has_bsdiff4 = True
    except ImportError:
        has_bsdiff4 = False
    add("bsdiff4", has_bsdiff4, "installed" if has_bsdiff4 else "missing: ./dev setup", "firmware")
    from dicepod_host.pico import find_rp2, rp2_candidates

    rp2 = find_rp2()
    where = " or ".join(str(c) for c in rp2_candidates())
    add(
        "stock UF2",
        rp2,
        str(rp2) if rp2 else f"no verified RPI_PICO-v1.28.0.uf2 + boot ROM in {where}",
        "firmware, emulate --pico, tests (Pico)",
        required=False,
    )

    try:
        from dicepod_host.deploy import pico_ports

        ports = pico_ports()
    except Exception as err:  # no pyserial, or the OS refuses to list ports
        ports = []
        detail = f"cannot list serial ports ({err})"
    else:
        detail = ", ".join(ports) if ports else "none connected (USB vendor id 2E8A)"
    add("Pico", ports, detail, "deploy, log", required=False)
    return results


# What each verb (or job) needs, by check name prefix.
VERBS = (
    ("sim", ("npm @micropython", "mpy-cross")),
    ("deploy", ("mpy-cross", "mpremote", "Pico")),
    ("firmware", ("bsdiff4", "stock UF2", "mpy-cross", "mpremote")),
    ("log, verify, export, odds", ()),
    (
        "./dev test",
        (
            "micropython",
            "mpy-cross",
            "mpremote",
            "node",
            "npm",
            "pyright",
            "Pico stubs",
            "chromium",
            "playwright",
        ),
    ),
)


def run(args: argparse.Namespace) -> int:
    """Print one line per check and per verb; return 1 when something required is missing."""
    results = checks()
    width = max(len(r[0]) for r in results)
    for name, ok, detail, needed_by, required in results:
        mark = "ok  " if ok else ("MISS" if required else "--  ")
        print(f"{mark}  {name.ljust(width)}  {detail}   [{needed_by}]")
    print()
    for verb, needs in VERBS:
        lacking = [r[0] for r in results if not r[1] and any(r[0].startswith(n) for n in needs)]
        print("{:<26} {}".format(verb, "ready" if not lacking else "lacks " + ", ".join(lacking)))
    missing = [r[0] for r in results if not r[1] and r[4]]
    if missing:
        print("missing: {} (run ./dev setup)".format(", ".join(missing)))
        return 1
    print("everything the verbs need is installed")
    return 0
