"""A mode's code loaded ahead (dicepod.ram_ahead: start, step): on a roomy heap, while the main menu
asks whether to end the game in progress for one of another mode, that mode's rules and
screens load in the idle passes, and the OK that starts the game finds them loaded. Declined
(BACK), everything is as it was: the old mode's very modules are back. Played with it and
without it, sessions that switch modes show the same frames and write the same journal.
Portable (plain asserts)."""

import binascii
import gc
import sys

from app_board import BACK, DOWN, OK, UP, Board, press, top, wait
from app_sessions import (
    battle_session,
    extras_session,
    free_session,
    menu,
    orks_session,
    tyranid_session,
)
from app_sessions import tests_session as play_tests
from checks import skip
from test_app_undo import frame_crcs

from dicepod import ram, ram_ahead
from dicepod.app import App
from dicepod.ui.screen import NewGame

_TYRANID = ("dicepod.rules.tyranid", "dicepod.ui.tyranid", "dicepod.ui.coop")


def _app(roomy):
    app = App(Board(seed=5))
    app.start()
    ram.keep_passing(roomy)  # as App.start does on a heap with 128 KB free or more
    app.ahead = False if roomy else None
    wait(app, 1)  # the first idle pass imports dicepod.ram_ahead on a roomy heap
    assert app.ahead is (ram_ahead if roomy else None)
    return app


def _choose(app, mode):
    """From a game: back to the main menu, the cursor onto mode's row, OK (its question)."""
    while len(app.stack) > 1:
        press(app, BACK)
    from dicepod.rules import modes

    screen = app.stack[0]
    title = [t for m, t in modes.MODES if m == mode][0]
    while screen.items[screen.cursor] != title:
        press(app, DOWN)
    press(app, OK)


def test_declined_question_puts_the_old_modes_code_back():
    app = _app(True)
    try:
        tyranid_session(app, steps=(6, 0))
        assert app.session.mode == "tyranid"
        before = dict((name, sys.modules[name]) for name in _TYRANID)
        _choose(app, "orks")
        assert top(app) == "Confirm"
        wait(app, 4)  # the player reads the question: the three loads done
        assert ram.pending[:2] == ["orks", 3], ram.pending
        assert "dicepod.ui.orks" in sys.modules and "dicepod.rules.orks" in sys.modules
        assert "dicepod.ui.turnorder" in sys.modules  # the screens' AHEAD: the game's start
        assert "dicepod.ui.tyranid" not in sys.modules  # put aside, not dropped
        assert sys.modules["dicepod.ui.coop"] is not before["dicepod.ui.coop"]  # orks' own copy
        press(app, BACK)
        assert top(app) == "MainMenu" and ram.pending == []
        for name in _TYRANID:
            assert sys.modules[name] is before[name], name
        assert "dicepod.ui.orks" not in sys.modules and "dicepod.rules.orks" not in sys.modules
        assert "dicepod.ui.turnorder" in sys.modules  # a passing module: kept on a roomy heap
        from dicepod.ui import coop

        assert coop is before["dicepod.ui.coop"]  # the package's attribute too
        _choose(app, "tyranid")  # the game in progress resumes on its own code
        assert top(app) == "TyranidScreen"
        assert app.session.mode == "tyranid"
    finally:
        ram.keep_passing(False)


