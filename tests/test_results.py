"""Players and results: scripted games of every mode, journaled and sent as a device would, stored
in a real SQLite database, then `dicepod games`, `dicepod players`, the league and the export.
Every winner and score is checked against an independent fold of the same events through the
rules modules (what the device showed), not against numbers written here."""

import csv
import io
import json

import loggen
import test_orks
import test_tyranid
from seeded import Seeded

from dicepod import protocol_pc
from dicepod.rules import battle, free, orks, tn, tyranid
from dicepod.settings import Settings
from dicepod_host import results
from dicepod_host.cli import main
from dicepod_host.store import Store

DEV = "d1ce00000000beef"
J1, J2 = "0000000100000001", "0000000200000002"  # journal ids of a re-flashed device


def _with_sets(events, module, values):
    """A bot's game as the journal holds it: new_game, then a set event per card value."""
    sets = [("set", (k, v)) for k, v in sorted(values.items())]
    return [events[0]] + sets + events[1:]


def _battle_series(seed):
    """A whole best-of-three Battle Game series: roll, set aside the first choice or bust, push
    a hero forward, end the turn; an undo now and then (undone moves are played again)."""
    rng = Seeded(seed)
    game = battle.Game(None)
    # the players' board: 3 rows a half (the device asks it: docs/RULES.md BG-13)
    events = [("new_game", ("battle",)), ("set", ("battle.rows", 3))]
    events.append(("set", ("battle.table", 0)))  # moves not refereed (BG-11)
    for event in events:
        game.apply(event)

    def play(event):
        game.apply(event)
        events.append(event)

    while not game.series_over():
        if game.phase == battle.OVER:
            play(battle.next_game(1 - game.player))
            continue
        play(battle.roll(game, rng.randbelow))
        if game.phase == battle.BUST:
            play(battle.bust())
        else:
            play(battle.set_aside(game.choices()[0]))
            play(battle.actions())
            for hero in range(battle.HEROES):
                try:
                    play(battle.advance(game.player, (hero + rng.randbelow(5)) % 5, 1))
                    break
                except ValueError:
                    continue
            play(battle.end_turn())
    return events


def _rolloffs(seed, count, players=3):
    """A Tests game with count roll-offs among players and a few tests between them."""
    rng = Seeded(seed)
    game = tn.Game(None)
    events = [("new_game", ("tests",)), ("set", ("tests.players", players))]
    for e in events:
        game.apply(e)
    done = 0
    while done < count:
        event = tn.roll_off(game, rng.randbelow)
        game.apply(event)
        events.append(event)
        if not game.rolloff_in and game.rolloff_winner >= 0:
            done += 1
            event = tn.roll(game, 2, rng.randbelow) if game.tn_final else ("tn", (4,))
            game.apply(event)
            events.append(event)
    return events


def _db(tmp_path, games):
    _storage, lines = loggen.build(games, dev=DEV)
    path = tmp_path / "club.db"
    with Store(path) as store:
        for line in lines:
            store.add_event(protocol_pc.parse(line))
    return path


def _overs(events, module, over):
    """(result code, fold) at every play's end, by folding the events one by one."""
    game = module.Game(Settings(module.SETTINGS))
    out = []
    was = False
    for event in events:
        game.apply(event)
        now = game.phase == over
        if now and not was:
            out.append(game.result)
        was = now
    return out, game


