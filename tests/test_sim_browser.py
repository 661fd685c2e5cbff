"""The browser simulator in headless Chromium (Debian's, through Playwright): play a Battle Game
turn and Tests rolls by pressing the page's buttons and keys, and after every
press compare

- the frame the firmware drew and the canvas's pixels with the firmware's own rendering of the
  same session under CPython (tests/support/sim_reference.py: the real App and drivers, the same
  seeded random bytes: the page's ?seed= hook);
- the USB panel's events with those the same device sends under CPython (seq, game, event;
  the ms differ: the browser runs in real time), the hash chain, and the downloaded log with
  `dicepod verify`;
- after a reload, that the game resumes from localStorage (same frame as a rebooted reference).
"""

import base64
import contextlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dicepod import protocol_pc

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SEED = 7
SETTLE_MS = 350  # after each press: the page ticks every 20 ms, so ~17 ticks

needs_chromium = pytest.mark.skipif(
    not os.path.exists(CHROMIUM),
    reason="chromium is not installed (./dev test installs it as root: apt-get install chromium)",
)

sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))

from sim_reference import Reference, frame_ascii  # noqa: E402

# (how, button): a Battle Game turn (enter, roll, set aside, stop, actions, heroes, done), back
# to the menu, into Tests (a new game), target number 4+, roll, a held OK (the game menu), roll.
SCRIPT = [
    ("click", "OK"),  # Battle Game
    ("click", "OK"),  # the first roll asks the board's rows per half (docs/RULES.md BG-13)
    ("click", "UP"),
    ("click", "UP"),
    ("click", "OK"),  # 3 rows, and the roll that asked is made at once (questions once)
    ("click", "OK"),  # set aside the first choice
    ("click", "UP"),  # the last option: stop rolling
    ("key", "OK"),  # Battle Actions (Enter): the Actions table's value is asked once
    ("click", "UP"),  # a Lucky Six buys one action
    ("click", "OK"),  # answered: the turn's actions are shown
    ("click", "OK"),  # Heroes
    ("click", "UP"),  # advance
    ("click", "OK"),  # done: end of the turn
    ("key", "BACK"),  # to the menu (Escape)
    ("key", "DOWN"),  # Tests (ArrowDown)
    ("click", "OK"),
    ("click", "OK"),  # yes, a new game
    ("click", "DOWN"),
    ("click", "DOWN"),  # the target number action
    ("click", "OK"),
    ("click", "OK"),  # 4+
    ("click", "UP"),
    ("click", "UP"),  # the roll action
    ("click", "OK"),  # roll
    ("hold", "OK"),  # held: the game menu (the hold does not roll first)
    ("click", "BACK"),  # close the menu
    ("click", "OK"),  # roll again
]
KEYS = {"UP": "ArrowUp", "DOWN": "ArrowDown", "OK": "Enter", "BACK": "Escape"}

# Reads the canvas: the centre of every OLED pixel's cell, lit or not, as a MONO_VLSB frame.
CANVAS_FRAME_JS = """() => {
  const c = document.getElementById('screen');
  const g = window.dicepod.geometry;
  const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  const mid = (origin, i) => origin + Math.floor(
    (Math.round(i * g.cell) + Math.round((i + 1) * g.cell) - g.gap) / 2);
  let hex = '';
  for (let page = 0; page < 8; page++) {
    for (let x = 0; x < 128; x++) {
      let byte = 0;
      for (let bit = 0; bit < 8; bit++) {
        const px = mid(g.ox, x), py = mid(g.oy, page * 8 + bit);
        if (data[(py * c.width + px) * 4] > 100) byte |= 1 << bit;
      }
      hex += (byte < 16 ? '0' : '') + byte.toString(16);
    }
  }
  return hex;
}"""


@pytest.fixture(scope="module")
def server():
    from dicepod_host.sim.server import serve_in_thread

    srv = serve_in_thread()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, args=LAUNCH_ARGS, timeout=60_000
        )
        yield chromium
        chromium.close()


