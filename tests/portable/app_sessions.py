"""Scripted button sessions that play whole games of every mode through the real app (the
tests, tools/screenshots.py and tools/bench_app.py share them). Portable: CPython and
MicroPython. A session only presses buttons (app_board.press); it reads the screens' public
state to decide what to press, like a player reading the display. `snap(name)` is called at
the screens worth a picture (the screenshot tool renders them; tests may count them)."""

from app_board import (
    BACK,
    DOWN,
    OK,
    UP,
    _nothing,
    act,
    answer,
    first,
    hold,
    last,
    menu,
    press,
    top,
    wait,
)


def confirm_picks(app, home, snap=_nothing):
    """OK through pick lists (first entry) until the screen named home is on top again."""
    guard = 0
    while top(app) != home:
        answer(app, snap)
        if top(app) == home:
            break
        press(app, OK)
        guard += 1
        if guard > 10:
            raise RuntimeError("stuck at %s" % top(app))


def _menu_row(app, row):
    """From the Free roll screen: hold OK for the game menu, choose its row (0: the first)."""
    hold(app, OK)
    press(app, *((DOWN,) * row))
    press(app, OK)


def _auto_roll(app, count):
    """From the Free roll screen: the game menu's Auto-roll count."""
    _menu_row(app, AUTO_ROWS[count])


def _until_done(app, ticks=2000):
    """Let an auto-roll run to its end (a tick at a time, as the display shows it)."""
    while app.stack[-1].left and ticks:
        wait(app)
        ticks -= 1
    assert app.stack[-1].left == 0


# The game menu's row of each auto-roll (ui/free.py _menu), and of the view and reset entries.
AUTO_ROWS = {10: 1, 100: 2, 1000: 3}
VIEW_ROW = 4
RESET_ROW = 5


