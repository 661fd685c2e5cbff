"""Issue 47.6: the live view of `dicepod log` shows what a club watches, one row per device:
its mode, players, score or state, the last roll, events stored and problems (a gap the device
is asked for, a conflict, events lost to flash damage), redrawn in place by the real logger over
real ptys; `--raw` keeps the raw event table."""

import io
import os
import threading
import time
import tty

import loggen
from test_results import _battle_series, _journal_lines, _rolloffs

from dicepod import journalfix, protocol, protocol_pc
from dicepod_host import logger, results
from dicepod_host.commands.log import LiveView, RawView
from dicepod_host.store import Store

BATTLE_DEV = "d1ce00000000b001"
TESTS_DEV = "d1ce00000000b002"
JID = "00000b0100000b01"


def _pty():
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    return master, slave


def _console():
    from rich.console import Console

    return Console(file=io.StringIO(), record=True, width=200, force_terminal=True)


def _play(db, feeds, view):
    """Run the real logger on one pty per device while each feed's lines are written."""
    ptys = [_pty() for _ in feeds]

    def device(master, lines):
        time.sleep(0.3)
        for line in lines:
            os.write(master, line)
            time.sleep(0.002)

    threads = [
        threading.Thread(target=device, args=(m, lines), daemon=True)
        for (m, _s), lines in zip(ptys, feeds)
    ]
    for t in threads:
        t.start()
    store = Store(db)
    try:
        return logger.run([os.ttyname(s) for _m, s in ptys], store, view=view, idle_exit=2.0)
    finally:
        for t in threads:
            t.join(10)
        store.close()
        for m, s in ptys:
            os.close(m)
            os.close(s)


def test_the_live_view_shows_each_device_its_game_and_problems(tmp_path):
    db = tmp_path / "club.db"
    Store(db).close()
    series = _battle_series(61)
    cut = next(i for i, e in enumerate(series) if e[0] == "next_game") + 6
    battle_lines = _journal_lines([series[:cut]], JID, dev=BATTLE_DEV)
    # The last three events never arrive, and the device says it has them: a gap.
    gap = battle_lines[:-3] + [protocol.pong_line(BATTLE_DEV, len(battle_lines), 0, 0, JID)]
    tests_events = _rolloffs(62, 3, players=2)
    _storage, tests_lines = loggen.build([tests_events], dev=TESTS_DEV)
    n = len(tests_lines)
    damaged = protocol.break_line(TESTS_DEV, "", journalfix.break_line(n + 1, n + 2, "0badf00d"))
    conflict = loggen.build([loggen.free_game(63, 2)], dev=TESTS_DEV)[1][0]  # another seq 1
    console = _console()
    view = LiveView("ports", str(db), console=console)
    run = _play(db, [gap, tests_lines + [damaged, conflict]], view)
    view.close()
    assert run.counts["new"] == len(gap) - 1 + n and run.counts["conflict"] == 1
    text = console.export_text()
    last = text[text.rfind("dicepod log") :]  # the last frame drawn
    rows = {line.split("│")[1].strip(): line for line in last.splitlines() if "d1ce" in line}
    battle_row = [c.strip() for c in rows[f"{BATTLE_DEV} ({JID[:8]})"].split("│")[1:-1]]
    tests_row = [c.strip() for c in rows[TESTS_DEV].split("│")[1:-1]]
    # Battle: the score of the game in play as the rules fold it (the gap: the events stored).
    stored = [protocol_pc.parse(x) for x in gap[:-1]]
    (folded,) = results.fold_game(stored, False, {})
    assert folded.problem is None and folded.rounds == 1
    label = BATTLE_DEV[-4:]
    assert battle_row[1:3] == ["battle", f"{label}:P1 v {label}:P2"]
    assert battle_row[3].startswith("-".join(map(str, folded.scores)))
    assert "1 of 3 games played" in battle_row[3]
    rolled = [o["event"][1] for o in stored if o["event"][0] == "roll"]
    assert battle_row[4] == " ".join(map(str, rolled[-1]))
    assert battle_row[5] == str(len(stored))
    assert "3 missing (asking the device)" in battle_row[6]
    # Tests: the roll-offs won, the last roll, the conflict on its port.
    (tests_result,) = results.fold_game([protocol_pc.parse(x) for x in tests_lines], False, {})
    assert tests_row[1] == "tests" and tests_row[3].startswith(
        "-".join(map(str, tests_result.scores))
    )
    assert tests_row[5] == str(len(tests_lines))
    assert "1 conflict(s)" in tests_row[6] and "2 lost to flash damage" in tests_row[6]
    assert "new %d" % run.counts["new"] in last and "conflict 1" in last


def test_raw_keeps_the_event_lines(tmp_path):
    db = tmp_path / "raw.db"
    Store(db).close()
    _storage, lines = loggen.build([loggen.free_game(64, 5)], dev=TESTS_DEV)
    console = _console()
    view = RawView("ports", str(db), console=console)
    _play(db, [lines], view)
    view.close()
    last = console.export_text()
    last = last[last.rfind("dicepod log") :]
    for line in lines[-5:]:
        obj = protocol_pc.parse(line)
        assert " ".join(str(v) for v in obj["event"][1]) in last
