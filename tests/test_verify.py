"""dicepod verify: clean logs pass; any single changed field of any event fails and names that
event; chain breaks, dice out of range and illegal moves are found and named."""

import json
import random

import loggen
import pytest

from dicepod import journal, protocol
from dicepod_host import verify
from dicepod_host.cli import main
from dicepod_host.store import Store


def _records(lines):
    return verify._load_jsonl(b"".join(lines).decode())


def _write(tmp_path, lines, name="log.jsonl"):
    path = tmp_path / name
    path.write_bytes(b"".join(lines))
    return path


def test_clean_log_verifies(tmp_path, capsys):
    _storage, lines = loggen.standard()
    report = verify.verify_records(_records(lines))
    assert report.ok, [str(p) for p in report.problems]
    assert report.games == 4 and report.rules_checked == 4 and report.events == len(lines)
    assert main(["verify", str(_write(tmp_path, lines))]) == 0
    assert capsys.readouterr().out.startswith("OK: 1 device(s), 4 game(s)")


def _field_edits(obj):
    """Yield (field name, edited object) for every single field of a parsed line."""
    for key in ("v", "seq", "game", "ms"):
        edited = dict(obj)
        edited[key] = obj[key] + 1
        yield key, edited
    edited = dict(obj)
    edited["type"] = "hello"
    yield "type", edited
    for key in ("dev", "prev", "crc"):
        edited = dict(obj)
        value = obj[key]
        edited[key] = value[:-1] + ("0" if value[-1] != "0" else "1")
        yield key, edited
    kind, data = obj["event"]
    edited = dict(obj)
    edited["event"] = [kind[:-1] + ("x" if kind[-1] != "x" else "y"), data]
    yield "kind", edited
    for i, value in enumerate(data):
        edited = dict(obj)
        new = list(data)
        new[i] = value + 1 if isinstance(value, int) else value + "x"
        edited["event"] = [kind, new]
        yield "data[%d]" % i, edited


def _line_of(obj):
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


def test_every_single_field_change_is_named():
    _storage, lines = loggen.build([loggen.free_game(5, rolls=10), loggen.battle_game(6, 6)])
    checked = 0
    for i, line in enumerate(lines):
        obj = json.loads(line)
        for field, edited in _field_edits(obj):
            tampered = list(lines)
            tampered[i] = _line_of(edited)
            report = verify.verify_records(_records(tampered))
            assert not report.ok, (i, field)
            first = report.problems[0]
            assert first.line == i + 1, (i, field, str(first))
            checked += 1
    assert checked > 300


def test_changed_field_with_fixed_checksum_still_breaks_the_chain():
    # A tamperer who recomputes the checksum: the next event's prev no longer matches.
    _storage, lines = loggen.build([loggen.free_game(7, rolls=12)])
    for i in range(len(lines) - 1):
        obj = protocol.parse(lines[i])
        for key in ("ms", "game"):
            edited = dict(obj)
            edited[key] += 1
            line = protocol.encode_event(
                edited["dev"],
                edited["seq"],
                edited["game"],
                edited["ms"],
                edited["event"],
                edited["prev"],
            )
            tampered = list(lines)
            tampered[i] = line
            report = verify.verify_records(_records(tampered))
            assert not report.ok, (i, key)
            assert report.problems[0].seq in (i + 1, i + 2)


def test_missing_duplicate_and_reordered_events():
    _storage, lines = loggen.build([loggen.free_game(8, rolls=10)])
    gone = lines[:5] + lines[6:]
    report = verify.verify_records(_records(gone))
    assert not report.ok and report.problems[0].seq == 7
    assert "seq 6 missing" in report.problems[0].message
    dup = lines[:5] + [lines[4]] + lines[5:]
    report = verify.verify_records(_records(dup))
    assert not report.ok and "duplicate" in report.problems[0].message
    # Swapped lines with their fields intact are the same log (sorted by seq): still OK.
    swapped = lines[:3] + [lines[4], lines[3]] + lines[5:]
    assert verify.verify_records(_records(swapped)).ok
    # Truncated start: seq 1 missing.
    report = verify.verify_records(_records(lines[2:]))
    assert not report.ok and report.problems[0].seq == 3


