"""`dicepod sim --export DIR`: the simulator as a folder that needs no server. The export is
reproducible and prints its size; the exported page reaches ready, plays and keeps its game over
a reload, fetching nothing but its own folder, in headless Chromium (Playwright) from file://
and over a plain static server (python's http.server), and in Debian's firefox-esr (headless,
WebDriver BiDi through puppeteer-core: tests/support/firefox_sim.mjs) from file://. Every frame
is compared with the firmware's own rendering under CPython (tests/support/sim_reference.py)."""

import functools
import json
import os
import shutil
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from test_sim_browser import (
    CHROMIUM,
    KEYS,
    LAUNCH_ARGS,
    SETTLE_MS,
    _share,
    check_chart,
    check_screen,
    needs_chromium,
    press,
)

from dicepod import protocol_pc

ROOT = Path(__file__).resolve().parent.parent
FIREFOX = shutil.which("firefox-esr") or "/usr/bin/firefox-esr"
DRIVER = Path(__file__).resolve().parent / "support" / "firefox_sim.mjs"
SEED = 7
# Free roll (the main menu's fifth row): a roll, one die fewer (shown at once), a roll.
PLAY = ["DOWN", "DOWN", "DOWN", "DOWN", "OK", "OK", "DOWN", "OK"]

sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))

from sim_reference import Reference, frame_ascii  # noqa: E402

needs_firefox = pytest.mark.skipif(
    not os.path.exists(FIREFOX) or not (ROOT / "node_modules" / "puppeteer-core").is_dir(),
    reason="firefox-esr or puppeteer-core is missing (./dev setup --browser installs them)",
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    from dicepod_host.sim.export import export

    dest = tmp_path_factory.mktemp("export")
    export(dest)
    return dest


def test_export_is_reproducible_and_prints_its_size(tmp_path, capsys):
    from dicepod_host.cli import main

    assert main(["sim", "--export", str(tmp_path / "a")]) == 0
    printed = capsys.readouterr().out
    assert main(["sim", "--export", str(tmp_path / "b")]) == 0
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == ["README.txt", "dicepod-data.js", "index.html"]
    total = 0
    for name in names:
        data = (tmp_path / "a" / name).read_bytes()
        assert data == (tmp_path / "b" / name).read_bytes(), name
        assert f"{name:<16} {len(data):>10,} bytes" in printed
        total += len(data)
    assert f"3 files, {total:,} bytes" in printed
    page = (tmp_path / "a" / "index.html").read_text()
    # Nothing the page loads lies outside the folder: no module file, no fetch of the server's.
    assert 'src="dicepod-data.js"' in page and 'src="sim.js"' not in page
    assert "mp/micropython" not in page and "bundle.json" not in page.split("fetch(")[0]
    data = (tmp_path / "a" / "dicepod-data.js").read_text()
    assert data.count('"wasm":"data:application/wasm;base64,AGFzbQ') == 1  # "\0asm"


def reference_frames(keys):
    ref = Reference(SEED)
    frames = [ref.frame().hex()]
    for name in keys:
        ref.press(name, SETTLE_MS)
        frames.append(ref.frame().hex())
    ref.start()  # the reload: a reboot on the same flash
    return ref, frames, ref.frame().hex()


def event_keys(lines):
    objs = [protocol_pc.parse(line) for line in lines]
    return [(o["seq"], o["game"], o["event"]) for o in objs]


def play_in_chromium(url, allowed):
    from playwright.sync_api import sync_playwright

    outside = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=LAUNCH_ARGS, timeout=60_000
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(30_000)
            page.on(
                "request",
                lambda r: None if r.url.startswith((allowed, "data:")) else outside.append(r.url),
            )
            page.goto(url + "?seed=%d" % SEED)
            page.wait_for_function("window.dicepod && window.dicepod.ready")
            page.wait_for_function(
                'window.dicepod.usbLines.some(l => l.includes(\'"type":"end"\'))'
            )
            page.wait_for_timeout(SETTLE_MS)
            ref = Reference(SEED)
            check_screen(page, ref, "start")
            for i, name in enumerate(PLAY):
                press(page, "click", name)
                ref.press(name, SETTLE_MS)
                check_screen(page, ref, "step %d (%s)" % (i + 1, name))
            counts = ref.app.session.game.counts
            check_chart(page, counts, 2)  # the Free roll chart beside the screen
            before = page.evaluate("window.dicepod.eventLines")
            page.reload()
            page.wait_for_function("window.dicepod && window.dicepod.ready")
            page.wait_for_function(
                'window.dicepod.usbLines.some(l => l.includes(\'"type":"end"\'))'
            )
            page.wait_for_timeout(SETTLE_MS)
            ref.start()
            check_screen(page, ref, "after reload")
            check_chart(page, counts, 2)  # drawn again from the events sent after the reload
            after = page.evaluate("window.dicepod.eventLines")
            assert page.evaluate("window.dicepod.errors") == []
        finally:
            browser.close()
    assert outside == [], "the exported page fetched outside its folder"
    kinds = [event for _, _, event in event_keys(before)]
    assert tuple(kinds[0]) == ("new_game", ("free",)) and kinds[-1][0] == "roll"
    assert event_keys(after) == event_keys(before)


@pytest.mark.browser
@needs_chromium
def test_exported_page_in_chromium_from_a_file(folder):
    play_in_chromium((folder / "index.html").as_uri(), folder.as_uri() + "/")


@pytest.mark.browser
@needs_chromium
def test_exported_page_in_chromium_from_a_static_server(folder):
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *args: None
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        base = "http://127.0.0.1:%d/" % httpd.server_address[1]
        play_in_chromium(base, base)
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.browser
@needs_firefox
def test_exported_page_in_firefox_from_a_file(folder):
    url = (folder / "index.html").as_uri() + "?seed=%d" % SEED
    keys = [KEYS[name] for name in PLAY]
    result = subprocess.run(
        ["node", str(DRIVER), FIREFOX, url, *keys],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    got = json.loads(result.stdout.splitlines()[-1])
    assert got["errors"] == []
    assert "ready in" in got["status"]
    ref, frames, reloaded = reference_frames(PLAY)
    for i, (have, want) in enumerate(zip(got["frames"], frames, strict=True)):
        assert have == want, "step %d: Firefox's frame differs\n%s\n\n%s" % (
            i,
            frame_ascii(bytes.fromhex(have)),
            frame_ascii(bytes.fromhex(want)),
        )
    assert got["reloaded"] == reloaded
    kinds = [event for _, _, event in event_keys(got["events"])]
    assert tuple(kinds[0]) == ("new_game", ("free",)) and kinds[-1][0] == "roll"
    assert event_keys(got["eventsAfter"]) == event_keys(got["events"])
    # The Free roll chart in Firefox too, before and after the reload: the device's counts.
    counts = ref.app.session.game.counts
    shares = [_share(c, sum(counts)) for c in counts[1:]]
    for chart in (got["chart"], got["chartAfter"]):
        assert chart["hidden"] is False and chart["title"] == ["Free roll: 11 dice in 2 rolls"]
        assert chart["xtitle"] == ["Face"] and chart["ytitle"] == ["Rolls"]
        assert chart["xticks"] == ["1", "2", "3", "4", "5", "6"]
        assert chart["counts"] == [str(c) for c in counts[1:]] and chart["pcts"] == shares
        assert chart["table"] == [[str(f), str(counts[f]), shares[f - 1]] for f in range(1, 7)]
    outside = [u for u in got["requests"] if not u.startswith((folder.as_uri() + "/", "data:"))]
    assert outside == [], "the exported page fetched outside its folder"