def open_page(context, url, outside, seed=SEED):
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.on("request", lambda r: None if r.url.startswith(url) else outside.append(r.url))
    page.goto(url + "?seed=%d" % seed)
    page.wait_for_function(
        "window.dicepod && (window.dicepod.ready || window.dicepod.errors.length)"
    )
    assert page.evaluate("window.dicepod.errors") == []
    page.wait_for_function('window.dicepod.usbLines.some(l => l.includes(\'"type":"end"\'))')
    page.wait_for_timeout(200)
    return page


def press(page, how, name):
    """Press like a player; then let at least SETTLE_MS of device time and 8 ticks pass (a
    loaded machine slows the page's timer, never skips a press: the page latches clicks)."""
    if how == "click":
        page.click("[data-button=%s]" % name)
    elif how == "key":
        page.keyboard.press(KEYS[name])
    else:  # hold: a long press, down for 900 ms of the device's clock
        page.hover("[data-button=%s]" % name)
        start = page.evaluate("window.dicepod.elapsed")
        page.mouse.down()
        page.wait_for_function("window.dicepod.elapsed >= %d" % (start + 900))
        page.mouse.up()
    ticks, elapsed = page.evaluate("[window.dicepod.ticks, window.dicepod.elapsed]")
    page.wait_for_function(
        "window.dicepod.ticks >= %d && window.dicepod.elapsed >= %d"
        % (ticks + 8, elapsed + SETTLE_MS)
    )


def check_screen(page, ref, step):
    want = ref.frame().hex()
    got = page.evaluate("window.dicepod.frameHex")
    assert got == want, "%s: the page's frame differs from the firmware's rendering\n%s\n\n%s" % (
        step,
        frame_ascii(bytes.fromhex(got)),
        ref.ascii(),
    )
    canvas = page.evaluate(CANVAS_FRAME_JS)
    assert canvas == want, "%s: the canvas does not show the frame\n%s" % (
        step,
        frame_ascii(bytes.fromhex(canvas)),
    )


def panel_events(page):
    lines = page.eval_on_selector_all("#usb li.event", "els => els.map(e => e.dataset.line)")
    return [protocol_pc.parse(line) for line in lines]


def key(obj):
    return (obj["seq"], obj["game"], obj["event"])


def reference_events(ref):
    seen = {}
    for line in ref.out.lines():
        obj = protocol_pc.parse(line)
        if obj["type"] == "event":
            seen.setdefault(obj["seq"], obj)
    return [seen[seq] for seq in sorted(seen)]


@pytest.mark.browser
@needs_chromium
def test_play_battle_and_tests_in_the_browser(server, browser, tmp_path):
    outside = []
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    try:
        page = open_page(context, server.url, outside)
        ref = Reference(SEED)
        check_screen(page, ref, "start")
        for i, (how, name) in enumerate(SCRIPT):
            press(page, how, name)
            if how == "hold":
                ref.hold(name, 900, SETTLE_MS)
            else:
                ref.press(name, SETTLE_MS)
            check_screen(page, ref, "step %d (%s %s)" % (i + 1, how, name))

        # The session played what the script says (so a changed UI cannot make this vacuous).
        want = reference_events(ref)
        kinds = [(o["game"], o["event"][0]) for o in want]
        assert (1, "roll") in kinds and (1, "set_aside") in kinds and (1, "end_turn") in kinds
        assert (2, "new_game") in kinds and (2, "tn") in kinds
        assert len([k for k in kinds if k == (2, "roll")]) == 2  # the hold rolled nothing

        # The USB panel: the same events as the device under CPython, in a valid hash chain.
        got = panel_events(page)
        assert [key(o) for o in got] == [key(o) for o in want]
        prev = "00000000"
        for obj in got:
            assert obj["prev"] == prev, "chain broken at seq %d" % obj["seq"]
            prev = protocol_pc.chain_hash(obj)

        # The downloaded log is what `dicepod verify` accepts (the USB panel unfolded first).
        page.click("#usbpanel summary")
        with page.expect_download() as info:
            page.click("#download")
        log = tmp_path / "sim.jsonl"
        info.value.save_as(log)
        lines = log.read_text().splitlines()
        assert [protocol_pc.parse(line) for line in lines] == got
        from dicepod_host.cli import main

        assert main(["verify", str(log)]) == 0

        # A narrow window: a smaller canvas (fractional cells, no gaps) still shows the frame.
        page.set_viewport_size({"width": 420, "height": 800})
        page.wait_for_function("window.dicepod.geometry.cell < 4")
        page.wait_for_timeout(200)
        check_screen(page, ref, "narrow window")
        page.set_viewport_size({"width": 1280, "height": 900})

        # A reload resumes the game from localStorage, as a reboot does on the device.
        page.reload()
        page.wait_for_function("window.dicepod && window.dicepod.ready")
        page.wait_for_function('window.dicepod.usbLines.some(l => l.includes(\'"type":"end"\'))')
        page.wait_for_timeout(SETTLE_MS)
        ref.start()
        check_screen(page, ref, "after reload")
        assert [key(o) for o in panel_events(page)] == [key(o) for o in want]
        journal = page.evaluate("localStorage.getItem('dicepod.sim.seed%d.journal')" % SEED)
        from dicepod import journal as journal_module

        lines = [line for line in journal.splitlines() if line[:1].isdigit()]
        assert [journal_module.decode(line.encode() + b"\n")[1] for line in lines]
        assert len(lines) == len(want)
        assert journal.startswith("@ ")  # the segment's header: the journal's identity
        assert page.evaluate("window.dicepod.errors") == []
    finally:
        context.close()
    assert outside == [], "the page fetched from outside the local server"