def test_accepted_question_starts_the_game_on_the_code_loaded_ahead():
    app = _app(True)
    try:
        tyranid_session(app, steps=(6, 0))
        old = sys.modules["dicepod.ui.coop"]
        _choose(app, "orks")
        wait(app, 4)
        assert ram.pending[:2] == ["orks", 3]  # loaded in the passes after the press
        ram.unload(app.session.kept)  # (cancelled, as a BACK does)
        assert ram.pending == [] and "dicepod.rules.orks" not in sys.modules
        ram_ahead.start("orks")
        assert ram_ahead.step() and ram.pending[:2] == ["orks", 1]  # the rules alone loaded
        ahead = sys.modules["dicepod.rules.orks"]
        ram.keep_passing(False)
        ram.forget("dicepod.ui.turnorder")  # (loaded by the first wait, and kept)
        ram.keep_passing(True)
        assert "dicepod.ui.turnorder" not in sys.modules
        app.transition(NewGame("orks"))  # OK at once: it loads the screens' code itself
        assert top(app) == "OrksScreen" and app.session.mode == "orks"
        assert ram.pending == []
        # the screens' AHEAD (the game's start) is left to the idle passes after the frame
        assert ram_ahead._later == ["dicepod.ui.turnorder"]
        assert "dicepod.ui.turnorder" not in sys.modules
        wait(app, 4)
        assert ram_ahead._later == [] and "dicepod.ui.turnorder" in sys.modules
        assert sys.modules["dicepod.rules.orks"] is ahead
        assert type(app.session.game).__module__ == "dicepod.rules.orks"
        for name in ("dicepod.rules.tyranid", "dicepod.ui.tyranid"):
            assert name not in sys.modules, name
        assert sys.modules["dicepod.ui.coop"] is not old
        assert app.session.kept == ram.mode_loaded()
    finally:
        ram.keep_passing(False)


def test_the_settings_list_loads_the_rules_of_the_row_ahead():
    app = _app(True)
    try:
        tyranid_session(app, steps=(6, 0))
        before = dict((name, sys.modules[name]) for name in _TYRANID)
        menu(app, "Settings")
        assert top(app) == "SettingsMenu" and app.stack[-1].cursor == 0  # Battle Game
        wait(app, 4)
        assert ram.pending[:4] == ["battle", 1, ram.pending[2], 1], ram.pending  # its rules alone
        assert "dicepod.rules.battle" in sys.modules and "dicepod.ui.battle" not in sys.modules
        assert "dicepod.ui.tyranid" not in sys.modules  # put aside while the cursor is there
        press(app, DOWN, DOWN)  # Tyranid Attack!: the game in progress's own, nothing to load
        assert ram.pending == [] and "dicepod.rules.battle" not in sys.modules
        for name in _TYRANID:
            assert sys.modules[name] is before[name], name
        press(app, UP)  # Tests
        wait(app, 4)
        assert ram.pending[:2] == ["tests", 1] and "dicepod.rules.tn" in sys.modules
        ahead = sys.modules["dicepod.rules.tn"]
        press(app, OK)  # its settings: the rules loaded ahead, the tyranid game released
        assert top(app) == "ModeSettings" and app.stack[-1].module is ahead
        assert ram.pending == [] and app.session.game is None
        for name in _TYRANID:
            assert name not in sys.modules, name
        press(app, BACK)
        assert top(app) == "SettingsMenu" and app.stack[-1].cursor == 1
        press(app, BACK)
        assert top(app) == "MainMenu" and ram.pending == []
        assert "dicepod.rules.tn" not in sys.modules
        # the game in progress resumes, folded again (the passing screens dropped first: the
        # unix port's Pico-sized heap has no room for them all beside it)
        ram.keep_passing(False)
        ram.unload(app.session.kept)
        _choose(app, "tyranid")
        assert top(app) == "TyranidScreen" and app.session.mode == "tyranid"
    finally:
        ram.keep_passing(False)


def test_with_no_game_the_settings_take_the_rules_loaded_ahead():
    app = _app(True)
    try:
        assert app.session.game is None and app.session.mode is None
        menu(app, "Settings")
        ram_ahead.step()  # (the pass after the frame, however many the tap left)
        assert ram.pending[:2] == ["battle", 1]
        ahead = sys.modules["dicepod.rules.battle"]
        press(app, OK)  # Battle Game's settings
        assert top(app) == "ModeSettings" and app.stack[-1].module is ahead
        assert ram.pending == []  # finished with, not left to load a second copy
        wait(app, 4)
        assert sys.modules["dicepod.rules.battle"] is ahead
        press(app, BACK, BACK)
        assert top(app) == "MainMenu" and "dicepod.rules.battle" not in sys.modules
    finally:
        ram.keep_passing(False)