def test_every_mode_result_against_the_rules_fold(tmp_path, capsys):
    series = [_battle_series(s) for s in (3, 4)]
    rolloffs = _rolloffs(5, 4)
    ty_events = _with_sets(test_tyranid._play(21, 900)[0], tyranid, test_tyranid.CARDS)
    ork_events = _with_sets(test_orks._play(22, 900)[0], orks, test_orks.CARDS)
    free_events = loggen.free_game(6, rolls=30)
    games = series + [rolloffs, ty_events, ork_events, free_events]
    db = _db(tmp_path, games)
    assert main(["players", db.as_posix(), DEV, "Ada", "Bo", "Cy"]) == 0
    capsys.readouterr()
    assert main(["games", str(db), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_mode = {}
    for row in rows:
        by_mode.setdefault(row["mode"], []).append(row)
    # Battle Game: the series winner and totals of the rules' own fold, named.
    for row, events in zip(by_mode["battle"], series):
        folded = battle.fold(loggen_effective(events))
        assert row["finished"] and folded.series_over()
        assert row["scores"] == folded.totals()
        won = folded.series_winner()
        assert row["winner"] == (["Ada", "Bo"][won] if won is not None else None)
        assert row["players"] == ["Ada", "Bo"]
    # Tests: roll-offs won per player, as the rules decided each one.
    game = tn.Game(None)
    wins = [0, 0, 0]
    for event in rolloffs:
        game.apply(event)
        if event[0] == "rolloff" and not game.rolloff_in:
            wins[game.rolloff_winner] += 1
    (row,) = by_mode["tests"]
    assert row["scores"] == wins and sum(wins) == 4 and row["players"] == ["Ada", "Bo", "Cy"]
    best = max(wins)
    assert row["winner"] == (
        ["Ada", "Bo", "Cy"][wins.index(best)] if wins.count(best) == 1 else None
    )
    # Co-op: one record per level or game played, each with the rules' result.
    codes, _g = _overs(loggen_effective(ty_events), tyranid, tyranid.OVER)
    finished = [r for r in by_mode["tyranid"] if r["finished"]]
    assert len(finished) == len(codes) >= 2
    side = {tyranid.LOSS: "loss", tyranid.DRAW: "draw"}
    assert [r["result"] for r in finished] == [side.get(c, "win") for c in codes]
    codes, _g = _overs(loggen_effective(ork_events), orks, orks.OVER)
    finished = [r for r in by_mode["orks"] if r["finished"]]
    assert len(finished) == len(codes) >= 2
    assert [r["result"] for r in finished] == ["win" if c == orks.WON else "loss" for c in codes]
    assert all(r["players"] == ["Ada", "Bo", "Cy"] for r in finished)
    # Free roll: the dice rolled, as the rules counted them.
    folded = free.Game(None)
    for event in loggen_effective(free_events):
        folded.apply(event)
    (row,) = by_mode["free"]
    assert row["scores"] == [folded.dice] and row["winner"] is None
    assert all(r["problem"] is None for r in rows)
    # The league: each battle series counted once per player, wins as the records say.
    names = {(DEV, "", g): ["Ada", "Bo"] for g in (1, 2)}
    table = results.league(results.fold_results(Store(db).events(), names))
    battle_rows = {r["player"]: r for r in table["modes"]["battle"]}
    won = [r["winner"] for r in by_mode["battle"]]
    assert battle_rows["Ada"]["played"] == 2 and battle_rows["Ada"]["won"] == won.count("Ada")
    (h2h,) = table["head_to_head"]["battle"]
    assert (h2h["a_won"], h2h["b_won"]) == (won.count("Ada"), won.count("Bo"))
    assert (
        0 <= battle_rows["Ada"]["low"] <= battle_rows["Ada"]["rate"] <= battle_rows["Ada"]["high"]
    )
    # The text listing and the league print the same winners.
    assert main(["games", str(db)]) == 0
    text = capsys.readouterr().out
    assert text.count("battle") == 2 and "%d game(s)" % len(rows) in text
    assert main(["games", str(db), "--league"]) == 0
    assert "battle: player" in capsys.readouterr().out


def loggen_effective(events):
    """The journal's undo applied to a game's events (as the device's fold sees them)."""
    from dicepod import journalfix

    return list(journalfix.effective(events))


def test_export_one_game_per_row_and_real_columns(tmp_path, capsys):
    db = _db(tmp_path, [_battle_series(7), loggen.free_game(8, rolls=12)])
    out = tmp_path / "games.csv"
    assert main(["export", str(db), "--table", "games", "--format", "csv", "-o", str(out)]) == 0
    table = list(csv.DictReader(io.StringIO(out.read_text())))
    assert [r["mode"] for r in table] == ["battle", "free"]
    assert table[0]["player_1"].endswith(":P1") and table[0]["finished"] == "1"
    folded = battle.fold(loggen_effective(_battle_series(7)))
    assert [int(table[0]["score_1"]), int(table[0]["score_2"])] == folded.totals()
    events = tmp_path / "events.csv"
    assert main(["export", str(db), "--format", "csv", "-o", str(events)]) == 0
    rows = list(csv.DictReader(io.StringIO(events.read_text())))
    roll = next(r for r in rows if r["kind"] == "roll")
    assert roll["mode"] == "battle" and roll["received"][:2] == "20"
    assert [roll["value_%d" % i] for i in range(1, 7)] == [str(v) for v in json.loads(roll["data"])]
    capsys.readouterr()
    assert main(["verify", str(events)]) == 0  # the CSV export still verifies
    jsonl = tmp_path / "games.jsonl"
    assert main(["export", str(db), "--table", "games", "-o", str(jsonl)]) == 0
    assert [json.loads(x)["mode"] for x in jsonl.read_text().splitlines()] == ["battle", "free"]


def _journal_lines(games, jid, dev=DEV):
    """The protocol lines (protocol 2: with the journal id) of games journalled on a device."""
    from dicepod import journal, protocol
    from dicepod.drivers.memstorage import MemoryStorage

    j = journal.Journal(MemoryStorage())
    j.recover()
    lines = []
    for events in games:
        for event in events:
            lines.append(protocol.event_line(dev, j.append(700 * len(lines), event), jid))
    return lines


def _store_lines(db, lines):
    with Store(db) as store:
        for line in lines:
            assert store.add_event(protocol_pc.parse(line)) == "new"


def _by_game(db):
    with Store(db, create=False) as store:
        return {(r.journal, r.game): r for r in results.results_of(store)}


def test_players_name_the_games_of_a_journal_logged_so_far(tmp_path, capsys):
    """Issue 47.2: names go to games, per journal: a device re-flashed has a game 1 in each
    journal, co-op games logged later do not take a versus game's names, --game may come
    before the device, and an ambiguous --game is refused."""
    db = tmp_path / "club.db"
    old_series = _battle_series(31)
    _store_lines(db, _journal_lines([old_series], J1))
    assert main(["players", str(db), "--game", "1", DEV, "Ada", "Bo"]) == 0
    assert "named 1 game(s)" in capsys.readouterr().out
    coop = _with_sets(test_tyranid._play(23, 300)[0], tyranid, test_tyranid.CARDS)
    new = _journal_lines([coop, _battle_series(32), loggen.free_game(9, rolls=5)], J2)
    third = next(i for i, line in enumerate(new) if b'"game":3' in line)
    _store_lines(db, new[:third])  # the re-flashed device's first two games
    games = _by_game(db)
    label = DEV[-4:]
    assert games[(J1, 1)].players == ["Ada", "Bo"]
    assert games[(J2, 1)].players == [f"{label}:team"]  # not the battle's names
    assert games[(J2, 2)].players == [f"{label}:P1", f"{label}:P2"]
    capsys.readouterr()
    assert main(["players", str(db), DEV, "Cy", "--game", "1"]) == 1
    assert "--journal" in capsys.readouterr().err
    assert main(["players", str(db), DEV, "--journal", J2, "--game", "1", "Cy", "Di"]) == 0
    assert main(["players", str(db), DEV, "Eve", "Fay"]) == 0  # the games without names
    assert f"named 1 game(s) of {DEV}: 2 (battle) journal {J2}" in capsys.readouterr().out
    _store_lines(db, new[third:])  # a game logged after the naming
    games = _by_game(db)
    assert games[(J1, 1)].players == ["Ada", "Bo"]
    winner = battle.fold(loggen_effective(old_series)).series_winner()
    assert games[(J1, 1)].winner == (["Ada", "Bo"][winner] if winner is not None else None)
    assert games[(J2, 1)].players == ["Cy", "Di"]
    assert games[(J2, 2)].players == ["Eve", "Fay"]
    assert games[(J2, 3)].players == [f"{label}:P1"]
    assert main(["players", str(db), DEV]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed == [
        f"{DEV} journal {J1} game 1: Ada, Bo",
        f"{DEV} journal {J2} game 1: Cy, Di",
        f"{DEV} journal {J2} game 2: Eve, Fay",
    ]


def test_a_database_with_standing_names_is_migrated_to_names_per_game(tmp_path):
    """A database of schema 3 with a device's standing names (game 0): they become the names of
    the games logged then, and a game named on its own keeps its names."""
    import sqlite3

    from dicepod_host import store as store_module

    db3 = tmp_path / "old3.db"
    con = sqlite3.connect(db3)
    for step, statements in store_module.MIGRATIONS:
        if step <= 3:
            for sql in statements:
                con.execute(sql)
    con.execute("INSERT INTO meta VALUES ('schema', '3')")
    con.execute("INSERT INTO devices VALUES (?, NULL, 0, 0)", (DEV,))
    for game in (1, 2):
        con.execute("INSERT INTO games VALUES (?, '', ?, 'battle', ?, 0)", (DEV, game, game))
    con.executemany(
        "INSERT INTO players VALUES (?, ?, ?, ?)",
        [(DEV, 0, 0, "Ada"), (DEV, 0, 1, "Bo"), (DEV, 2, 0, "Cy"), (DEV, 2, 1, "Di")],
    )
    con.commit()
    con.close()
    with Store(db3, create=False) as store:
        assert store.players() == {(DEV, "", 1): ["Ada", "Bo"], (DEV, "", 2): ["Cy", "Di"]}
    con = sqlite3.connect(db3)
    assert con.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == ("4",)
    con.close()


def test_the_league_shows_series_in_progress(tmp_path, capsys):
    """Issue 47.3: one game of a best of three on each of two devices: the standings show the
    players, the games played and the series under way, marked as such."""
    db = tmp_path / "club.db"
    other = "d1ce00000000cafe"
    played = {}
    for dev, seed in ((DEV, 35), (other, 36)):
        events = _battle_series(seed)
        cut = next(i for i, e in enumerate(events) if e[0] == "next_game")
        assert len(battle.fold(loggen_effective(events[:cut])).results) == 1
        _store_lines(db, _journal_lines([events[:cut]], "", dev=dev))
        played[dev] = events[:cut]
    capsys.readouterr()
    assert main(["games", str(db), "--league"]) == 0
    out = capsys.readouterr().out
    assert "no finished games" not in out
    lines = [line for line in out.splitlines() if ":P" in line]
    assert len(lines) == 4
    for dev in (DEV, other):
        for slot in (1, 2):
            (line,) = [x for x in lines if x.split()[0] == f"{dev[-4:]}:P{slot}"]
            assert line.split()[1:5] == ["0", "0", "0", "0"]
            assert "no finished game yet" in line
            assert "+ 1 in progress" in line and "(1 game(s) played)" in line
    table = results.league(results.results_of(Store(db, create=False)))
    rows = table["modes"]["battle"]
    assert sorted(r["in_progress"] for r in rows) == [1, 1, 1, 1]
    assert all(r["games"] == 1 and r["played"] == 0 for r in rows)


def test_wilson_interval_is_scipys():
    """Issue 47.7: the league's interval for whole wins is SciPy's Wilson score interval."""
    from scipy.stats import binomtest

    for wins, n in ((0, 1), (1, 1), (3, 10), (7, 9), (50, 100), (2, 40)):
        ci = binomtest(wins, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert results.wilson(wins, n) == (float(ci.low), float(ci.high))
    low, high = results.wilson(2.5, 5)  # a draw: half a win, the same formula
    assert 0 < low < 0.5 < high < 1 and abs((low + high) / 2 - 0.5) < 1e-12


def test_csv_exports_neutralise_formula_like_cells(tmp_path, capsys):
    """Issue 47.9: a cell a spreadsheet would run (= + - @, tab, CR first) is written as text
    (a leading '), as the OWASP CSV-injection guidance says; numbers stay numbers."""
    from dicepod_host.commands import export

    db = _db(tmp_path, [_battle_series(41)])
    hostile = ['=HYPERLINK("//x.io","w")', "@SUM(A1:A9)"]
    assert main(["players", str(db), DEV, *hostile]) == 0
    out = tmp_path / "games.csv"
    assert main(["export", str(db), "--table", "games", "--format", "csv", "-o", str(out)]) == 0
    (row,) = list(csv.DictReader(io.StringIO(out.read_text())))
    assert [row["player_1"], row["player_2"]] == ["'" + name for name in hostile]
    for value in row.values():
        assert not value.startswith(export.FORMULA_START), value
    folded = battle.fold(loggen_effective(_battle_series(41)))
    assert [int(row["score_1"]), int(row["score_2"])] == folded.totals()
    if folded.series_winner() is not None:
        assert row["winner"] == "'" + hostile[folded.series_winner()]
    assert [export.cell(v) for v in ("\tx", "\rx", "+1", "-1", "a=b", -3, 2.5)] == [
        "'\tx",
        "'\rx",
        "'+1",
        "'-1",
        "a=b",
        -3,
        2.5,
    ]
    events = tmp_path / "events.csv"
    assert main(["export", str(db), "--format", "csv", "-o", str(events)]) == 0
    capsys.readouterr()
    assert main(["verify", str(events)]) == 0