def _journal_lines(events, dev=loggen.DEV):
    """Protocol lines for events journaled as they are (no rules check): a 'device' that lies."""
    j = journal.Journal(loggen.MemoryStorage())
    j.recover()
    return [protocol.event_line(dev, j.append(10 * i, e)) for i, e in enumerate(events)]


def test_dice_value_out_of_range_is_named():
    events = loggen.free_game(9, rolls=5, undo_every=0)
    bad_at = len(events)
    events.append(("roll", (3, 7, 1, 2, 2, 4)))
    report = verify.verify_records(_records(_journal_lines(events)))
    assert not report.ok
    first = report.problems[0]
    assert first.seq == bad_at + 1 and "outside 1-6" in first.message


def test_illegal_set_aside_is_named():
    events = loggen.battle_game(10, turns=3)
    events.append(("roll", (1, 1, 1, 2, 3, 4)))
    seq = len(events) + 1
    events.append(("set_aside", (6,)))  # no six was rolled
    report = verify.verify_records(_records(_journal_lines(events)))
    assert not report.ok
    first = report.problems[0]
    assert first.seq == seq and "set_aside" in first.message and first.game == 1


def test_undone_events_are_not_folded_and_undo_matches_the_journal():
    rng = random.Random(4)
    for _ in range(200):
        events = [("new_game", ("free",))]
        for i in range(rng.randrange(25)):
            events.append(("undo", ()) if rng.random() < 0.35 else ("roll", (i % 6 + 1,)))
        pairs = verify.effective_pairs(list(enumerate(events)))
        assert [e for _s, e in pairs] == journal.effective(events)


def test_missing_rules_module_is_a_note_not_a_failure(monkeypatch):
    _storage, lines = loggen.build([loggen.free_game(11), loggen.battle_game(12, 4)])
    real = verify.modes.module

    def no_battle(name):
        if name == "battle":
            raise ImportError("no module named dicepod.rules.battle")
        return real(name)

    monkeypatch.setattr(verify.modes, "module", no_battle)
    report = verify.verify_records(_records(lines))
    assert report.ok and report.rules_checked == 1
    assert any("rules for mode battle are not available" in n for n in report.notes)
    # ... but dice values and the chain are still checked for that game
    events = loggen.battle_game(12, 2) + [("roll", (0, 1, 2, 3, 4, 5))]
    report = verify.verify_records(_records(_journal_lines(events)))
    assert not report.ok and "outside 1-6" in report.problems[0].message


def test_unknown_mode_is_a_problem():
    report = verify.verify_records(_records(_journal_lines([("new_game", ("chess",))])))
    assert not report.ok and "unknown mode" in report.problems[0].message


def test_verify_db_csv_and_json_output(tmp_path, capsys):
    _storage, lines = loggen.standard()
    db = tmp_path / "log.db"
    store = Store(db)
    for line in lines:
        store.add_event(protocol.parse(line))
    store.close()
    assert main(["verify", str(db)]) == 0
    csv_path = tmp_path / "log.csv"
    assert main(["export", str(db), "--format", "csv", "-o", str(csv_path)]) == 0
    assert main(["verify", str(csv_path)]) == 0
    jsonl = tmp_path / "log.jsonl"
    assert main(["export", str(db), "-o", str(jsonl)]) == 0
    assert jsonl.read_bytes() == b"".join(lines)  # the export is the device's own lines
    capsys.readouterr()
    # tamper one CSV cell: named by its line
    rows = csv_path.read_text().splitlines()
    cells = rows[9].split(",")
    cells[4] = str(int(cells[4]) + 1)  # ms
    rows[9] = ",".join(cells)
    csv_path.write_text("\n".join(rows) + "\n")
    assert main(["verify", "--json", str(csv_path)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert not report["ok"] and report["problems"][0]["line"] == 10


@pytest.mark.parametrize("field", ["seq", "data"])
def test_cli_names_the_tampered_event(tmp_path, capsys, field):
    _storage, lines = loggen.standard()
    obj = json.loads(lines[20])
    if field == "seq":
        obj["seq"] += 5
    else:
        obj["event"][1][0] = obj["event"][1][0] % 6 + 1 if obj["event"][1] else 1
    tampered = lines[:20] + [_line_of(obj)] + lines[21:]
    assert main(["verify", str(_write(tmp_path, tampered))]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "(line 21)" in out.splitlines()[-1]