def test_with_no_game_the_main_menu_loads_the_mode_on_its_row_ahead():
    # The first run: OK on a mode's row opens its game at once, so its code loads while the
    # cursor rests there, and the game opens in one frame (no busy band: nothing to load).
    app = _app(True)
    try:
        assert app.session.mode is None and top(app) == "MainMenu"
        assert ram.pending[:1] == ["battle"]  # the first row's, from the first idle pass
        screen = app.stack[0]
        while screen.items[screen.cursor] != "Free roll":
            press(app, DOWN)
        wait(app, 4)
        assert ram.pending[:2] == ["free", 3], ram.pending
        assert "dicepod.ui.free" in sys.modules and "dicepod.rules.free" in sys.modules
        assert "dicepod.ui.freemenu" in sys.modules  # the screens' AHEAD: its menu
        assert "dicepod.rules.battle" not in sys.modules  # the rows passed over: given up
        ahead = sys.modules["dicepod.ui.free"]
        shows = frame_crcs(app)
        press(app, OK)
        assert top(app) == "FreeRoll" and len(shows) == 1
        assert sys.modules["dicepod.ui.free"] is ahead and ram.pending == []
        assert app.session.kept == ram.mode_loaded()
        press(app, BACK)  # a game in progress: another mode's row asks first, loads nothing
        press(app, UP)
        wait(app, 4)
        assert top(app) == "MainMenu" and ram.pending == []
        assert "dicepod.rules.orks" not in sys.modules
    finally:
        ram.keep_passing(False)


def test_the_screens_opened_most_load_once_in_the_idle_passes():
    app = _app(True)
    try:
        assert "dicepod.ui.gamemenu" not in sys.modules
        wait(app, 12)  # the main menu, read: one load a pass with nothing else to do
        for name in ("gamemenu", "ask", "menu", "settings", "history"):
            assert "dicepod.ui." + name in sys.modules, name
        del sys.modules["dicepod.ui.history"]
        assert not ram_ahead.step()  # each once (and no idle collection after one: False)
        assert "dicepod.ui.history" not in sys.modules
    finally:
        ram.keep_passing(False)


def _to_row(app, title):
    """Back to the main menu, its cursor onto title's row."""
    while len(app.stack) > 1:
        press(app, BACK)
    screen = app.stack[0]
    while screen.items[screen.cursor] != title:
        press(app, DOWN)
    return screen


def test_with_the_cursor_resting_on_history_its_scan_is_made_ahead():
    # (named to run last under MicroPython's runner, which runs a module's tests in name order
    # in one process: its long sessions leave the 64-bit heap too fragmented for the others)
    app = _app(True)
    try:
        battle_session(app, games=1)
        free_session(app, runs=(100, 10))
        journal = app.session.journal
        storage = journal.storage
        segments = len(storage.segments())
        assert segments >= 2
        from dicepod.ui import history

        expected = history.scan(journal)
        reads = []  # the segments read (into the scan's buffer, or whole: a heap without room)
        read_into = storage.read_into
        segment = storage.segment

        def counted(seg, buf):
            reads.append(seg)
            return read_into(seg, buf)

        def whole(seg):
            reads.append(seg)
            return segment(seg)

        storage.read_into = counted
        storage.segment = whole
        _to_row(app, "Free roll")
        press(app, DOWN, DOWN)  # scrolled past History's row: no scan begun
        assert reads == [] and "dicepod.scan_ahead" not in sys.modules
        _to_row(app, "History")
        assert reads == [] and ram_ahead._scan == []  # (its tap's ticks: under 200 ms)
        wait(app, 10 + segments + 3)  # resting: the module, a segment a pass, a collection
        scan_ahead = sys.modules["dicepod.scan_ahead"]
        made = scan_ahead._made
        assert len(reads) == segments and made[4] == expected and made[3] is None
        assert ram_ahead.scanned(journal) and ram_ahead.step() is None  # nothing more to do
        shows = frame_crcs(app)
        press(app, OK)
        assert top(app) == "History" and len(reads) == segments  # the flash not read again
        assert len(shows) == 1  # one frame: no busy band
        assert app.stack[-1].values == (expected[0][::-1], expected[1])
        # handed over: the scan and its module go, none is made while History is open
        assert made == [] and "dicepod.scan_ahead" not in sys.modules
        wait(app, 15)
        assert ram_ahead._scan == [] and len(reads) == segments

        # cut short: the cursor leaves History mid-scan, and the scan goes with its module
        press(app, BACK)  # (back on History's row: the scan made again, for the next open)
        assert top(app) == "MainMenu"
        wait(app, 10 + segments + 3)
        made = sys.modules["dicepod.scan_ahead"]._made
        assert made[4] == expected
        del made[:]  # (begun again)
        del reads[:]
        assert ram_ahead.step() is False and len(reads) == 1 and made[3] is not None
        press(app, UP)
        assert ram_ahead._scan == [] and "dicepod.scan_ahead" not in sys.modules

        # the journal changed since the scan ahead: it no longer holds, History scans again
        _to_row(app, "History")
        wait(app, 10 + segments + 3)
        assert ram_ahead.scanned(journal)
        from dicepod.rules import free

        app.session.ensure_game()  # (History dropped it)
        app.session.play(free.roll(app.session.game, app.randbelow))
        app.session.flush()
        assert not ram_ahead.scanned(journal)
        press(app, OK)
        assert top(app) == "History"
        games, _boots = app.stack[-1].values
        assert games[0][8] == expected[0][-1][8] + 1  # the new roll counted
    finally:
        ram.keep_passing(False)


