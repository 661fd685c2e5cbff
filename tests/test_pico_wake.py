"""The loop's sleep ends a few ms after a button's edge on the emulated Pico (the real firmware,
dicepod's build, timing typical; dicepod.drivers.idlesleep): DOWN pressed at every phase of the
loop's 20 ms period, on the main menu, is answered by display bytes within a few ms, not up to
a period later; so is an OK or BACK tap's release."""

import statistics

import pytest
from pico_support import need_pico

from dicepod_host import pico as pico_module


def _first_data_ms(board, since_ns):
    """ms from since_ns to the first display data write after it (None: none)."""
    for e in board.events("i2c", since_ns=since_ns):
        if e["addr"] == 0x3C and e["data"][:1] == b"\x40" and e["t0"] >= since_ns:
            return (e["t0"] - since_ns) / 1e6
    return None


@pytest.mark.timeout(300)
def test_a_press_is_answered_within_a_few_ms_at_any_phase():
    need_pico()
    with pico_module.Pico(firmware="dicepod", timing="typical") as board:
        board.run_until_frame(max_ms=20_000)
        board.run_ms(500)
        waits = []
        for k in range(10):  # DOWN, then UP back: the cursor moves every time
            board.run_ms(2.1 * k)  # phases across the 20 ms period
            down, _up = board.press("DOWN" if k % 2 == 0 else "UP", hold_ms=80)
            board.run_until_idle(after_ns=down + 100e6)
            waits.append(_first_data_ms(board, down))
            board.run_ms(200)
        assert None not in waits, waits
        # the sleep's step (3 ms) and a ms to settle, then the pass up to its first bytes
        # (about 5 ms: it draws first); a whole period's sleep adds up to 20 ms
        assert max(waits) < 13 and statistics.median(waits) < 11, waits


@pytest.mark.timeout(300)
def test_a_release_is_seen_within_a_ms_of_the_finger():
    """While a button is down the sleep reads the pins every quarter ms, and a release is
    handed to the pass at once (whose own read may fall inside the contact's bounce; a read by
    the sleep inside it is taken again a quarter ms later): BACK's release, which a tap acts on,
    starts the pass that answers it within a ms or so of the finger at any phase, and that pass
    draws the main menu whole before its first display byte."""
    need_pico()
    with pico_module.Pico(firmware="dicepod", timing="typical") as board:
        board.run_until_frame(max_ms=20_000)
        board.run_ms(1000)
        waits = []
        for k in range(8):
            board.tap("OK", hold_ms=90, after_ms=300)  # Battle Game
            board.run_ms(0.4 * k)  # phases across 3 ms
            down, up = board.press("BACK", hold_ms=90)  # the main menu again: a new screen
            board.run_until_idle(after_ns=up + 100e6)
            waits.append(_first_data_ms(board, down + 90e6))
            board.run_ms(300)
        assert None not in waits, waits
        # (reads a ms apart, a ms to settle before the release is read, or the release the
        # sleep read not handed to the buttons driver, Buttons.seen, fail the median's bound)
        assert max(waits) < 6.2 and statistics.median(waits) < 5.8, sorted(waits)


@pytest.mark.timeout(300)
def test_a_press_just_after_the_first_frame_is_answered_at_once():
    """The modules a press may open are imported one a loop pass after the first frame
    (dicepod.ram.load_all), so a finger that comes at once is not kept waiting for them all."""
    need_pico()
    with pico_module.Pico(firmware="dicepod", timing="typical") as board:
        board.run_until_frame(max_ms=20_000)
        board.run_ms(20)
        down, _up = board.press("DOWN", hold_ms=80)
        board.run_until_idle(after_ns=down + 100e6)
        wait = _first_data_ms(board, down)
        # the import under way ends first (the largest take about 25 ms); all of them, 400 ms
        assert wait is not None and wait < 60, wait


@pytest.mark.timeout(300)
def test_a_hold_is_answered_at_its_mark():
    """While OK is held the loop's sleep ends at the hold's 600 ms mark: on the main menu a
    hold is a slow tap, and the mode it opens is drawn a few ms after the mark, at every phase
    of the loop's period."""
    need_pico()
    with pico_module.Pico(firmware="dicepod", timing="typical") as board:
        board.run_until_frame(max_ms=20_000)
        board.run_ms(1000)
        waits = []
        for k in range(5):
            board.run_ms(4.1 * k)  # phases across the 20 ms period
            down, _up = board.press("OK", hold_ms=700)
            board.run_until_idle(after_ns=down + 800e6)
            waits.append(_first_data_ms(board, down + 600e6))
            board.run_ms(300)
            board.tap("BACK")  # the main menu again
            board.run_ms(300)
        assert None not in waits, waits
        # the mark a few ms after the finger's (the pass that saw the press started the count),
        # then the pass that draws the mode; a whole period's sleep adds up to 20 ms
        assert max(waits) < 30 and statistics.median(waits) < 16, waits


def _free_roll_games(games, rolls):
    """Journal files of `games` free roll games of `rolls` rolls each (the last in progress),
    written by the firmware's own journal code on CPython."""
    from dicepod import journal
    from dicepod.drivers.memstorage import MemoryStorage

    storage = MemoryStorage()
    log = journal.Journal(storage, lambda: "0123456789abcdef")
    log.recover()
    n = 0
    for _game in range(games):
        log.append(n * 10, ("new_game", ("free",)))
        for i in range(rolls):
            n += 1
            log.append(n * 10, ("roll", (i % 6 + 1, 3)))
    files = {"journal/%d" % seg: storage.segment(seg) for seg in storage.segments()}
    files["journal/ack"] = storage.side("ack")
    return files


@pytest.mark.timeout(300)
def test_a_press_while_a_long_games_page_is_built_is_answered_at_once():
    """History → a game of 300 rolls: its page takes a few hundred ms behind the Loading...
    band; BACK pressed meanwhile stops it (dicepod.ui.historypage), and the list is back
    within a few ms of the press, not after the page."""
    need_pico()
    files = _free_roll_games(2, 300)
    with pico_module.Pico(firmware="dicepod", timing="typical", files=files) as board:
        board.run_until_frame(max_ms=20_000)
        board.run_ms(1000)
        for button in ("BACK", "DOWN", "OK"):  # from the game to the menu, its History row
            board.tap(button, after_ms=400)
        board.tap("DOWN", after_ms=400)  # #1 Free roll: 300 rolls
        listed = board.frame()
        down, up = board.press("OK", hold_ms=80)
        board.run_ms((up - board.now_ns) / 1e6 + 30)  # the band is up: the page is being built
        back, _up = board.press("BACK", hold_ms=80)
        board.run_ms(600)
        wait = _first_data_ms(board, back)
        assert wait is not None and wait < 40, wait
        assert board.frame() == listed  # the list, as it was; the press did nothing else
