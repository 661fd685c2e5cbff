"""The dashboard in headless Chromium (Debian's, through Playwright): scripted games of every
mode in a real database, named players, `dicepod dash`'s server; the page's league table,
head-to-head and recent games must show the winners and scores the rules' own fold gives, the
dice charts their sample sizes, bands and tests; and while the real logger writes a new series
from a pty into the same database, the page updates by itself. Nothing is fetched from outside.
"""

import os
import re
import threading
import time
import tty

import loggen
import pytest
from test_results import DEV, _battle_series, _db, _rolloffs, loggen_effective
from test_sim_browser import CHROMIUM, LAUNCH_ARGS, needs_chromium

from dicepod.rules import battle
from dicepod_host import dash, logger, results
from dicepod_host.store import Store

pytestmark = [pytest.mark.browser, needs_chromium]


def test_dashboard_live_in_chromium(tmp_path):
    from playwright.sync_api import sync_playwright

    series = [_battle_series(s) for s in (11, 12, 13)]
    games = series + [_rolloffs(14, 3), loggen.free_game(15, rolls=40)]
    db = _db(tmp_path, games)
    with Store(db, create=False) as store:
        store.set_players(DEV, ["Ada", "Bo", "Cy"])
    expected = results.results_of(Store(db, create=False))
    server = dash.serve_in_thread(str(db))
    outside = []
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(
                executable_path=CHROMIUM, args=LAUNCH_ARGS, timeout=60_000
            )
            page = chromium.new_page()
            page.set_default_timeout(20_000)
            page.on(
                "request",
                lambda r: None if r.url.startswith(server.url) else outside.append(r.url),
            )
            page.goto(server.url)
            page.wait_for_selector("table.league.battle")
            # The league: each player's battle record as the results fold gives it.
            won = [battle.fold(loggen_effective(e)).series_winner() for e in series]
            rows = page.eval_on_selector_all(
                "table.league.battle tr", "rs => rs.map(r => r.innerText.split('\\t'))"
            )
            by_player = {r[0]: r for r in rows[1:]}
            assert set(by_player) == {"Ada", "Bo"}
            for i, name in enumerate(("Ada", "Bo")):
                row = by_player[name]
                assert row[1:5] == ["3", str(won.count(i)), str(won.count(None)),
                                    str(3 - won.count(i) - won.count(None))]  # fmt: skip
                assert re.search(r"\(95% \d+\.\d%-\d+\.\d%\)", row[5])
            h2h = page.inner_text("table.h2h.battle")
            assert "Ada" in h2h and "Bo" in h2h
            # Recent games: winners and scores as the records say.
            recent = page.eval_on_selector_all(
                "table.recent tr", "rs => rs.slice(1).map(r => r.innerText.split('\\t'))"
            )
            shown = {(r[1], r[2], r[3]): (r[5], r[6]) for r in recent}
            for r in expected:
                key = (r.device, str(r.game), r.mode)
                assert shown[key] == (r.winner or r.result or "", "-".join(map(str, r.scores)))
            # Dice: sample sizes, the band and the test on the faces chart, sums of N dice.
            faces = page.inner_text("#faces")
            stats_faces = dash.data(Store(db, create=False))["dice"]["faces"]
            assert "n = %d dice" % stats_faces["dice"] in faces and "chi-square" in faces
            # every roll counts for the dice, undone ones too, and the chart says so
            assert "%d of undone rolls included" % stats_faces["undone"] in faces
            assert stats_faces["undone"] > 0
            assert page.locator("#faces rect.band").count() == 6
            assert page.locator("#sum6 rect.bar").count() == 31  # sums 6..36
            assert "n = " in page.inner_text("#sum6")
            assert "p = " in page.inner_text("#tests") and "n = " in page.inner_text("#battle")
            # Live: the real logger writes another series into the same database.
            before = int(page.get_attribute("#status", "data-events"))
            _storage, lines = loggen.build([_battle_series(16)], dev="d1ce0000000000ff")
            master, slave = os.openpty()
            tty.setraw(slave)
            tty.setraw(master)

            def device():
                time.sleep(0.5)
                for line in lines:
                    os.write(master, line)
                    time.sleep(0.001)

            writer = threading.Thread(target=device, daemon=True)
            writer.start()
            store = Store(db)
            try:
                logged = logger.run(os.ttyname(slave), store, idle_exit=2.0)
            finally:
                writer.join(10)
                store.close()
                os.close(master)
                os.close(slave)
            assert logged.counts["new"] == len(lines)
            page.wait_for_function(
                "document.getElementById('status').dataset.events == %d" % (before + len(lines))
            )
            page.wait_for_function(
                "document.querySelector('table.recent').innerText.includes('00ff')"
            )
            chromium.close()
    finally:
        server.shutdown()
        server.server_close()
    assert outside == []
