"""dicepod stats: exact odds, chi-square p-values, counts from logged games, charts."""

import json
import math

import loggen

from dicepod_host import stats
from dicepod_host.cli import main


def test_p_values_match_known_chi_square_tables():
    # upper-tail critical values: (df, chi2, p)
    for df, chi2, p in ((5, 15.086, 0.01), (5, 11.070, 0.05), (1, 3.841, 0.05), (10, 23.209, 0.01)):
        assert math.isclose(stats.p_value(chi2, df), p, rel_tol=2e-3), (df, chi2)
    assert stats.p_value(0.0, 5) == 1.0
    assert stats.p_value(1000.0, 5) < 1e-100


def test_exact_battle_roll_odds():
    kinds, bust = stats._battle_roll_odds()
    # P(at least one six in six dice) = 1 - (5/6)^6
    assert math.isclose(kinds[0], 1 - (5 / 6) ** 6)
    assert 0 < bust < 0.1 and all(0 < k < 1 for k in kinds)


def test_counts_from_games(tmp_path, capsys):
    _storage, lines = loggen.build(
        [loggen.free_game(1, 40), loggen.battle_game(2, 30), loggen.tests_game(3, 40)]
    )
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"".join(lines))
    assert main(["stats", str(path), "--json", "--png", str(tmp_path / "png")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 3 and report["modes"] == {"free": 1, "battle": 1, "tests": 1}
    faces = report["faces"]
    assert sum(faces["counts"]) == faces["dice"] > 200
    assert 0 <= faces["p_value"] <= 1
    assert report["battle"]["battle_rolls"] > 0
    assert {r["tn"] for r in report["tests"]} <= {2, 3, 4, 5, 6}
    for name in ("faces.png", "battle.png", "tests.png"):
        assert (tmp_path / "png" / name).stat().st_size > 1000
    assert main(["stats", str(path), "--mode", "tests"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1 game(s)") and "Tests (per die)" in out


def test_a_loaded_die_is_not_fair(tmp_path, capsys):
    events = [("new_game", ("free",)), ("set", ("free.dice", 6))]
    events += [("roll", (6, 6, 6, 1, 2, 3))] * 200
    _storage, lines = loggen.build([events])
    path = tmp_path / "loaded.jsonl"
    path.write_bytes(b"".join(lines))
    assert main(["stats", str(path)]) == 0
    assert "NOT fair" in capsys.readouterr().out


def test_sums_bands_and_tests_against_brute_force(tmp_path, capsys):
    import itertools

    # The exact sum distributions against counting every outcome.
    for n in (2, 3, 4):
        ways = [0] * (5 * n + 1)
        for faces in itertools.product(range(1, 7), repeat=n):
            ways[sum(faces) - n] += 1
        assert [round(p * 6**n) for p in stats.sum_odds(n)] == ways

    games = [loggen.free_game(4, 120), loggen.tests_game(5, 80)]
    _storage, lines = loggen.build(games)
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"".join(lines))
    assert main(["stats", str(path), "--json", "--png", str(tmp_path / "png")]) == 0
    report = json.loads(capsys.readouterr().out)
    # Sums of N dice: counted from the same events, every fresh roll of N dice once.
    by_n = {}
    for events in games:
        for kind, data in events:  # every roll the dice made, undone ones included
            if kind == "roll" and 2 <= len(data) <= 6:
                by_n.setdefault(len(data), []).append(sum(data))
    assert {row["dice"] for row in report["sums"]} == set(by_n)
    for row in report["sums"]:
        assert row["counts"] == [by_n[row["dice"]].count(s) for s in row["sums"]]
        assert sum(row["counts"]) == row["rolls"] and math.isclose(sum(row["exact"]), 1.0)
        for q, (low, high) in zip(row["exact"], row["bands"]):
            assert low <= q * row["rolls"] <= high
    faces = report["faces"]
    assert faces["band"][0] < faces["expected"] < faces["band"][1]
    for row in report["tests"]:
        assert row["band"][0] <= row["exact"] <= row["band"][1] and 0 <= row["p_value"] <= 1
        assert row["trials"] == row["dice"]
    assert sorted(p.name for p in (tmp_path / "png").iterdir()) == ["faces.png", "sums.png",
                                                                    "tests.png"]  # fmt: skip


def test_a_reset_starts_the_device_counts_not_the_logged_statistics(tmp_path, capsys):
    from dicepod import journalfix
    from dicepod.rules import free

    # the device's expected curve of the sums (the dots on the sums view) is the PC's
    for n in range(1, 7):
        assert [round(p * 6**n) for p in stats.sum_odds(n)] == free.ways(n)[n:]
    events = loggen.free_game(6, 60, undo_every=0) + [("reset", ())]
    events += loggen.free_game(7, 30, undo_every=0)[1:] + [("reset", ()), ("undo", ())]
    _storage, lines = loggen.build([events])
    path = tmp_path / "lesson.jsonl"
    path.write_bytes(b"".join(lines))
    assert main(["stats", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    rolled = [d for kind, d in journalfix.effective(events) if kind == "roll"]
    counts = [sum(r.count(face) for r in rolled) for face in range(1, 7)]
    assert len(rolled) == 90 and report["faces"]["counts"] == counts
    assert report["faces"]["dice"] == sum(len(r) for r in rolled)
    # the device counts from the last (effective) reset: the second game's 30 rolls
    game = free.fold(journalfix.effective(events))
    assert game.rolls == 30 and game.counts[1:] == [
        sum(r.count(face) for r in rolled[60:]) for face in range(1, 7)
    ]


def _db_of(tmp_path, games, dev=loggen.DEV):
    """A database the logger's own ingest wrote from a device's protocol lines, with the head
    the device reported and a break it marked (as `dicepod log` stores them)."""
    from dicepod_host import logger
    from dicepod_host.store import Store

    _storage, lines = loggen.build(games, dev=dev)
    db = tmp_path / "games.db"
    with Store(db) as store:
        ingest = logger.Ingest(store)
        ingest.feed(b"".join(lines))
        assert ingest.counts["new"] == len(lines)
        store.note_head(dev, "", len(lines), None)
        store.add_break({"dev": dev, "from": len(lines) + 5, "to": len(lines) + 6, "prev": "0" * 8})
    return db


def test_stats_and_charts_of_a_logged_database(tmp_path, capsys):
    """Issue 47.1: a database holds head and break records beside the events (it crashed)."""
    games = [loggen.free_game(21, 30), loggen.battle_game(22, 20)]
    db = _db_of(tmp_path, games)
    assert main(["stats", str(db), "--json", "--png", str(tmp_path / "charts")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 2 and report["modes"] == {"free": 1, "battle": 1}
    from dicepod_host.verify import fresh_faces

    counts = [0] * 6
    for events in games:
        mode = events[0][1][0]
        for event in events:
            for face in fresh_faces(mode, event):
                counts[face - 1] += 1
    assert report["faces"]["counts"] == counts


def test_undone_rolls_count_for_fairness_not_for_results(tmp_path, capsys):
    """Issue 47.4: a roll undone and rolled again counts in the faces (the random source made
    it), and the charts say so; the Battle Rolls still fold the effective moves only."""
    from PIL import Image

    events = loggen.battle_game(23, 12)
    first = next(i for i, e in enumerate(events) if e[0] == "roll")
    undone = ("roll", (1, 1, 1, 1, 1, 1))
    events = events[:first] + [undone, ("undo", ())] + events[first:]
    free_events = [("new_game", ("free",)), ("roll", (6, 6)), ("undo", ()), ("roll", (2, 3))]
    _storage, lines = loggen.build([events, free_events])
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"".join(lines))
    assert main(["stats", str(path), "--json", "--png", str(tmp_path / "png")]) == 0
    report = json.loads(capsys.readouterr().out)
    faces = report["faces"]
    assert faces["undone"] == 8
    assert faces["counts"][0] >= 6 and faces["counts"][5] >= 2
    every = sum(len(d) for k, d in events + free_events if k in ("roll",)) + sum(
        len(d) - 1 - d[0] for k, d in events if k == "reroll"
    )
    assert faces["dice"] == every
    sums2 = next(r for r in report["sums"] if r["dice"] == 2)
    assert sums2["rolls"] == 2 and sums2["counts"][12 - 2] == 1 and sums2["counts"][5 - 2] == 1
    six = [d for k, d in events if k == "roll" and len(d) == 6]
    assert report["battle"]["battle_rolls"] == len(six) - 1  # the undone one left out
    title = Image.open(tmp_path / "png" / "faces.png").text["Title"]
    assert "undone" in title and "8 dice of undone rolls" in title
    assert (
        json.loads(Image.open(tmp_path / "png" / "faces.png").text["Description"])["faces"][
            "counts"
        ]
        == faces["counts"]
    )


def test_p_values_are_scipys_and_agree_with_the_devices_self_test():
    """Issue 47.7: the chi-square tail is SciPy's, and it says what the device's own integer
    self-test says (firmware/dicepod/rules/free.py) on the same counts."""
    import random

    from scipy.stats import chi2

    from dicepod.rules import free

    rng = random.Random(47)
    agree = 0
    for _trial in range(400):
        n = rng.choice((60, 120, 600, 6000))
        bias = rng.choice((0.0, 0.0, 0.02, 0.05))
        weights = [1 + bias * (f - 3.5) for f in range(1, 7)]
        rolled = rng.choices(range(1, 7), weights, k=n)
        counts = [0] + [rolled.count(f) for f in range(1, 7)]
        x = stats.chi_square(counts[1:], [n / 6] * 6)
        p = stats.p_value(x, 5)
        assert p == float(chi2.sf(x, 5))
        assert free.passes(counts) == (p >= 0.01) or abs(x - 15.086) < 1e-3, counts
        device = free.p_percent(counts)  # whole percent from the device's table
        pc = min(99, math.floor(100 * stats.p_value(free.chi_square_x100(counts) / 100, 5)))
        assert abs(device - pc) <= 1, (counts, device, pc)
        agree += device == pc
    assert agree >= 360  # the table's rounding moves a few by one percent
