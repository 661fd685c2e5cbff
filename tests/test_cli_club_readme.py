"""The README's club commands ("Logging games on a PC"), read from the README and run in its
order, on a database the real logger wrote from two emulated dicepods (the real firmware under
the real MicroPython unix port, USB serial on ptys): import, verify, players, games, the league,
both CSV exports, stats with its charts, and the dashboard's data. Every table and chart is
checked for values against the devices' own journals (read from their flash) folded through
the rules modules, not against the code under test. (`emulate --pico` is the slower, exact
variant of the same device: tests/test_pico_emulate.py runs it.)"""

import csv
import io
import json
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import loggen
import pytest
from harness import journal_event_lines
from PIL import Image
from test_end_to_end import SCRIPT, _reader, _wait_line

from dicepod import journal, journalfix, replay
from dicepod.rules import modes
from dicepod.settings import Settings
from dicepod_host.cli import main
from dicepod_host.verify import fresh_faces

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 240  # seconds: the whole test is bounded
MONKEY = "c1ab0000000000a1"  # the README's `emulate --monkey 500 --seed 1`
SCRIPTED = "c1ab0000000000a2"  # a scripted evening: free roll with an undo, a Battle Game
SIM = "5100000000000047"  # the simulator download imported


def readme_commands():
    """The `dicepod` commands of the README's club section, in order, as argument lists."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Logging games on a PC", 1)[1].split("\n## ", 1)[0]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    out = []
    for line in block.splitlines():
        words = shlex.split(line.split("#", 1)[0])
        assert words[0] == ".venv/bin/dicepod", line
        out.append(words[1:])
    return out


def _dicepod(*args, cwd):
    return subprocess.Popen(
        [sys.executable, "-m", "dicepod_host.cli", *args], cwd=cwd,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _games_of(lines):
    """[(game id, mode, raw events)] of a device's journal lines."""
    games = []
    for line in lines:
        (_seq, game, _ms, event, _prev), _body = journal.decode(line)
        if event[0] == "new_game":
            games.append((game, event[1][0], []))
        if games and games[-1][0] == game:
            games[-1][2].append(event)
    return games


def _fold(mode, events):
    """The rules' own fold of a game's effective events (what the device showed)."""
    module = modes.module(mode)
    game = module.Game(Settings(module.SETTINGS))
    for event in journalfix.effective(events):
        replay.step(game, event)
    return game


def _face_counts(journals):
    counts = [0] * 6
    for lines in journals.values():
        for _game, mode, events in _games_of(lines):
            for event in events:  # every roll, undone ones included
                for face in fresh_faces(mode, event):
                    counts[face - 1] += 1
    return counts


