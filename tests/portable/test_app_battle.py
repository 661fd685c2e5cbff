"""The battle session through the real app (scripted buttons, seeded dice): it plays to the end
without a crash, the journal holds the game, and the screens are pixel-identical under CPython
and MicroPython (result_screens: CRC-32 of the frame buffer at each snap). Portable."""

from app_board import OK, Board, file_storage, menu, press, screen_bytes
from app_sessions import battle_session as _session
from app_sessions import journal_kinds, run_recorded


def _run():
    return run_recorded(_session, storage=file_storage("battle"))


def test_battle_session_plays_best_of_three():
    app, shots = _run()
    kinds = journal_kinds(app)
    assert "crash" not in kinds
    for kind in ("roll", "set_aside", "reroll", "bust", "actions", "advance", "end_turn"):
        assert kind in kinds, kind
    assert kinds.count("next_game") == 2
    assert kinds[-1] == "undo"
    game = app.session.game
    # the last event (the winning end_turn) was undone: back in the Battle Actions
    assert game.phase == "actions" and len(game.results) == 2
    names = [s[0] for s in shots]
    for name in ("battle_choose", "battle_decide", "battle_bust", "battle_win", "battle_move"):
        assert name in names, name


def _pages(before, after):
    """The display pages (8-row bands, 128 bytes each) that differ between two frames."""
    return [
        p for p in range(8) if before[p * 128 : p * 128 + 128] != after[p * 128 : p * 128 + 128]
    ]


def test_a_roll_redraws_only_the_dice_marks_and_the_roll_lines():
    """The layout that keeps roll redraws small (tools/bench_display.py counts the bytes): a
    re-roll leading to a set-aside choice changes only the pips (pages 1-2), the marks (3) and
    the roll line and the one under it (4-5); a Battle Roll may also clear the line saying what
    the other player lost (6). The frames' tops, the set-aside line and the turn line stay."""
    from dicepod.app import App

    app = App(Board(seed=5))
    app.start()
    menu(app, "battle")
    app.session.change_setting("battle.rows", 3)  # the players' board, asked once (BG-13)
    rolls = rerolls = 0
    for _ in range(300):
        phase = app.session.game.phase
        if phase == "actions":
            break
        before = screen_bytes(app)
        press(app, OK)  # roll, set aside the first choice, push luck with the best keep
        if app.session.game.phase != "choose" or phase == "choose":
            continue
        changed = _pages(before, screen_bytes(app))
        if phase == "roll":
            rolls += 1
            assert set(changed) <= {1, 2, 3, 4, 5, 6}, changed
        else:
            rerolls += 1
            assert set(changed) <= {1, 2, 3, 4, 5}, changed
    assert rolls and rerolls


def test_the_keep_hint_is_worked_out_while_the_roll_is_shown():
    """While a roll is shown, passes with nothing else to do work out the keep hint each
    set-aside would show (BattleScreen.idle), so the press that sets dice aside only looks it
    up: the options it shows are what the press would have worked out. A press that comes
    first works it out itself (the other tests here press at once)."""
    from dicepod.app import App
    from dicepod.rules import battle, odds

    app = App(Board(seed=5))
    app.start()
    menu(app, "battle")
    app.session.change_setting("battle.rows", 3)  # the players' board, asked once (BG-13)
    press(app, OK)  # Battle Roll
    game = app.session.game
    screen = app.stack[-1]
    assert game.phase == "choose" and len(screen.options) > 1
    # press() ended on an idle tick: the pass after the press's, with its collection, did it
    assert not screen.ahead and len(screen.hints) >= 2
    calls = []
    keep_keys = odds.keep_keys

    def counted(*args):
        calls.append(args)
        return keep_keys(*args)

    odds.keep_keys = counted
    try:
        press(app, OK)  # set aside the first choice
    finally:
        odds.keep_keys = keep_keys
    assert game.phase == "decide" and game.dice
    assert calls == []
    kept_can_score = game.settings.get(battle.KEPT_CAN_SCORE)
    assert screen.options[1:] == odds.keep_keys(game.dice, kept_can_score)


def test_a_press_during_the_work_ahead_skips_that_passes_collection():
    """The pass after a press's works ahead (Screen.idle) and then collects the garbage; a
    press latched meanwhile is answered first: that pass stops the work and leaves the
    collection (17 ms and more on a Pico) to a later pass."""
    from dicepod import app as app_module
    from dicepod.app import App

    class Counted:
        calls = 0

        def collect(self):
            Counted.calls += 1

    app = App(Board(seed=5))
    app.start()
    menu(app, "battle")
    app.session.change_setting("battle.rows", 3)
    gc_module = app_module.gc
    app_module.gc = Counted()
    try:
        press(app, OK)  # Battle Roll; press() ends on the pass after it: work, then collection
        assert Counted.calls >= 1 and not app.stack[-1].ahead and not app.tidy
        calls = Counted.calls

        def idle(app, stop):
            app.board.buttons._edges = OK  # a press latched while the work is under way
            return True

        app.stack[-1].idle = idle
        app.tidy = True  # as after a press
        app.tick(20)
        assert Counted.calls == calls and app.tidy  # no collection: the press first
        del app.stack[-1].idle
        app.board.buttons._edges = 0
        app.tick(20)
        assert Counted.calls == calls + 1 and not app.tidy  # the next quiet pass collects
    finally:
        app_module.gc = gc_module


def test_all_six_again_after_all_out():
    """With ALL OUT! giving "roll all six again", OK on the ALL OUT! screen rolls (the new six
    dice shown, the set-aside ones named), not stop."""
    from dicepod.app import App

    app = App(Board(seed=1))
    app.start()
    menu(app, "battle")
    app.session.change_setting("battle.all_out_effect", 1)
    app.session.play(("roll", (1, 2, 3, 4, 5, 6)))
    app.session.play(("set_aside", (6, 0, 1, 2, 3, 4, 5)))
    assert app.stack[-1].banner == "ALL OUT!"
    press(app, OK)
    assert app.session.game.phase == "choose" and len(app.stack[-1].faces) == 6
    # six dice on the row: the set-aside rolls are named below, too many to name here
    assert app.stack[-1].lines[2] == "Aside: 2 rolls"


def result_screens():
    return _run()[1]