@pytest.mark.browser
@needs_chromium
def test_page_for_a_class(server, browser):
    # A projector: the USB panel folded away, key hints, the display always on unless asked,
    # full screen with the on-screen buttons and an overscan margin, BACK on a key full screen
    # does not take (Backspace).
    outside = []
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = open_page(context, server.url, outside)
        assert page.evaluate("document.getElementById('usbpanel').open") is False
        assert not page.is_visible("#usb")
        keys = page.inner_text("#keys")
        assert "Backspace" in keys and "held in a game: undo" in keys
        # Idle for 10 minutes of device time: still lit (the device would be dark).
        page.evaluate("window.dicepod.idle(600000)")
        assert page.evaluate("[window.dicepod.powered, window.dicepod.contrast]") == [True, 207]
        page.check("#powersave")  # asked for: dims at 30 s, off at 120 s, as the device
        page.evaluate("window.dicepod.idle(40000)")
        assert page.evaluate("window.dicepod.contrast") < 207
        page.evaluate("window.dicepod.idle(90000)")
        assert page.evaluate("window.dicepod.powered") is False
        press(page, "click", "OK")  # wakes the display only
        assert page.evaluate("window.dicepod.powered") is True
        page.uncheck("#powersave")
        ref = Reference(SEED)
        check_screen(page, ref, "woken: still the menu")

        page.click("#fullscreen")
        page.wait_for_function("document.fullscreenElement !== null")
        assert page.evaluate("document.fullscreenElement.id") == "stage"  # screen, buttons, chart
        assert page.evaluate("document.fullscreenElement.classList.contains('overscan')")
        for name in ("UP", "DOWN", "OK", "BACK"):  # the buttons are on screen in full screen
            box = page.locator("[data-button=%s]" % name).bounding_box()
            assert box and box["y"] + box["height"] <= 900 and box["width"] > 100, (name, box)
        canvas = page.locator("#screen").bounding_box()
        assert canvas["x"] >= 0.05 * 1280 and canvas["y"] >= 0.05 * 900  # the margin
        press(page, "click", "OK")  # into the Battle Game
        ref.press("OK", SETTLE_MS)
        check_screen(page, ref, "full screen: the game")
        page.keyboard.press("Backspace")  # BACK in full screen
        ref.press("BACK", SETTLE_MS)
        page.wait_for_timeout(SETTLE_MS)
        check_screen(page, ref, "full screen: Backspace went back")
        assert page.evaluate("document.fullscreenElement !== null")
        assert page.evaluate("window.dicepod.errors") == []
    finally:
        context.close()
    assert outside == []


def _count_labels(frame):
    """The band of Free roll's count labels (rows 24-31, display page 3: above the bars, below
    the status line) of a MONO_VLSB frame."""
    return bytes(
        frame[(y >> 3) * 128 + x] >> (y & 7) & 1 for y in range(24, 32) for x in range(128)
    )


