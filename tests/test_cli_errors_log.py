"""Bad input to every verb of the logging side (log, verify, export, stats, emulate): one line
`dicepod: ...` on stderr, a non-zero exit, never a traceback."""

import os
import sqlite3
import subprocess
import sys

import loggen
import pytest

from dicepod_host.store import Store


def _run(*args, timeout=30):
    return subprocess.run(
        [sys.executable, "-m", "dicepod_host.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _one_line_error(out, *words):
    assert out.returncode != 0, out.stdout + out.stderr
    assert "Traceback" not in out.stderr, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dicepod: "), out.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    f = {"dir": d}
    f["text"] = d / "notes.txt"
    f["text"].write_text("shopping list\neggs\n")
    f["binary"] = d / "blob.bin"
    f["binary"].write_bytes(os.urandom(3000).replace(b"SQLite", b"sqlite"))
    f["empty"] = d / "empty.jsonl"
    f["empty"].write_text("")
    f["json"] = d / "other.jsonl"
    f["json"].write_text('{"name": "not a dicepod"}\n{"v": 1}\n')
    f["corrupt"] = d / "corrupt.db"
    f["corrupt"].write_bytes(b"SQLite format 3\x00" + os.urandom(5000))
    f["foreign"] = d / "foreign.db"
    con = sqlite3.connect(f["foreign"])
    con.execute("CREATE TABLE people (name TEXT)")
    con.commit()
    con.close()
    f["db"] = d / "good.db"
    store = Store(f["db"])
    from dicepod import protocol_pc

    for line in loggen.standard()[1]:
        store.add_event(protocol_pc.parse(line))
    store.close()
    f["nogames"] = d / "nogames.jsonl"
    _s, lines = loggen.build([[("roll", (1, 2))]])
    f["nogames"].write_bytes(b"".join(lines))
    f["script"] = d / "bad_script.txt"
    f["script"].write_text("OK\nJUMP 3\n")
    return f


def test_log_no_such_port(files):
    _one_line_error(
        _run("log", "--port", "/dev/ttyNOPE9", "--db", str(files["dir"] / "x.db")), "no such port"
    )


def test_log_bad_url(files):
    _one_line_error(
        _run("log", "--port", "bogus://nowhere", "--db", str(files["dir"] / "x.db")),
        "cannot open port",
    )


def test_log_auto_without_a_pico(files):
    out = _run("log", "--port", "auto", "--db", str(files["dir"] / "x.db"))
    _one_line_error(out, "no dicepod found")


@pytest.mark.parametrize("name", ["corrupt", "foreign", "text", "dir"])
def test_log_bad_database(files, name):
    _one_line_error(_run("log", "--port", "/dev/null", "--db", str(files[name])))


@pytest.mark.parametrize(
    "name,word",
    [
        ("missing", "no such file"),
        ("dir", "directory"),
        ("text", "not a dicepod log"),
        ("binary", "not a dicepod log"),
        ("empty", "not a dicepod log"),
        ("json", "not a dicepod log"),
        ("corrupt", "database"),
        ("foreign", "not a dicepod database"),
    ],
)
def test_verify_bad_input(files, name, word):
    path = files["dir"] / "missing.jsonl" if name == "missing" else files[name]
    _one_line_error(_run("verify", str(path)), word)
    if name != "missing":
        _one_line_error(_run("stats", str(path)))


def test_verify_locked_rollback_journal_database(tmp_path):
    path = tmp_path / "old.db"
    Store(path).close()
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=DELETE")
    con.execute("BEGIN EXCLUSIVE")
    try:
        out = _run("verify", str(path))
    finally:
        con.rollback()
        con.close()
    _one_line_error(out, "locked")


@pytest.mark.parametrize("name", ["missing", "text", "corrupt", "foreign", "dir"])
def test_export_bad_database(files, name):
    path = files["dir"] / "missing.db" if name == "missing" else files[name]
    _one_line_error(_run("export", str(path)))


def test_export_bad_output_and_device(files):
    _one_line_error(
        _run("export", str(files["db"]), "-o", str(files["dir"] / "no" / "such" / "x.jsonl")),
        "cannot write",
    )
    _one_line_error(_run("export", str(files["db"]), "--device", "nobody"), "no device")


def test_stats_no_games_and_bad_png_dir(files):
    _one_line_error(_run("stats", str(files["nogames"])), "no games")
    _one_line_error(_run("stats", str(files["db"]), "--png", str(files["text"])), "directory")


def test_emulate_bad_input(files):
    _one_line_error(_run("emulate", "--script", str(files["dir"] / "nope.txt")), "no such script")
    _one_line_error(_run("emulate", "--script", str(files["script"])), "bad script")
    _one_line_error(_run("emulate", "--monkey", "-3"), "--monkey")
    _one_line_error(_run("emulate", "--monkey", "1", "--flash", str(files["text"])), "--flash")


def test_usage_errors_exit_2(files):
    out = _run("verify")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    out = _run("export", str(files["db"]), "--format", "xml")
    assert out.returncode == 2 and "Traceback" not in out.stderr