def free_session(app, snap=_nothing, runs=(100, 100)):
    """Free roll: rolls, fewer dice, the fairness self-test, undo; then for a class: an
    auto-roll of runs[0] rolls (paused and resumed), the sums view, three dice auto-rolled
    runs[1] times, the faces again, reset. Auto-roll 1000 (5 rolls a tick) is played by
    test_app_free and the screenshots (runs=(100, 1000)); the every-mode sessions keep the
    suite's time with 100, and on the emulated Pico 10 (pico_sessions.QUICK)."""
    menu(app, "free")
    snap("free_start")
    press(app, OK)
    press(app, OK)
    snap("free_roll")
    press(app, DOWN, DOWN)
    for _ in range(5):
        press(app, OK)
    snap("free_histogram")
    hold(app, BACK)  # undo the last roll
    hold(app, OK)  # the game's menu
    snap("game_menu")
    press(app, OK)  # Fairness test
    wait(app)
    snap("selftest_running")
    wait(app, 12)
    snap("selftest_done")
    press(app, BACK, BACK)  # the menu, then the rolls
    _auto_roll(app, runs[0])
    screen = app.stack[-1]
    wait(app, max(1, runs[0] // 5))
    snap("free_auto")
    press(app, OK)  # pause
    paused = screen.left
    assert screen.paused and 0 < paused < runs[0], paused
    wait(app, 10)
    assert screen.left == paused  # paused: no rolls
    snap("free_auto_paused")
    press(app, OK)  # go on
    _until_done(app)
    snap("free_auto_done")
    _menu_row(app, VIEW_ROW)  # Show sums
    snap("free_sums")
    press(app, DOWN)  # three dice: their sums are another count
    _auto_roll(app, runs[1])
    _until_done(app)
    snap("free_sums_auto")
    _menu_row(app, VIEW_ROW)  # Show faces
    snap("free_faces_auto")
    _menu_row(app, RESET_ROW)  # Reset counts
    snap("free_reset")
    press(app, BACK)


def battle_session(app, snap=_nothing, games=3):
    """Battle Game: whole games of the best of three (push luck twice, then act)."""
    menu(app, "battle")
    snap("battle_roll")
    shots = {}

    def once(name):
        if name not in shots:
            shots[name] = 1
            snap(name)

    steps = 0
    played = 0  # games ended so far
    was = None
    while steps < 2000:
        steps += 1
        answer(app)  # rows per half, asked once (BG-13)
        game = app.session.game
        phase = game.phase
        ended, was = phase == "over" and was != "over", phase
        if phase == "over":
            once("battle_win")
            played += ended
            if game.series_over() or played >= games:
                break
            press(app, OK)
            continue
        if phase == "roll":
            press(app, OK)
        elif phase == "choose":
            once("battle_choose")
            if len(app.stack[-1].options) > 1:
                press(app, DOWN)
                once("battle_choose_other")
            press(app, OK)
        elif phase == "bust":
            once("battle_bust")
            press(app, OK)
        elif phase == "decide":
            if game.all_out:
                once("battle_all_out")
            else:
                once("battle_decide")
            if len(game.aside) >= 2 or not game.dice:
                if app.stack[-1].cursor != 0:
                    press(app, UP)
                once("battle_stop")
            press(app, OK)
        elif phase == "actions":
            once("battle_actions")
            press(app, OK)
            answer(app)  # rows per half, if not asked yet (BG-13): then the heroes at once
            once("battle_heroes")
            player = game.player
            hero = game.across(player) % 5
            while app.stack[-1].cursor != hero:
                press(app, DOWN)
            press(app, OK)
            press(app, UP, UP, UP)
            once("battle_move")
            press(app, OK)
            while app.stack[-1].cursor != len(app.stack[-1].items) - 1:  # End turn
                press(app, DOWN)
            press(app, OK)
    hold(app, BACK)  # undo the last move, then back to the menu
    snap("battle_undone")


def tests_session(app, snap=_nothing):
    """Tests: TN, modifiers, rolls of 3, 6 and 15 dice, re-rolls, roll-off, D3, D3+1, dash."""
    menu(app, "tests")
    screen = app.stack[-1]

    def goto(action):
        while screen.action != action:
            press(app, DOWN)

    snap("tests_start")
    goto(2)  # TN
    press(app, OK)
    snap("tests_tn_pick")
    press(app, DOWN, OK)  # 5+
    goto(3)  # modifier
    press(app, OK, DOWN, OK)  # range
    snap("tests_modifier")
    press(app, UP, UP, OK)  # -1 -> the TN goes up... then:
    goto(3)
    press(app, OK, OK, OK)  # cover +1
    for count in (3, 6, 15):
        goto(1)
        press(app, OK)
        first(app)
        for _ in range(count - 1):
            press(app, DOWN)
        press(app, OK)
        goto(0)
        press(app, OK)
        snap("tests_roll_%d" % count)
    goto(4)
    press(app, OK)
    snap("tests_reroll_fails")
    goto(5)
    press(app, OK, OK)
    goto(6)
    press(app, OK, DOWN, OK)
    goto(7)
    press(app, OK)
    snap("tests_rolloff")
    press(app, OK, OK)
    goto(8)
    press(app, OK)
    snap("tests_d3")
    goto(9)
    press(app, OK)
    goto(10)
    press(app, OK)
    goto(2)
    press(app, OK)
    first(app)
    press(app, OK)  # a dash: no test
    goto(0)
    press(app, OK)  # refused: the test does not exist
    snap("tests_dash")
    hold(app, BACK)


def tyranid_session(app, snap=_nothing, steps=(400, 300)):
    """Tyranid Attack!: level 1 to the exit count, then level 3 to the Prime (at most steps[0]
    and steps[1] actions in each; a Level 1 cut short ends the session there)."""
    menu(app, "tyranid")
    snap("tyranid_setup")
    act(app, "Level 1")
    snap("tyranid_team")
    last(app)
    press(app, OK)
    _tyranid_play(app, snap, steps[0])
    if app.session.game.phase == 2:
        return  # cut short (the Pico's every-mode heap test)
    act(app, "Level 3")
    last(app)
    press(app, OK)
    snap("tyranid_placing")
    while app.session.game.phase == 1:
        act(app, "Draw counter")
    _tyranid_play(app, snap, steps[1])
    if app.session.game.phase == 2:
        act(app, "Result: win")
    snap("tyranid_over")


def _tyranid_play(app, snap, limit):
    shots = {}
    steps = 0
    while app.session.game.phase == 2 and steps < limit:
        steps += 1
        answer(app, snap)
        game = app.session.game
        labels = [a[0] for a in app.stack[-1].actions]
        if "Exit tile count" in labels:
            act(app, "Exit tile count")
            press(app, OK)
            break
        if labels[:2] == ["Reveal card", "Deck ran out"]:  # the real deck ran out too
            act(app, "Deck ran out")
            continue
        if "New round" in labels:
            act(app, "New round")
        elif "Reveal card" in labels:
            act(app, "Reveal card")
            if "reveal" not in shots:
                shots["reveal"] = 1
                snap("tyranid_reveal")
        elif "Attack" in labels:
            if game.level == 1 and steps % 7 == 3 and "Console" in labels:
                act(app, "Console")
                continue
            try_attack = any(game.board[k] for k in range(3)) or game.level == 3
            if try_attack:
                act(app, "Attack")
                confirm_picks(app, "TyranidScreen", snap)
                if "attack" not in shots:
                    shots["attack"] = 1
                    snap("tyranid_attack")
            if app.session.game.phase == 2 and app.session.game.current >= 0:
                act(app, "End turn")
        else:
            act(app, "Place Tyranid")
        if steps == 5:
            act(app, "Place Tyranid")
            act(app, "Team")
            snap("tyranid_team_status")
            press(app, BACK)
            act(app, "Bag")
            snap("tyranid_bag")
            press(app, BACK)
            act(app, "Special card")
            press(app, OK)


def orks_session(app, snap=_nothing, rounds=40):
    """Rise of the Orks: a Novice game to the end (values asked on the way)."""
    menu(app, "orks")
    snap("orks_setup")
    shots = {}
    presses = 2  # each Terminator's Command from his datasheet: 3, 4, 5, 6 (Angelus 9)
    while app.session.game.phase == 0:
        if top(app) == "AskValue":
            answer(app, snap, presses)
            presses += 1
        elif top(app) == "Pick":  # equal Command values: who goes first (the first listed)
            press(app, OK)
        else:
            press(app, OK)  # Novice (the first action): asks for a missing value, one at a time

    def once(name):
        if name not in shots:
            shots[name] = 1
            snap(name)

    steps = 0
    while app.session.game.phase != 4 and app.session.game.round <= rounds and steps < 3000:
        steps += 1
        game = app.session.game
        labels = [a[0] for a in app.stack[-1].actions]
        if "Add Ork" in labels:
            act(app, "Add Ork")
            once("orks_wave")
        elif game.phase == 1:
            act(app, "Terminators")
        elif game.phase == 2:
            once("orks_terminator")
            if game.on_board:
                act(app, "Attack")
                confirm_picks(app, "OrksScreen", snap)
                once("orks_attack")
                if app.session.game.phase == 4:
                    break
            if game.round == 2 and game.current == 1:
                act(app, "Heal 1 (start)")
                act(app, "Move")
                act(app, "Supply token")
                act(app, "Terminators")
                once("orks_status")
                press(app, BACK)
            act(app, "Next Terminator")
        elif game.phase == 3:
            if game.round == 2:
                act(app, "Ork hits")
                confirm_picks(app, "OrksScreen", snap)
                act(app, "Damage")
                confirm_picks(app, "OrksScreen", snap)
                once("orks_ork_phase")
            act(app, "New round")
    once("orks_over")


def extras_session(app, snap=_nothing):
    """History (the cursor rests on its row for 300 ms first: its scan of the journal is made
    ahead on a roomy heap), Settings (an edit and a device value), and back."""
    menu(app, "History", rest=15)
    snap("history")
    press(app, DOWN, DOWN)
    menu(app, "Settings")
    snap("settings")
    press(app, OK)  # Battle Game
    snap("settings_battle")
    press(app, DOWN, DOWN, DOWN, DOWN, OK)  # rows per half
    snap("settings_edit")
    press(app, UP, OK)
    press(app, BACK)
    last(app)
    press(app, OK)  # Device
    press(app, DOWN, DOWN, DOWN, OK)  # brightness
    press(app, DOWN, OK)
    press(app, BACK, BACK)
    snap("menu")


def every_mode(app, snap=_nothing):
    """Every mode in turn (what the 96 KB heap test and the benchmark run)."""
    free_session(app, snap)
    tests_session(app, snap)
    battle_session(app, snap)
    tyranid_session(app, snap)
    orks_session(app, snap)
    extras_session(app, snap)


def run_recorded(session, seed=11, storage=None):
    """Run one session on a fresh test board; return (app, [(screen name, crc32 of the
    display's bytes), ...]) for every snap: equal lists mean equal pixels."""
    import binascii

    from app_board import Board

    from dicepod.app import App

    app = App(Board(seed=seed, storage=storage))
    app.start()
    shots = []

    def snap(name):
        crc = binascii.crc32(bytes(app.board.display.buffer)) & 0xFFFFFFFF
        shots.append([name, "%08x" % crc])

    session(app, snap)
    return app, shots


def journal_kinds(app):
    """The kinds of every event in the journal, in order (for assertions)."""
    from dicepod import journalfix

    kinds = []
    for _offset, entry, _body in journalfix.read_entries(app.session.journal):
        kinds.append(entry[3][0])
    return kinds
