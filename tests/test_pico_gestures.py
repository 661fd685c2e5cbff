"""Holds at the pins of the emulated Pico (the real MicroPython firmware, dicepod deployed, the
buttons bouncing on their GPIOs): in a game a hold of OK opens the game's menu while the finger
is still down and journals nothing; a hold of BACK undoes the last move and journals only the
undo. The frames are compared with CPython's rendering of the same gestures (app_board), and
the journal is read back from the flash image's file system."""

import json

import pytest
from pico_sessions import journal_in
from pico_support import booted_pico, diff_image, flash_files


@pytest.fixture(scope="module")
def pico(tmp_path_factory):
    with booted_pico(tmp_path_factory) as board:
        yield board


def _kinds_of(journal):
    # (event lines only: each segment starts with a header line, "@ ...")
    lines = [line for line in journal.splitlines() if line[:1].isdigit()]
    return [json.loads(line.split(b" ")[4])[0] for line in lines]


def _kinds(pico):
    """The kinds of the journal's events, read from the flash image's file system."""
    return _kinds_of(journal_in(flash_files(pico)))


def _kinds_on_the_device(pico):
    """The same, read by the device itself (the raw REPL stops the app: the last check)."""
    text = pico.exec_raw(
        "import os, sys\n"
        "for n in sorted([int(x) for x in os.listdir('journal') if x.isdigit()]):\n"
        "    sys.stdout.write(open('journal/%d' % n).read())\n"
    )
    return _kinds_of(text.encode() if isinstance(text, str) else text)


def _cpython(*gestures):
    """The frame CPython's app shows after the same gestures (a hold ends still held)."""
    from app_board import Board, hold_down, press

    from dicepod.app import App

    app = App(Board())
    app.start()
    for kind, button in gestures:
        if kind == "tap":
            press(app, button)
        else:
            hold_down(app, button, 700)
    return bytes(app.board.display.buffer)


def test_hold_ok_opens_the_game_menu_and_hold_back_undoes(pico):
    ok, back = 4, 8
    pico.tap("OK")  # the first row: Battle Game, a new game
    pico.run_ms(500)  # the journal's lines reach the flash
    kinds = _kinds(pico)
    assert kinds[0] == "new_game" and "roll" not in kinds, kinds
    down, up = pico.press("OK", hold_ms=1500, bounce=True)
    pico.run_ms((down - pico.now_ns) / 1e6 + 1200)  # past the 600 ms hold, finger still down
    want = _cpython(("tap", ok), ("hold", ok))
    assert pico.frame() == want, diff_image(pico.frame(), want)  # the menu, while held
    pico.run_ms((up - pico.now_ns) / 1e6 + 300)
    assert pico.frame() == want, diff_image(pico.frame(), want)  # the release did nothing
    assert _kinds(pico) == kinds  # no roll, nothing journalled
    pico.tap("BACK")  # close the menu
    pico.tap("OK")  # the first roll asks the board's rows per half (from the players' board)
    for button in ("UP", "UP", "OK"):
        pico.tap(button)  # answered: a setting journalled, and the roll that asked is made
    down, up = pico.press("BACK", hold_ms=1500, bounce=True)
    pico.run_ms((down - pico.now_ns) / 1e6 + 1200)
    # undone while held: the game as it started, "Undone" shown (the roll's dice are gone)
    answer = (("tap", ok), ("tap", 1), ("tap", 1), ("tap", ok))
    want = _cpython(("tap", ok), *answer, ("hold", back))
    assert pico.frame() == want, diff_image(pico.frame(), want)
    pico.run_ms((up - pico.now_ns) / 1e6 + 300)
    assert pico.frame() == want, diff_image(pico.frame(), want)  # still in the game
    # the answer, the roll, then the undo
    assert _kinds_on_the_device(pico) == kinds + ["set", "roll", "undo"]


def _inside_a_busy_pass(pico, since_ns, awake_ms, steps, where):
    """Run in 1 ms steps (at most steps of them) until the CPU has been awake awake_ms
    unbroken since since_ns or later (no 2 ms sleep: the loop's pause between passes; the
    pass that answers a release may run straight on into the work its band put off); return
    when it last woke from such a sleep (emulated ns)."""
    for _ in range(steps):
        pico.run_ms(1)
        woke = pico.status()["last_idle"]
        if pico.now_ns - max(woke, since_ns) >= awake_ms * 1e6:
            return woke
    raise AssertionError("no busy loop pass " + where)


def test_a_tap_inside_a_busy_loop_pass_is_not_lost(tmp_path_factory):
    """A quick tap that begins and ends while the loop is busy (a game's first screen loading;
    here OK again, 15 ms long, its first tap's game loading) is read by no poll of the pins:
    the press edge's IRQ latches it, and a later pass acts on it as a tap."""
    ok = 4
    with booted_pico(tmp_path_factory) as pico:
        pico.run_until_idle()
        _, up = pico.press("OK", hold_ms=60)  # the first row: a Battle Game, its first screen
        pico.run_ms((up - pico.now_ns) / 1e6 + 0.5)
        # a pass awake 32 ms (past the driver's 30 ms lock-out after the release it took)
        woke = _inside_a_busy_pass(pico, up, 32, 200, "after the OK tap")
        tap_down, tap_up = pico.press("OK", hold_ms=15, at_ms=pico.now_ns / 1e6 + 0.5)
        pico.run_ms((tap_up - pico.now_ns) / 1e6 + 0.5)
        # no 2 ms sleep (the loop's pause between passes) since before the tap began: no poll
        # of the pins saw the button down
        assert pico.status()["last_idle"] == woke < tap_down
        pico.run_until_handled(tap_up)  # the pass after the busy one acts on the latch
        pico.run_ms(100)
        want = _cpython(("tap", ok), ("tap", ok))  # the game's first roll asks a question
        assert pico.frame() == want, diff_image(pico.frame(), want)
        assert pico.frame() != _cpython(("tap", ok))
