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
    from dicepod import journalfix

    games = [loggen.free_game(4, 120), loggen.tests_game(5, 80)]
    _storage, lines = loggen.build(games)
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"".join(lines))
    assert main(["stats", str(path), "--json", "--png", str(tmp_path / "png")]) == 0
    report = json.loads(capsys.readouterr().out)
    # Sums of N dice: counted from the same events, every fresh roll of N dice once.
    by_n = {}
    for events in games:
        for kind, data in journalfix.effective(events):  # undo applied, as the device folds
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
