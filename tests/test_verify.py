"""dicepod verify: clean logs pass; any single changed field of any event fails and names that
event; chain breaks, dice out of range and illegal moves are found and named."""

import json
import random

import loggen
import pytest
from checks import undone

from dicepod import journal, protocol, protocol_pc
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
        obj = protocol_pc.parse(lines[i])
        for key in ("ms", "game"):
            edited = dict(obj)
            edited[key] += 1
            line = protocol_pc.encode_event(
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
        assert [e for _s, e in pairs] == undone(events)


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
        store.add_event(protocol_pc.parse(line))
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


# -- issue 14: the rules' refusals are named by verify (docs/RULES.md ids) ------------------

_TY_CARDS = {
    "tyranid.actions_adrix": 3,
    "tyranid.actions_lukas": 3,
    "tyranid.wounded_maximus": 2,
    "tyranid.wounded_adrix": 2,
    "tyranid.wounded_raphael": 2,
    "tyranid.wounded_lukas": 2,
    "tyranid.wounded_vorne": 2,
    "tyranid.res_genestealer": 4,
    "tyranid.res_lictor": 5,
    "tyranid.res_prime": 5,
}
_T = 5  # the Tyranid activation card
_LAST_IS_MAXIMUS = (_T, 1, 1, 2, _T, 2, 3, _T, 3, 0, _T, 0)


def _tyranid_start(campaign=0):
    events = [("new_game", ("tyranid",))]
    events += [("set", (k, v)) for k, v in sorted(_TY_CARDS.items())]
    events.append(("start", (1, campaign, 0, 1, 2, 3)))
    return events


def _orks_start():
    events = [("new_game", ("orks",))]
    commands = {"magmus": 7, "stormheart": 5, "lucian": 8, "etrus": 6}
    events += [("set", ("orks.command_" + t, c)) for t, c in commands.items()]
    events += [("set", ("orks.actions_" + t, 1)) for t in commands]
    for kind in ("boy", "nob", "kommando"):
        events.append(("set", ("orks.tough_" + kind, 4)))
        events.append(("set", ("orks.damage_" + kind, 1)))
    events.append(("start", (0,)))
    events += [("add", (0, 1)), ("add", (0, 2)), ("add", (0, 3)), ("add", (1, 4)), ("add", (4, 5))]
    events.append(("next", ()))  # the Terminators: Angelus (9) first, then Lucian (8)
    return events


def _named(events, illegal, word):
    """The legal events verify; with one illegal event after them, verify names it."""
    assert verify.verify_records(_records(_journal_lines(events))).ok
    report = verify.verify_records(_records(_journal_lines(events + [illegal])))
    assert not report.ok
    first = report.problems[0]
    assert first.seq == len(events) + 1 and illegal[0] in first.message, first.message
    assert word in first.message, first.message


def test_verify_names_the_illegal_events_of_issue_14():
    # TY-4: no new round while the round's last Marine takes his turn
    ty = _tyranid_start() + [("shuffle", _LAST_IS_MAXIMUS)]
    for card in _LAST_IS_MAXIMUS:
        ty.append(("activate", (card,)))
        if card != _T and len(ty) < 11 + 12 + 11:
            ty.append(("end_turn", ()))
    if ty[-1][0] == "end_turn":
        ty.pop()
    _named(ty, ("shuffle", _LAST_IS_MAXIMUS), "round")
    # TY-5: a free attack after the last action is legal, a normal one is not
    spent = ty + [("move", ())] * 4
    _named(spent + [("attack", (0, 6, 1))], ("attack", (0, 6)), "turn")
    # TY-15: two extra Tyranid activation cards at most
    extra = _tyranid_start() + [("add_tyranid_card", ())] * 2
    _named(extra, ("add_tyranid_card", ()), "box")
    # TY-9: once the players ended the deck, no card is revealed
    ended = _tyranid_start() + [("shuffle", _LAST_IS_MAXIMUS), ("deck_out", ())]
    _named(ended, ("activate", (_T,)), "run out")
    # TY-14: only the unused Marine reinforces, after a loss in the level just finished
    camp = _tyranid_start(1) + [("wound", (2,)), ("wound", (2,))]
    camp += [("deck_out", ()), ("exit", (0,))]
    _named(camp, ("next_level", (4,)), "not won")
    # OR-8 / OR-10 / OR-16 / OR-6
    orks = _orks_start() + [("attack", (0, 1, 0, 0))] * 3 + [("move", ())] * 3
    _named(orks, ("attack", (0, 6, 0, 0)), "Attack")
    lucian = orks + [("next", ()), ("attack", (0, 1, 0, 0))]
    _named(lucian, ("attack", (0, 6, 0, 0)), "Attack")
    _named(lucian + [("move", ())], ("move", ()), "Move")
    healed = lucian + [("damage", (3, 2)), ("heal", (3,))]
    _named(healed, ("heal", (3,)), "healed")
    _named(lucian, ("hit", (3, 9)), "board")
    tied = [("new_game", ("orks",))]
    tied += [("set", ("orks.command_" + t, 7)) for t in ("magmus", "stormheart", "lucian")]
    tied += [("set", ("orks.command_etrus", 6))]
    _named(tied, ("start", (0,)), "order")
    # BG-13: the rows are the players' to enter; verify says which setting a move needs
    bg = [("new_game", ("battle",)), ("set", ("battle.table", 0))]
    bg += [("roll", (6, 1, 1, 2, 4, 4)), ("set_aside", (6,)), ("actions", ())]
    report = verify.verify_records(_records(_journal_lines(bg + [("end_turn", ())])))
    assert not report.ok and "battle.rows" in report.problems[0].message
    # BG-12: the player whose turn it is moves his heroes on, the enemy's only back
    pushed = bg[:1] + [("set", ("battle.rows", 3))] + bg[1:]
    pushed += [("advance", (0, 0, 2)), ("retreat", (0, 0, 1)), ("end_turn", ())]
    assert verify.verify_records(_records(_journal_lines(pushed))).ok
    enemy = bg[:1] + [("set", ("battle.rows", 3))] + bg[1:] + [("advance", (1, 0, 2))]
    assert not verify.verify_records(_records(_journal_lines(enemy))).ok


def _classroom_events():
    """The events of a Free roll lesson played on the real app (CPython, buttons at the pins):
    rolls, an undo, a self-test, two auto-rolls of 10, a reset (tests/portable/app_sessions)."""
    from app_board import Board
    from app_sessions import free_session

    from dicepod import journalfix
    from dicepod.app import App

    app = App(Board(seed=5))
    app.start()
    free_session(app, runs=(10, 10))
    return [entry[3] for _o, entry, _b in journalfix.read_entries(app.session.journal)]


def test_a_free_roll_lesson_with_a_reset_verifies_and_a_bad_reset_is_named():
    events = _classroom_events()
    kinds = [e[0] for e in events]
    assert kinds.count("reset") == 1 and kinds.count("roll") == 7 + 10 + 10
    # undone, the reset gives the counts back; then reset again
    events += [("undo", ()), ("roll", (6, 6, 6)), ("reset", ())]
    lines = loggen.build([events])[1]
    resets = [protocol_pc.parse(x) for x in lines if b'"reset"' in x]
    assert [obj["event"] for obj in resets] == [("reset", ())] * 2  # the protocol's check
    report = verify.verify_records(_records(lines))
    assert report.ok, [str(p) for p in report.problems]
    assert report.games == 1 and report.rules_checked == 1
    # the fold on the PC is the device's: the counts after the undone reset, then none
    from dicepod import replay
    from dicepod.rules import free

    pairs = verify.effective_pairs(list(enumerate(events)))
    game = free.Game()
    for _seq, event in pairs[:-1]:
        replay.step(game, event)
    rolled = [e for _s, e in pairs if e[0] == "roll"]
    assert game.rolls == len(rolled) == 7 - 1 + 10 + 10 + 1
    assert game.counts[6] == sum(r[1].count(6) for r in rolled)
    replay.step(game, pairs[-1][1])
    assert game.rolls == 0 and game.counts == [0] * 7
    # a reset carrying data is not one the device writes: named by seq
    bad = events + [("reset", (1,))]
    report = verify.verify_records(_records(_journal_lines(bad)))
    assert not report.ok
    first = report.problems[0]
    assert first.seq == len(bad) and first.message == "illegal reset: reset takes no data"