def _labels_of(counts):
    """That band with each face's count written above its bar in the 6x8 font (each face's
    bar is 21 pixels wide from x = 1; the count centred over it), and nothing else."""
    import framebuf

    from dicepod.ui import draw

    buf = bytearray(1024)
    canvas = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
    for face in range(1, 7):
        text = str(counts[face])
        draw.small(canvas, text, 1 + (face - 1) * 21 + (21 - len(text) * draw.SMALL) // 2, 24)
    return _count_labels(buf)


def _rolls(page):
    return [o["event"][1] for o in panel_events(page) if o["event"][0] == "roll"]


# What the page's Free roll chart shows: its texts, bars and text-alternative table.
CHART_JS = """() => {
  const q = (sel) => Array.from(document.querySelectorAll('#chart ' + sel));
  const texts = (sel) => q(sel).map((e) => e.textContent);
  const box = document.getElementById('chart').getBoundingClientRect();
  return {
    hidden: document.getElementById('chart').hidden, width: box.width, height: box.height,
    title: texts('.title'), loaded: texts('.loaded'), xloaded: texts('.xloaded'),
    counts: texts('.count'), pcts: texts('.pct'), xticks: texts('.xtick'),
    yticks: texts('.ytick'), ytickys: q('.ytick').map((e) => Number(e.getAttribute('y'))),
    xtitle: texts('.xtitle'), ytitle: texts('.ytitle'),
    heights: q('.bar').map((e) => Number(e.getAttribute('height'))),
    fills: q('.bar').map((e) => e.getAttribute('fill')),
    table: q('#charttable tbody tr').map((tr) => Array.from(tr.cells, (c) => c.textContent)),
    head: q('#charttable thead th').map((c) => c.textContent),
    label: document.getElementById(
      document.getElementById('chartsvg').getAttribute('aria-labelledby')).textContent,
  };
}"""


def _share(count, dice):
    """count/dice as a percentage to one decimal, halves up (JavaScript's toFixed)."""
    from fractions import Fraction

    tenths = Fraction(1000 * count, dice) + Fraction(1, 2)
    whole = tenths.numerator // tenths.denominator
    return "%d.%d%%" % divmod(whole, 10)


def check_chart(page, counts, rolls, loaded=0, weights=None):
    """The page's chart shows counts[1..6] (the device's own) with labelled axes, each bar as
    tall as its count on the y axis's ticks, the shares and the text table; the loaded die
    named (and its face's bar marked) exactly when loaded."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    dice = sum(counts[1:])
    title = "Free roll: %s %s in %s %s" % (
        f"{dice:,}",
        "die" if dice == 1 else "dice",
        f"{rolls:,}",
        "roll" if rolls == 1 else "rolls",
    )
    want_loaded = []
    if loaded:
        want_loaded = ["LOADED DIE: face %d favoured" % loaded]
        if weights:
            want_loaded[0] += " (weights %s)" % ":".join(map(str, weights))
    # The chart is redrawn at most ten times a second, on an animation frame: on a loaded
    # machine it may still show the roll before, so wait for it to catch up (and if it never
    # does, the assertions below say how it differs).
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(
            """([title, loaded]) => {
              const texts = (sel) => Array.from(document.querySelectorAll('#chart ' + sel),
                                                (e) => e.textContent);
              return JSON.stringify([texts('.title'), texts('.loaded')])
                === JSON.stringify([[title], loaded]);
            }""",
            arg=[title, want_loaded],
            timeout=5000,
        )
    got = page.evaluate(CHART_JS)
    assert got["hidden"] is False and got["width"] > 300 and got["height"] > 200, got
    assert got["xtitle"] == ["Face"] and got["ytitle"] == ["Rolls"]
    assert got["xticks"] == ["1", "2", "3", "4", "5", "6"]
    assert got["counts"] == [f"{c:,}" for c in counts[1:]], (got, counts)
    shares = [_share(c, dice) if dice else "–" for c in counts[1:]]
    assert got["pcts"] == shares
    assert got["head"] == ["Face", "Rolls", "Percent"]
    assert got["table"] == [[str(f), f"{counts[f]:,}", shares[f - 1]] for f in range(1, 7)]
    assert got["title"] == [title] and got["label"].startswith(title)
    ticks = [int(t.replace(",", "")) for t in got["yticks"]]
    step = ticks[1] - ticks[0]
    assert ticks[0] == 0 and ticks == list(range(0, ticks[-1] + 1, step)) and len(ticks) >= 3
    assert ticks[-1] >= max(counts[1:]) and ticks[-2] < max(max(counts[1:]), dice / 6, 5)
    span = got["ytickys"][0] - got["ytickys"][-1]  # the axis's length from 0 to its top tick
    for face in range(1, 7):  # each bar is as tall as its count on the axis's ticks
        assert abs(got["heights"][face - 1] * ticks[-1] / span - counts[face]) < 1e-6, got
    if loaded:
        assert got["loaded"] == want_loaded and want_loaded[0] in got["label"]
        assert got["xloaded"] == ["loaded"]
        others = {fill for face, fill in enumerate(got["fills"], 1) if face != loaded}
        assert len(others) == 1 and got["fills"][loaded - 1] not in others
    else:
        assert got["loaded"] == [] and got["xloaded"] == [] and len(set(got["fills"])) == 1
    return got


# Into a Battle Game, answer the rows question (3), and the roll that asked is made.
_TO_THE_FIRST_ROLL = ("OK", "OK", "UP", "UP", "OK")


def _a_seed_that_busts(presses=4):
    """The first seed whose Battle Game busts within presses taps of OK after the first roll
    (set aside the first choice, push your luck with the default keep), found on the
    reference; return (seed, the taps of OK)."""
    for seed in range(1, 40):
        ref = Reference(seed)
        for name in _TO_THE_FIRST_ROLL:
            ref.press(name, SETTLE_MS)
        for taps in range(presses + 1):
            if ref.app.session.game.phase == "bust":
                return seed, taps
            ref.press("OK", SETTLE_MS)
    raise AssertionError("no seed in 1..39 busts within %d presses" % presses)


@pytest.mark.browser
@needs_chromium
def test_free_roll_for_a_class(server, browser):
    # Free roll in a lesson: auto-roll 10 from the game menu, the count above each bar (read
    # off the page's frame and canvas: the numbers the journal's rolls give), auto-roll 100
    # paused (no roll while paused) and resumed, the sums view, reset. After each step the
    # page's frame and canvas equal the firmware's rendering under CPython.
    outside = []
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = open_page(context, server.url, outside)
        ref = Reference(SEED)

        def step(how, name, label):
            press(page, how, name)
            if how == "hold":
                ref.hold(name, 900, SETTLE_MS)
            else:
                ref.press(name, SETTLE_MS)
            check_screen(page, ref, label)

        assert page.evaluate("document.getElementById('chart').hidden") is True  # no game yet
        for _ in range(4):
            step("click", "DOWN", "main menu")
        step("click", "OK", "Free roll")  # a new game of Free roll
        check_chart(page, [0] * 7, 0)  # the chart beside the screen: empty axes
        step("hold", "OK", "the game menu")
        step("click", "DOWN", "Auto-roll 10 chosen")
        step("click", "OK", "auto-roll 10 done")  # 1 roll a tick: done in 200 ms
        rolls = _rolls(page)
        assert len(rolls) == 10 and all(len(r) == 6 for r in rolls)  # 6 dice, the default
        counts = [0] * 7
        for roll in rolls:
            for face in roll:
                counts[face] += 1
        frame = bytes.fromhex(page.evaluate("window.dicepod.frameHex"))
        canvas = bytes.fromhex(page.evaluate(CANVAS_FRAME_JS))
        assert _count_labels(frame) == _labels_of(counts), counts
        assert _count_labels(canvas) == _labels_of(counts), counts
        assert counts == ref.app.session.game.counts  # the device's own count
        check_chart(page, counts, 10)

        # Auto-roll 100, paused at once: no roll while paused; OK goes on to the end.
        step("hold", "OK", "the game menu again")
        step("click", "DOWN", "Auto-roll 10")
        step("click", "DOWN", "Auto-roll 100 chosen")
        press(page, "click", "OK")
        press(page, "click", "OK")  # pause
        ref.press("OK", SETTLE_MS)
        ref.press("OK", SETTLE_MS)
        paused = len(_rolls(page))
        assert 10 < paused < 110, paused
        page.wait_for_timeout(800)
        press(page, "click", "UP")  # (a press while paused does not roll either)
        assert len(_rolls(page)) == paused
        counts = [0] * 7
        for roll in _rolls(page):
            for face in roll:
                counts[face] += 1
        check_chart(page, counts, paused)  # the chart followed the auto-roll to its pause
        press(page, "click", "OK")  # go on
        for _ in range(100):
            if len(_rolls(page)) >= 110:
                break
            page.wait_for_timeout(200)
        page.wait_for_timeout(SETTLE_MS)
        ref.press("UP", SETTLE_MS)
        ref.press("OK", SETTLE_MS)
        ref.idle(2500)
        check_screen(page, ref, "auto-roll 100 done")  # the same dice, whatever the pause took
        assert len(_rolls(page)) == 110
        counts = [0] * 7
        for roll in _rolls(page):
            for face in roll:
                counts[face] += 1
        assert _count_labels(bytes.fromhex(page.evaluate(CANVAS_FRAME_JS))) == _labels_of(counts)
        assert counts == ref.app.session.game.counts
        check_chart(page, counts, 110)

        # The sums view, then reset: the counts start again (a journalled event).
        step("hold", "OK", "menu")
        for _ in range(4):
            step("click", "DOWN", "menu")
        step("click", "OK", "the sums of 6 dice")
        step("hold", "OK", "menu")
        for _ in range(5):
            step("click", "DOWN", "menu")
        step("click", "OK", "reset")
        kinds = [o["event"][0] for o in panel_events(page)]
        assert kinds[-1] == "reset" and kinds.count("roll") == 110
        check_chart(page, [0] * 7, 0)  # cleared

        # The loaded die (the game menu's last own row): named on the chart as soon as it is
        # on, its weights once a roll carries them; the roll counted like the device counts it.
        step("hold", "OK", "menu")
        for _ in range(8):
            step("click", "DOWN", "menu")
        step("click", "OK", "loaded die on")
        assert panel_events(page)[-1]["event"] == ("set", ("free.loaded", 6))
        check_chart(page, [0] * 7, 0, loaded=6)
        step("click", "OK", "a loaded roll")
        event = panel_events(page)[-1]["event"]
        assert event[0] == "loaded" and len(event[1]) == 12
        counts = [0] * 7
        for face in event[1][6:]:
            counts[face] += 1
        assert counts == ref.app.session.game.counts
        check_chart(page, counts, 1, loaded=6, weights=event[1][:6])
        # Full screen for the projector: the chart beside the screen, both inside the window.
        page.keyboard.press("f")
        page.wait_for_function("document.fullscreenElement !== null")
        page.wait_for_timeout(SETTLE_MS)
        screen = page.locator("#screen").bounding_box()
        chart = page.locator("#chartsvg").bounding_box()
        assert chart["x"] >= screen["x"] + screen["width"] and chart["width"] > 400, chart
        assert chart["x"] + chart["width"] <= 1280 and chart["y"] + chart["height"] <= 900
        page.keyboard.press("f")
        page.wait_for_function("document.fullscreenElement === null")
        # An undo (BACK held) takes the roll off the chart as it does off the device's counts.
        step("hold", "BACK", "the loaded roll undone")
        assert panel_events(page)[-1]["event"] == ("undo", ())
        assert ref.app.session.game.counts == [0] * 7
        check_chart(page, [0] * 7, 0, loaded=6)

        # Another game (the Battle Game, new): the chart goes.
        step("click", "BACK", "main menu")
        for _ in range(4):
            step("click", "UP", "main menu")
        step("click", "OK", "Battle Game")
        step("click", "OK", "a new game")
        assert panel_events(page)[-1]["game"] == 2
        assert page.evaluate("document.getElementById('chart').hidden") is True
        assert page.evaluate("window.dicepod.chart") is None
        assert page.evaluate("window.dicepod.errors") == []
    finally:
        context.close()
    assert outside == []


@pytest.mark.browser
@needs_chromium
def test_the_page_plays_the_firmware_tones_on_a_bust(server, browser):
    # The page sounds what the firmware's Beeper asks for (Web Audio; window.dicepod.tones
    # keeps each [freq, duty]): the same tones, in the same order, as the firmware under
    # CPython; the rolls click, the bust falls (660, 440, 290 Hz), at the Medium duty.
    seed, taps = _a_seed_that_busts()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    outside = []
    try:
        page = open_page(context, server.url, outside, seed)
        ref = Reference(seed)
        assert page.evaluate("window.dicepod.tones") == []
        for name in _TO_THE_FIRST_ROLL + ("OK",) * taps:
            press(page, "click", name)
            ref.press(name, SETTLE_MS)
        assert ref.app.session.game.phase == "bust"
        elapsed = page.evaluate("window.dicepod.elapsed")
        page.wait_for_function("window.dicepod.elapsed >= %d" % (elapsed + 800))
        ref.idle(800)  # the tune plays out (540 ms)
        check_screen(page, ref, "bust")
        tones = page.evaluate("window.dicepod.tones")
        assert tones == ref.tones.heard
        assert [f for f, _duty in tones[-3:]] == [660, 440, 290], tones
        assert [f for f, _duty in tones[:-3]] == [2400] * len(tones[:-3])  # the rolls' clicks
        assert tones[:-3], tones  # the first roll scored: it clicked
        assert {duty for _f, duty in tones} == {6000}  # Medium, the default
        assert page.evaluate("window.dicepod.errors") == []
    finally:
        context.close()
    assert outside == []


@pytest.mark.browser
@needs_chromium
def test_source_mode_runs_the_same_firmware(server, browser):
    # ?source=1: the firmware as source (compiled by the browser's MicroPython), not .mpy.
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(server.url + "?seed=%d&source=1" % SEED)
        page.wait_for_function(
            "window.dicepod && (window.dicepod.ready || window.dicepod.errors.length)"
        )
        assert page.evaluate("window.dicepod.errors") == []
        page.wait_for_timeout(SETTLE_MS)
        ref = Reference(SEED)
        check_screen(page, ref, "source mode start")
        press(page, "click", "OK")
        ref.press("OK", SETTLE_MS)
        check_screen(page, ref, "source mode, Battle Game")
    finally:
        context.close()


def test_page_serves_only_local_files(server):
    from urllib.error import HTTPError
    from urllib.request import urlopen

    with urlopen(server.url + "bundle.json", timeout=10) as r:
        bundle = json.loads(r.read())
    # As deploy puts it on a Pico: main.py as source, the modules as .mpy.
    assert "main.py" in bundle["firmware"] and "dicepod/app.py" not in bundle["firmware"]
    assert base64.b64decode(bundle["mpy"]["dicepod/app.mpy"])[:1] == b"M"
    assert "simboard.py" in bundle["sim"]
    with urlopen(server.url + "bundle.json?source=1", timeout=10) as r:
        sources = json.loads(r.read())
    assert "dicepod/app.py" in sources["firmware"] and not sources["mpy"]
    with urlopen(server.url + "mp/micropython.wasm", timeout=10) as r:
        assert r.headers["Content-Type"] == "application/wasm"
    for bad in ("mp/../package.json", "../pyproject.toml", "mp/%2e%2e/x", "nope.js"):
        with pytest.raises(HTTPError):
            urlopen(server.url + bad, timeout=10)


def test_sim_command_serves_and_prints_its_address_without_a_display():
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    cmd = [sys.executable, "-m", "dicepod_host.cli", "sim", "--port", "0", "--open"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        first = proc.stdout.readline()
        second = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", first).group(0)
        assert "no display" in second and url in second
        from urllib.request import urlopen

        with urlopen(url, timeout=10) as r:
            assert b"dicepod simulator" in r.read()
    finally:
        proc.terminate()
        proc.wait(10)


def test_sim_command_names_a_busy_port():
    import socket

    from dicepod_host.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["sim", "--port", str(port)]) == 1