def test_the_screens_loaded_ahead_are_the_first_passing_screens():
    """ram_ahead._WARM repeats the first five of ram._PASSING (each a const of its module:
    MicroPython inlines a private const, so neither module can read the other's)."""
    passing = getattr(ram, "_PASSING", None)
    if passing is None:
        skip("private consts are inlined by MicroPython's compiler (CPython checks it)")
    warm = ram_ahead._WARM
    assert tuple(warm) == tuple(passing[: len(warm)]) and len(warm) == 5


def test_a_small_heap_loads_nothing_ahead():
    app = _app(False)
    wait(app, 12)
    assert "dicepod.ui.gamemenu" not in sys.modules
    tyranid_session(app, steps=(6, 0))
    _choose(app, "orks")
    wait(app, 4)
    assert ram.pending == []
    assert "dicepod.ui.orks" not in sys.modules and "dicepod.ui.tyranid" in sys.modules


def _switching(app):
    play_tests(app)
    battle_session(app, games=1)
    tyranid_session(app, steps=(20, 0))
    orks_session(app, rounds=3)
    extras_session(app)  # another mode's settings: its rules loaded ahead


def _play(roomy):
    """Play the sessions; return the frames' crc32s (the busy bands' left out: a mode whose
    code was loaded ahead opens without one), the journal's and the loads ahead (crc32s alone
    kept: two runs' journals do not fit a Pico-sized heap beside a roomy run's code)."""
    gc.collect()
    app = _app(roomy)
    frames = frame_crcs(app)
    busy = app.busy

    def no_band(text="Loading..."):
        busy(text)
        frames.pop()

    app.busy = no_band
    step = ram_ahead.step
    loads = [0]

    def counted():
        done = step()
        loads[0] += 1 if done else 0
        return done

    ram_ahead.step = counted
    try:
        _switching(app)
    finally:
        ram.keep_passing(False)
        ram_ahead.step = step
    storage = app.board.storage
    crc = 0
    for seg in storage.segments():
        for line in storage.segs[seg]:
            assert b'"crash"' not in line, line
            crc = binascii.crc32(line, crc)
    return frames, crc, loads[0]


def test_loading_ahead_changes_no_frame_but_the_band_and_no_journal_line():
    gc.collect()
    if hasattr(gc, "mem_free") and gc.mem_free() < 131072:  # (App.start's roomy heap)
        skip("a Pico-sized heap, not a roomy one (the emulated Pico's sessions compare them)")
    frames, journal, loads = _play(False)
    assert loads == 0
    roomy_frames, roomy_journal, loads = _play(True)
    # three modes opened from a question (two loads each, some by OK), the Settings list's rows
    assert loads >= 4, loads
    assert roomy_journal == journal
    assert len(roomy_frames) == len(frames) > 100
    assert roomy_frames == frames