@pytest.mark.slow
def test_the_readme_club_commands_in_order(tmp_path, capsys, monkeypatch):
    deadline = time.monotonic() + TIMEOUT
    monkeypatch.chdir(tmp_path)
    commands = readme_commands()
    verbs = [c[0] for c in commands]
    assert verbs[:4] == ["emulate", "emulate", "log", "import"], verbs
    assert verbs[4:] == ["verify", "players", "games", "games", "export", "export", "stats",
                         "dash"], verbs  # fmt: skip
    (tmp_path / "games.txt").write_text(SCRIPT)
    pods = tmp_path / "pods"
    pods.mkdir()
    procs = []
    try:
        # emulate: the README's monkey device, and a scripted one beside it.
        flashes = {MONKEY: tmp_path / "flash_a1", SCRIPTED: tmp_path / "flash_a2"}
        assert commands[0][:2] == ["emulate", "--monkey"]
        emus = {}
        for dev, args in ((MONKEY, commands[0][1:]),
                          (SCRIPTED, ["--script", "games.txt", "--pace", "5"])):  # fmt: skip
            link = str(pods / dev)
            proc = _dicepod("emulate", *args, "--linger", "120", "--flash", str(flashes[dev]),
                            "--device-id", dev, "--link", link, cwd=tmp_path)  # fmt: skip
            procs.append(proc)
            emus[dev] = (proc, _reader(proc.stdout), _reader(proc.stderr))
        for _proc, out, _err in emus.values():
            _wait_line(out, "port: ", deadline, [])
        # log: every device, as `--port auto` would (emulated ports: a glob of their links).
        log_args = commands[2][1:]
        log_args[log_args.index("auto")] = str(pods / "*")
        logger = _dicepod("log", *log_args, "--quiet", cwd=tmp_path)
        procs.append(logger)
        last = {}
        for dev, (_proc, _out, err) in emus.items():
            done = _wait_line(err, "emulate: ", deadline, [])
            last[dev] = int(done.split("journal seq ")[1].split(",")[0])
        import sqlite3

        def stored():
            con = sqlite3.connect("file:games.db?mode=ro", uri=True, timeout=5)
            try:
                return dict(con.execute("SELECT device, COUNT(*) FROM events GROUP BY device"))
            except sqlite3.OperationalError:
                return {}
            finally:
                con.close()

        while stored() != last and time.monotonic() < deadline:
            assert logger.poll() is None, logger.stderr.read()
            time.sleep(0.2)
        assert stored() == last
        _stop(logger)
        assert logger.returncode == 0
    finally:
        for proc in procs:
            _stop(proc)
    journals = {dev: journal_event_lines(flash) for dev, flash in flashes.items()}
    assert {dev: len(lines) for dev, lines in journals.items()} == last
    # import: a simulator download (the protocol's own lines) joins the club, once.
    download = commands[3][1]
    sim_events = [loggen.battle_game(47, 16), loggen.free_game(48, 12)]
    _storage, sim_lines = loggen.build(sim_events, dev=SIM)
    (tmp_path / download).write_bytes(b"".join(sim_lines))
    capsys.readouterr()
    assert main(commands[3]) == 0
    assert f"{len(sim_lines)} new event(s), 0 already stored" in capsys.readouterr().out
    journals[SIM] = _journal_of(sim_events)  # the simulated device's journal
    games = {dev: _games_of(lines) for dev, lines in journals.items()}
    total = sum(len(lines) for lines in journals.values())
    # verify
    assert main(commands[4]) == 0
    out = capsys.readouterr().out
    n_games = sum(len(g) for g in games.values())
    assert out.startswith(f"OK: 3 device(s), {n_games} game(s), {total} event(s)"), out
    # players: the scripted device's games so far get Ada and Bo.
    players = [w if w != "DEVICE" else SCRIPTED for w in commands[5]]
    assert main(players) == 0
    named = games[SCRIPTED]
    assert f"named {len(named)} game(s) of {SCRIPTED}" in capsys.readouterr().out
    # games: one line per game result, each checked against the rules' fold.
    assert main([*commands[6], "--json"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert main(commands[6]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[-1] == f"{len(rows)} game(s)" and len(text) == len(rows) + 1
    by_game = {}
    for row in rows:
        by_game.setdefault((row["device"], row["game"]), []).append(row)
    assert {(d, g) for d in games for g, _m, _e in games[d]} == set(by_game)
    battles = 0
    for dev, device_games in games.items():
        for number, mode, events in device_games:
            mine = by_game[(dev, number)]
            assert {r["mode"] for r in mine} == {mode}
            folded = _fold(mode, events)
            if mode == "battle":
                battles += 1
                (row,) = mine
                assert row["scores"] == list(folded.totals())
                assert row["finished"] == folded.series_over()
                names = ["Ada", "Bo"] if dev == SCRIPTED else [f"{dev[-4:]}:P1", f"{dev[-4:]}:P2"]
                assert row["players"] == names
                won = folded.series_winner()
                assert row["winner"] == (names[won] if won is not None else None)
            elif mode == "free":
                assert mine[-1]["scores"] == [folded.dice]
    assert battles >= 2  # the scripted one and the simulator's
    with capsys.disabled():
        print("club: games %s, %d events, %d battle games"
              % ({d[-4:]: len(g) for d, g in games.items()}, total, battles))  # fmt: skip
    # games --league: the battle standings, series under way marked.
    assert main(commands[7]) == 0
    league = capsys.readouterr().out
    battle_rows = [r for r in rows if r["mode"] == "battle"]
    for name in ("Ada", "Bo"):
        mine = [r for r in battle_rows if name in r["players"]]
        (line,) = [x for x in league.splitlines() if x.split()[:1] == [name]]
        done = [r for r in mine if r["finished"]]
        won = sum(r["winner"] == name for r in done)
        drawn = sum(r["winner"] is None for r in done)
        assert line.split()[1:5] == [str(len(done)), str(won), str(drawn),
                                     str(len(done) - won - drawn)]  # fmt: skip
        going = len(mine) - len(done)
        assert (f"+ {going} in progress" in line) == bool(going)
    # export --table games: one row a game, the same results.
    assert main(commands[8]) == 0
    table = list(csv.DictReader(io.StringIO((tmp_path / commands[8][-1]).read_text())))
    assert len(table) == len(rows)
    for row, record in zip(table, rows):
        assert (row["device"], int(row["game"]), row["mode"]) == (
            record["device"], record["game"], record["mode"])  # fmt: skip
        scores = [int(row[f"score_{i + 1}"]) for i in range(len(record["scores"]))]
        assert scores == record["scores"]
        assert [row[f"player_{i + 1}"] for i in range(len(record["players"]))] == record["players"]
    # export (events, CSV): one row an event, as the devices journalled them; it verifies.
    assert main(commands[9]) == 0
    rows_out = list(csv.DictReader(io.StringIO((tmp_path / commands[9][-1]).read_text())))
    events = [r for r in rows_out if not r["kind"].startswith("#")]  # #head, #break: verify's
    assert len(events) == total
    assert {r["kind"] for r in rows_out if r["kind"].startswith("#")} <= {"#head", "#break"}
    for dev, lines in journals.items():
        mine = [r for r in events if r["device"] == dev]
        assert len(mine) == len(lines)
        for row, line in zip(mine, lines):
            (seq, game, ms, event, prev), _body = journal.decode(line)
            assert (int(row["seq"]), int(row["game"]), int(row["ms"]), row["kind"],
                    tuple(json.loads(row["data"])), row["prev"]) == (
                        seq, game, ms, event[0], tuple(event[1]), prev)  # fmt: skip
    capsys.readouterr()
    assert main(["verify", commands[9][-1]]) == 0
    assert capsys.readouterr().out.startswith("OK: 3 device(s)")
    # stats --png charts/: every die the devices rolled; each chart's own numbers.
    assert main([*commands[10], "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    counts = _face_counts(journals)
    assert report["faces"]["counts"] == counts and report["games"] == n_games
    charts = tmp_path / commands[10][-1]
    faces_png = Image.open(charts / "faces.png")
    assert json.loads(faces_png.text["Description"])["faces"]["counts"] == counts
    assert "undone rolls included" in faces_png.text["Title"]
    sums = json.loads(Image.open(charts / "sums.png").text["Description"])["sums"]
    together = {}  # dice rolled together -> {sum: rolls}
    for dev_games in games.values():
        for _g, mode, evs in dev_games:
            for event in evs:
                faces = fresh_faces(mode, event)
                if 2 <= len(faces) <= 6:
                    by_sum = together.setdefault(len(faces), {})
                    by_sum[sum(faces)] = by_sum.get(sum(faces), 0) + 1
    assert [row["dice"] for row in sums] == sorted(together)
    for row in sums:
        assert row["counts"] == [together[row["dice"]].get(x, 0) for x in row["sums"]]
        assert sum(row["counts"]) == row["rolls"]
    battle_png = json.loads(Image.open(charts / "battle.png").text["Description"])["battle"]
    six = sum(
        1 for dev_games in games.values() for _g, mode, evs in dev_games if mode == "battle"
        for e in journalfix.effective(evs) if e[0] == "roll" and len(e[1]) == 6
    )  # fmt: skip
    assert battle_png["battle_rolls"] == six == report["battle"]["battle_rolls"]
    # dash: the page's data, from the same database.
    dash = _dicepod(*commands[11][:2], "--port", "0", cwd=tmp_path)
    try:
        url = _wait_line(_reader(dash.stdout), "dicepod dashboard: ", deadline, []).split()[2]
        with urllib.request.urlopen(url + "data.json", timeout=30) as reply:
            data = json.loads(reply.read())
    finally:
        _stop(dash)
    assert data["events"] == total and sorted(data["devices"]) == sorted(journals)
    assert data["dice"]["faces"]["counts"] == counts
    assert data["games"] == len(rows)
    shown = {r["player"]: r for r in data["league"]["battle"]}
    assert {"Ada", "Bo"} <= set(shown)


def _journal_of(games):
    """The journal lines a device writes for games (what the simulator's flash holds)."""
    from dicepod.drivers.memstorage import MemoryStorage

    j = journal.Journal(MemoryStorage())
    j.recover()
    lines = []
    ms = 0
    for events in games:
        for event in events:
            lines.append(j.append(ms, event))
            ms += 700
    return lines
