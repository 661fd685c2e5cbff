"""Issue 47.5: `dicepod import` adds a simulator download (the protocol's JSON Lines), an export
(JSON Lines or the event CSV) or another database to a club's database: verified first, every
event stored exactly once, a tampered file refused whole, a conflicting event never stored."""

import json
import sqlite3

import loggen
from test_results import _battle_series, _journal_lines

from dicepod import protocol_pc
from dicepod_host.cli import main
from dicepod_host.store import Store

SIM_DEV = "5100000000000001"
SIM_JID = "00000a0100000a01"
CLUB_DEV = "c1ab000000000001"


def _rows(db):
    con = sqlite3.connect(db)
    try:
        return con.execute(
            "SELECT device, journal, seq, game, ms, kind, data, prev, crc, v FROM events "
            "ORDER BY device, journal, seq"
        ).fetchall()
    finally:
        con.close()


def _club(tmp_path):
    """A club database a logger wrote (the logger's own ingest) from one device."""
    from dicepod_host import logger

    _storage, lines = loggen.build([loggen.battle_game(5, 12)], dev=CLUB_DEV)
    db = tmp_path / "club.db"
    with Store(db) as store:
        ingest = logger.Ingest(store)
        ingest.feed(b"".join(lines))
        assert ingest.counts["new"] == len(lines)
    return db, lines


def test_a_simulator_download_joins_the_club_once(tmp_path, capsys):
    db, club_lines = _club(tmp_path)
    download = tmp_path / "dicepod-sim.jsonl"  # what the simulator's Download button saves
    lines = _journal_lines([_battle_series(51), loggen.free_game(52, 20)], SIM_JID, dev=SIM_DEV)
    download.write_bytes(b"".join(lines))
    capsys.readouterr()
    assert main(["games", str(download)]) == 1
    assert "dicepod import" in capsys.readouterr().err  # the way in, named
    assert main(["import", str(download), "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert f"{len(lines)} new event(s), 0 already stored, 0 conflict(s)" in out
    assert main(["import", str(download), "--db", str(db)]) == 0  # again: nothing new
    assert f"0 new event(s), {len(lines)} already stored" in capsys.readouterr().out
    rows = _rows(db)
    assert len(rows) == len(lines) + len(club_lines)
    mine = [r for r in rows if r[0] == SIM_DEV]
    for row, line in zip(mine, lines):
        obj = protocol_pc.parse(line)
        assert row == (SIM_DEV, SIM_JID, obj["seq"], obj["game"], obj["ms"], obj["event"][0],
                       json.dumps(list(obj["event"][1]), separators=(",", ":")), obj["prev"],
                       obj["crc"], obj["v"])  # fmt: skip
    assert main(["verify", str(db)]) == 0
    assert main(["games", str(db), "--device", SIM_DEV, "--json"]) == 0
    capsys.readouterr()
    assert main(["games", str(db), "--device", SIM_DEV, "--json"]) == 0
    games = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [g["mode"] for g in games] == ["battle", "free"] and games[0]["finished"]


def test_exports_and_databases_import_to_the_same_rows(tmp_path, capsys):
    db, _lines = _club(tmp_path)
    jsonl, csv_file = tmp_path / "events.jsonl", tmp_path / "events.csv"
    assert main(["export", str(db), "-o", str(jsonl)]) == 0
    assert main(["export", str(db), "--format", "csv", "-o", str(csv_file)]) == 0
    for name, files in (("a", [jsonl, csv_file]), ("b", [csv_file]), ("c", [db])):
        other = tmp_path / f"{name}.db"
        capsys.readouterr()
        assert main(["import", *map(str, files), "--db", str(other)]) == 0
        assert _rows(other) == _rows(db), name
        out = capsys.readouterr().out.splitlines()
        assert out[0].endswith(f"{len(_rows(db))} new event(s), 0 already stored, 0 conflict(s)"
                               f" -> {other}")  # fmt: skip
        if len(files) == 2:  # the CSV holds the same events as the JSON Lines: none new
            assert f"0 new event(s), {len(_rows(db))} already stored" in out[1]


def test_a_tampered_file_is_refused_whole_and_a_conflict_never_stored(tmp_path, capsys):
    db, _lines = _club(tmp_path)
    before = _rows(db)
    lines = _journal_lines([loggen.free_game(53, 10)], SIM_JID, dev=SIM_DEV)
    bad = lines[:]
    at = next(i for i, line in enumerate(bad) if b'"roll",[' in line)  # the first roll
    bad[at] = bad[at].replace(b'"roll",[', b'"roll",[6,')  # an edited roll: its checksum fails
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_bytes(b"".join(bad))
    capsys.readouterr()
    assert main(["import", str(tampered), "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert "does not verify" in err and f"seq {at + 1}" in err and "nothing imported" in err
    assert _rows(db) == before
    # The same device and journal, another history from seq 1: every event conflicts.
    first = tmp_path / "first.jsonl"
    first.write_bytes(b"".join(lines))
    other = _journal_lines([loggen.free_game(54, 10)], SIM_JID, dev=SIM_DEV)
    second = tmp_path / "second.jsonl"
    second.write_bytes(b"".join(other))
    assert main(["import", str(first), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["import", str(second), "--db", str(db)]) == 1
    captured = capsys.readouterr()
    assert "differ from the ones stored" in captured.err
    stored = [r for r in _rows(db) if r[0] == SIM_DEV]
    assert [r[8] for r in stored] == [protocol_pc.parse(x)["crc"] for x in lines]
