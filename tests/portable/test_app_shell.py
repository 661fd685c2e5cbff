"""The app shell: resume after a reset shows the same screen, undo, corrupt settings fall back
to the defaults with a message, a crash is journalled and restarts cleanly (no crash loop),
values the rules need are asked for, the press that wakes the display is swallowed, every
journal line goes to the USB link. Portable (plain asserts)."""

from app_board import (
    BACK,
    DOWN,
    OK,
    UP,
    Board,
    LineStorage,
    hold,
    last,
    menu,
    press,
    screen_bytes,
    top,
)
from app_sessions import journal_kinds

from dicepod.app import App


def _app(storage=None, seed=3, strict=True):
    app = App(Board(storage=storage, seed=seed, strict=strict))
    app.start()
    return app


def test_undo_everywhere_refolds():
    app = _app()
    menu(app, "free")
    press(app, OK, OK, OK)
    assert app.session.game.rolls == 3
    hold(app, BACK)
    assert app.session.game.rolls == 2
    assert app.toast.startswith("Undone")  # and what it undid
    kinds = journal_kinds(app)
    assert kinds[-1] == "undo"
    hold(app, BACK)
    hold(app, BACK)
    hold(app, BACK)
    assert app.session.game.rolls == 0
    assert app.toast == "Nothing to undo"  # never past the game's start
    assert app.session.game.settings.get("free.dice") == 6


def test_corrupt_settings_fall_back_to_defaults_with_a_message():
    storage = LineStorage(settings=b'{"battle.rows": 3, "free.di')
    app = _app(storage)
    assert top(app) == "Message"
    assert "Settings corrupt: defaults" in " ".join(app.stack[-1].lines)
    assert app.session.values == {}
    press(app, OK)
    assert top(app) == "MainMenu"
    # out-of-range and wrong-type values: dropped, the rest kept
    storage = LineStorage(settings=b'{"battle.rows": 99, "free.dice": 2, "x": "y"}')
    app = _app(storage)
    assert top(app) == "MainMenu"
    menu(app, "battle")
    assert app.session.game.settings.values["battle.rows"] is None  # dropped: asked (BG-13)
    menu(app, "free")
    assert app.session.game.settings.get("free.dice") == 2


def test_too_large_or_too_deep_settings_are_refused_with_a_message():
    # A settings file no device writes (nested, or far larger than every setting takes) is
    # refused before it is parsed: defaults and a message, never a MemoryError at start.
    # (each file made only when its turn comes: under the 64-bit unix port's 190 KB the three
    # at once, 22 KB, do not always find room between the modules the earlier tests loaded)
    for make in (
        lambda: b'{"a":' * 600 + b"1" + b"}" * 600,  # nested, under 4 KB: refused as nested
        lambda: b'{"free.dice": [' + b"[" * 1500 + b"]" * 1500 + b"]}",
        lambda: b'{"free.dice": 2, "pad": "' + b"x" * 4200 + b'"}',  # (the limit: 4 KB)
    ):
        data = make()
        app = _app(LineStorage(settings=data))
        assert top(app) == "Message", data[:20]
        assert "Settings corrupt: defaults" in " ".join(app.stack[-1].lines)
        assert app.session.values == {}


def test_the_settings_menu_says_how_full_the_flash_is():
    storage = LineStorage(capacity=200 * 1024)
    app = _app(storage)
    menu(app, "free")
    for _ in range(30):
        press(app, OK)
    used = storage.used()
    assert used > 1000
    press(app, BACK)
    menu(app, "Settings")
    last(app)  # Device
    press(app, OK)
    assert app.stack[-1].items[-1] is None  # built when it is first on the screen
    last(app)  # the flash row, on the screen now
    rows = app.stack[-1].items
    assert rows[-1] == ["Flash %d%% full" % (used * 100 // (200 * 1024))], rows
    press(app, OK)  # it only informs
    assert top(app) == "ModeSettings" and app.stack[-1].items[-1] == rows[-1]


def test_settings_are_saved_and_used_by_the_next_game():
    app = _app()
    menu(app, "Settings")
    while app.stack[-1].items[app.stack[-1].cursor] != "Free roll":
        press(app, DOWN)
    press(app, OK, OK)  # Dice per roll
    assert top(app) == "EditValue"
    press(app, DOWN, DOWN, OK)
    assert app.board.storage.settings == b'{"free.dice":4}\n'
    menu(app, "free")
    press(app, OK)
    assert len(app.session.game.last) == 4
    assert ["set", ["free.dice", 4]] in [
        [e[0], list(e[1])] for e in app.session.journal.game_events()
    ]


def test_a_setting_is_edited_in_place_on_its_row():
    """OK on a setting's row makes its value a field on that row (EditValue over the list): the
    rest of the list stays as it was, the title band gives the range; UP/DOWN change the field,
    BACK leaves the row as it was, OK saves into it. (A screen of its own was ~870 bytes on the
    bus, ~20 ms at 400 kHz: tools/bench_pico.py.)"""
    app = _app()
    menu(app, "Settings")
    while app.stack[-1].items[app.stack[-1].cursor] != "Free roll":
        press(app, DOWN)
    press(app, OK)
    listed = screen_bytes(app)
    press(app, OK)  # Dice per roll, 6: its row is the first (rows 10..18: pages 1 and 2)
    assert top(app) == "EditValue" and app.stack[-1].text == "6"
    edit = screen_bytes(app)
    assert edit[:128] != listed[:128]  # the title band: the range
    changed = [i for i in range(128, 1024) if edit[i] != listed[i]]
    # the field: the value's columns (1 + 19 * 6 = 115) and a margin, on the row's pages only
    assert changed and all(128 <= i < 384 and 113 <= i % 128 < 122 for i in changed), changed
    press(app, DOWN, DOWN)
    assert app.stack[-1].text == "4"
    press(app, BACK)
    assert top(app) == "ModeSettings" and screen_bytes(app) == listed
    assert "free.dice" not in app.session.values
    press(app, OK, DOWN, OK)
    assert top(app) == "ModeSettings" and app.session.values["free.dice"] == 5
    assert app.stack[-1].values[0] == "5" and screen_bytes(app) != listed


class _UnsavedSettings(LineStorage):
    """A flash that takes journal lines but whose settings save raises error."""

    def __init__(self, error):
        super().__init__()
        self.error = error

    def save_settings(self, data):
        raise self.error


def _a_setting_not_saved(error):
    """Set Free roll's dice per roll to 4 while the settings save raises error: the player is
    told, the value holds (in RAM: the next save writes it), the game goes on."""
    app = _app(_UnsavedSettings(error))
    menu(app, "Settings")
    while app.stack[-1].items[app.stack[-1].cursor] != "Free roll":
        press(app, DOWN)
    press(app, OK, OK)  # Dice per roll
    press(app, DOWN, DOWN, OK)
    assert top(app) == "ModeSettings" and app.toast == "Settings not saved"
    assert app.board.storage.settings is None
    assert app.session.values["free.dice"] == 4
    menu(app, "free")
    press(app, OK)
    assert len(app.session.game.last) == 4


def test_a_setting_the_flash_cannot_take_is_said_and_kept_for_now():
    # The settings file is written after the frame (Session.flush); when that fails the
    # player is told, the value holds until the device restarts, and nothing crashes.
    _a_setting_not_saved(OSError(28, "no space"))


def test_a_settings_save_without_heap_is_said_not_a_crash():
    # A MemoryError in the settings file's save (a Pico's heap nearly full) is told like a
    # full flash, not ended on the crash screen.
    _a_setting_not_saved(MemoryError("memory allocation failed, allocating 512 bytes"))


def test_a_crash_is_journalled_and_restarts_cleanly():
    app = _app(strict=False)
    menu(app, "free")
    press(app, OK, OK)
    screen_class = type(app.stack[-1])
    original = screen_class.on_button

    def broken(self, app, button):
        if button == UP:
            return 1 // 0
        return original(self, app, button)

    screen_class.on_button = broken
    try:
        press(app, UP)
    finally:
        screen_class.on_button = original
    assert top(app) == "CrashScreen"
    lines = app.stack[-1].lines
    assert "".join(lines).startswith("ZeroDivisionError")
    kinds = journal_kinds(app)
    assert kinds[-1] == "crash"
    crash = list(app.session.journal.game_events())[-1]
    assert crash[0] == "crash" and crash[1][0] == "ZeroDivisionError"
    assert crash[1][1] == "test_app_shell.py" and crash[1][2] > 0
    press(app, BACK)
    assert top(app) == "FreeRoll" and app.session.game.rolls == 2  # resumed from the journal
    hold(app, BACK)  # undo steps over the crash record to the last roll
    assert app.session.game.rolls == 1
    assert journal_kinds(app)[-2:] == ["undo", "undo"]


def test_a_crash_record_names_the_source_of_a_compiled_module():
    """A module compiled by the deploy tool names itself (dicepod/ui/ask.mpy: its source name,
    dicepod_host.deploy.source_name); the crash record names the file it was compiled from,
    the innermost frame's."""
    from dicepod.crash import crash_event

    text = (
        "Traceback (most recent call last):\n"
        '  File "dicepod/app.mpy", line 193, in tick\n'
        '  File "dicepod/ui/ask.mpy", line 8, in <module>\n'
        "MemoryError: memory allocation failed\n"
    )
    assert crash_event(MemoryError(), text) == ("crash", ("MemoryError", "ask.py", 8))
    text = text.replace("ask.mpy", "ask.py")  # (run from source: the same record)
    assert crash_event(MemoryError(), text) == ("crash", ("MemoryError", "ask.py", 8))


def test_a_crash_loop_starts_without_the_game():
    app = _app(strict=False)
    menu(app, "free")
    press(app, OK)
    from dicepod.ui import draw

    original = draw.die

    def broken(canvas, x, y, face, style=0, size=20):
        raise RuntimeError("draw fails")

    draw.die = broken  # the Free roll screen draws its dice with it: every redraw fails
    try:
        press(app, DOWN)  # one die fewer: the redraw crashes
        for _ in range(5):
            if app.safe:
                break
            assert top(app) == "CrashScreen"
            press(app, BACK)  # the game screen again: crashes again
    finally:
        draw.die = original
    assert app.safe
    assert len(app.crashes) == 3
    assert app.session.mode is None and top(app) == "CrashScreen"
    assert "game not resumed" in " ".join(app.stack[-1].lines)
    press(app, BACK)
    assert top(app) == "MainMenu"
    again = _app(app.board.storage)  # a real reset resumes the game (the journal is intact)
    assert again.session.mode == "free" and again.session.game.rolls == 1


def test_missing_values_are_asked_then_journalled():
    app = _app()
    menu(app, "orks")
    press(app, OK)  # Novice
    assert top(app) == "AskValue"
    assert app.stack[-1].key == "orks.command_magmus"
    assert app.session.game.phase == 0  # nothing started yet
    # questions once (issue 13): the values the set-up needs are asked one after another,
    # never back at the set-up screen between them, each journalled as it is saved
    asked = []
    after = []
    while top(app) == "AskValue":
        asked.append(app.stack[-1].key)
        press(app, UP, UP, OK)
        after.append(top(app))
    names = ("magmus", "stormheart", "lucian", "etrus")
    assert asked == ["orks.%s_%s" % (what, n) for what in ("command", "actions") for n in names]
    assert after == ["AskValue"] * 7 + ["Pick"]
    assert all(app.session.values[key] == 3 for key in asked)
    assert journal_kinds(app)[-8:] == ["set"] * 8
    assert top(app) == "Pick"  # all four answered 3: equal Command values, who first (OR-6)
    press(app, OK, OK, OK)
    assert app.session.game.phase == 1
    assert journal_kinds(app)[-1] == "start"


def test_new_game_of_another_mode_asks_first():
    app = _app()
    menu(app, "free")
    press(app, OK)
    press(app, BACK)
    screen = app.stack[0]
    screen.cursor = 0  # Battle Game
    press(app, OK)
    assert top(app) == "Confirm"
    press(app, BACK)  # no: the free game stays
    assert app.session.mode == "free"
    press(app, OK, OK)
    assert app.session.mode == "battle" and top(app) == "BattleScreen"
    assert len(app.stack) == 2


def test_wake_press_is_swallowed_and_usb_gets_every_line():
    # the players' board: 3 rows a half (entered before, so the first OK rolls: BG-13)
    app = App(Board(seed=3, storage=LineStorage(settings=b'{"battle.rows":3}\n')))

    class Power:
        asleep = True

        def battery(self):
            return 87

        def update(self, dt_ms, active):
            woke = active and self.asleep
            if active:
                self.asleep = False
            return woke

    class Link:
        def __init__(self):
            self.lines = []
            self.ticks = 0

        def on_entry(self, line):
            self.lines.append(line)

        def tick(self, dt_ms):
            self.ticks += 1

        def busy(self):
            return False  # every line is taken at once

    app.power = Power()
    app.session.usb = Link()
    app.start()
    assert app.stack[0].battery == "87%"  # shown in the title bar
    press(app, OK)  # only wakes the display
    assert top(app) == "MainMenu"
    press(app, OK)
    assert app.session.mode == "battle"
    press(app, OK)  # the Battle Roll
    assert app.session.usb.ticks > 0
    assert len(app.session.usb.lines) == app.session.journal.seq
    assert app.session.usb.lines[-1].endswith(b"\n") and b'"roll"' in app.session.usb.lines[-1]


def test_game_menu_and_history():
    app = _app()
    menu(app, "free")
    press(app, OK, OK)
    hold(app, OK)
    assert top(app) == "GameMenu"
    items = app.stack[-1].items
    assert items[:11] == [
        "Fairness test",
        "Auto-roll 10",
        "Auto-roll 100",
        "Auto-roll 1000",
        "Show sums",
        "Reset counts",
        "Show %",
        "Class mode: off",
        "Loaded die: off",
        "Quick roll",
        "Help",
    ]
    while app.stack[-1].items[app.stack[-1].cursor] != "History":
        press(app, DOWN)
    press(app, OK)
    assert top(app) == "Page"  # the current game in words (tests/portable/test_app_history.py)
    rows = app.stack[-1].lines
    assert rows[0] == "2 moves so far." and rows[-1].startswith("Rolled ")
    assert app.stack[-1].title == "#1 Free roll"


def test_the_main_menu_stays_under_the_other_screens():
    app = _app()
    assert top(app) == "MainMenu"
    menu(app, "Settings")
    assert type(app.stack[0]).__name__ == "MainMenu"
    press(app, BACK)
    screen = app.stack[0]
    assert top(app) == "MainMenu"
    assert screen.items[screen.cursor] == "Settings"  # back on the row it was left from
    menu(app, "tests")
    assert top(app) == "TestsScreen"
    press(app, BACK)
    screen = app.stack[0]
    assert screen.items[screen.cursor] == "Tests"
    assert screen.title == "dicepod: tests"  # the game in progress in the title bar


def test_where_code_loads_into_the_heap_one_modes_code_stays_at_a_time():
    """dicepod.ram off flash (the stock firmware, CPython here): the shared screens stay once
    loaded; a mode's code goes when another mode's game starts."""
    import sys

    from dicepod import ram

    assert not ram.RESIDENT
    app = _app()
    menu(app, "free")
    hold(app, OK)
    assert top(app) == "GameMenu"
    press(app, BACK)
    assert top(app) == "FreeRoll"
    assert "dicepod.ui.gamemenu" in sys.modules and "dicepod.ui.menu" in sys.modules
    press(app, BACK)
    menu(app, "tests")
    press(app, OK)  # end the free roll for a test
    assert top(app) == "TestsScreen"
    assert "dicepod.ui.free" not in sys.modules and "dicepod.rules.free" not in sys.modules
    assert "dicepod.ui.gamemenu" in sys.modules


def _shows(app):
    """Record the frame at every show() of app's display; return the list it fills."""
    frames = []
    display = app.display
    count = display.show

    def show():
        frames.append(bytes(display.buffer))
        count()

    display.show = show
    return frames


def _band_says(frame, text):
    """True when rows 55..63 of frame are the busy band: lit, text in dark 8×8 letters."""
    import framebuf

    want = bytearray(1024)
    canvas = framebuf.FrameBuffer(want, 128, 64, framebuf.MONO_VLSB)
    canvas.fill_rect(0, 55, 128, 9, 1)
    canvas.text(text, (128 - len(text) * 8) // 2, 56, 0)
    got = framebuf.FrameBuffer(bytearray(frame), 128, 64, framebuf.MONO_VLSB)
    for y in range(55, 64):
        for x in range(128):
            if got.pixel(x, y) != canvas.pixel(x, y):
                return False
    return True


def _above_band(frame):
    """Rows 0..54 of frame (pages 0..5 whole, and page 6's rows 48..54)."""
    return bytes(frame[:768]) + bytes(b & 0x7F for b in frame[768:896])


def test_slow_work_is_answered_with_a_band_first():
    # Opening a mode whose code is not loaded, the History and an undo that folds the game
    # again show a band saying so over the screen of the moment before the work, and the work
    # is done in the next pass; the screen after it has none. A mode whose code is loaded
    # opens with one frame, and so do an undo with the game one move behind in RAM and a saved
    # setting (their lines and file are written after the frame, Session.flush).
    app = _app()
    shows = _shows(app)
    before = screen_bytes(app)
    press(app, OK)  # the first row: a new Battle Game (its code loads)
    assert top(app) == "BattleScreen"
    assert len(shows) >= 2 and _band_says(shows[0], "Loading...")
    assert _above_band(shows[0]) == _above_band(before)  # over the menu as it was
    assert not _band_says(shows[-1], "Loading...")
    press(app, OK)  # the first roll asks the rows per half, OK saves them, the roll is made
    press(app, OK)
    press(app, OK)  # a second roll
    assert app.session.moves > 1
    del shows[:]
    hold(app, BACK)  # undo: the game before the roll is in RAM (Session.back)
    assert app.toast.startswith("Undone") and not _band_says(shows[0], "Undoing...")
    del shows[:]
    before = screen_bytes(app)
    hold(app, BACK)  # undo again: the game is folded again from the journal
    assert _band_says(shows[0], "Undoing...") and app.toast.startswith("Undone")
    assert _above_band(shows[0]) == _above_band(before)
    press(app, BACK)  # the main menu
    del shows[:]
    press(app, OK)  # Battle Game again: its code is still loaded
    assert top(app) == "BattleScreen" and len(shows) == 1
    del shows[:]
    menu(app, "History")  # the journal is read
    assert top(app) == "History" and _band_says(shows[-2], "Loading...")
    menu(app, "Settings")
    del shows[:]
    press(app, OK)  # the Battle Game's settings: the game in progress's, nothing to load
    assert top(app) == "ModeSettings" and len(shows) == 1
    press(app, OK)  # its first setting
    assert top(app) == "EditValue"
    del shows[:]
    press(app, OK)  # saved: the list at once, the settings file written after its frame
    assert top(app) == "ModeSettings" and len(shows) == 1
    assert b'"battle.two_sixes"' in app.session.storage.load_settings()
    press(app, BACK, DOWN)
    del shows[:]
    press(app, OK)  # the Tests' settings: their rules' code loads (not on flash: dicepod.ram)
    assert top(app) == "ModeSettings" and _band_says(shows[0], "Loading...")


def test_the_loop_goes_on_to_the_work_behind_a_band_without_sleeping():
    # The band is on the panel already: the main loop (app.run) starts the pass that does the
    # work at once, not a period later, so that its screen comes sooner and a press made
    # meanwhile does not wait behind the work.
    from dicepod import app as app_module

    board = Board()
    display = board.display
    show_frame = display.show
    passes = [0]  # sleeps so far: the loop's sleep ends each pass but one behind a band
    shows = []

    def show():
        shows.append((passes[0], bytes(display.buffer)))
        show_frame()

    display.show = show
    # OK tapped (pin states a pass each, with bounce) on the main menu's first row: a new
    # Battle Game, whose code loads behind a band
    fingers = (0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0)
    sleep = board.sleep_ms

    def sleep_ms(ms):
        passes[0] += 1
        board.fingers.down = OK if passes[0] < len(fingers) and fingers[passes[0]] else 0
        sleep(ms)

    board.sleep_ms = sleep_ms
    app = app_module.run(board, ticks=len(fingers))
    assert type(app.stack[-1]).__name__ == "BattleScreen"
    bands = [i for i, (_p, frame) in enumerate(shows) if _band_says(frame, "Loading...")]
    assert len(bands) == 1 and bands[0] + 1 < len(shows), len(shows)
    band_pass, _frame = shows[bands[0]]
    screen_pass, screen = shows[bands[0] + 1]
    assert screen_pass == band_pass and not _band_says(screen, "Loading...")


class _CountedStorage(LineStorage):
    """LineStorage counting the lines of each journal append (each one LittleFS block erase
    on a Pico), whose next append of more than one line fails, writing nothing, while fail is
    set. The player's settings: four of the Battle Game's, journaled with each new game."""

    def __init__(self):
        LineStorage.__init__(self)
        self.settings = b'{"battle.buys_lucky": 1, "battle.buys_double": 2, "battle.rows": 3}'
        self.appends = []
        self.fail = False
        self.writing = False

    def write(self, seg, data):
        self.writing = True  # (MemoryStorage writes through append)
        try:
            LineStorage.write(self, seg, data)
        finally:
            self.writing = False

    def append(self, seg, line):
        if not self.writing:
            if self.fail and line.count(b"\n") > 1:
                self.fail = False
                raise OSError(5)
            self.appends.append(line.count(b"\n"))
        LineStorage.append(self, seg, line)


def test_a_moves_lines_go_to_the_flash_in_one_append():
    # A new game with its settings is one append (one LittleFS erase), not one a line, and a
    # roll is one; the lines are those line-by-line appends would write. An append that
    # fails is written again line by line: nothing lost or doubled, the game goes on.
    storage = _CountedStorage()
    app = _app(storage)
    menu(app, "battle")
    new_game = journal_kinds(app)
    assert new_game[0] == "new_game" and new_game.count("set") >= 3, new_game
    assert storage.appends == [len(new_game)], storage.appends
    menu(app, "free")
    del storage.appends[:]
    press(app, OK)
    assert storage.appends == [1], storage.appends  # a roll: one line, one append
    before = journal_kinds(app)
    storage.fail = True
    del storage.appends[:]
    menu(app, "battle")  # a new game again: its lines fail together, then go one by one
    assert not storage.fail and storage.appends == [1] * len(new_game), storage.appends
    kinds = journal_kinds(app)
    from dicepod import journal as journal_module

    seqs = [
        journal_module.decode(line)[0][0]
        for seg in storage.segments()
        for line in storage.lines(seg)
        if line[:1].isdigit()
    ]
    assert seqs == list(range(1, len(seqs) + 1))  # every seq once, in order
    assert kinds == before + new_game, kinds[len(before) :]
    assert app.session.game is not None and top(app) != "CrashScreen"


def test_a_move_is_journaled_right_after_its_frame():
    # The roll's frame is sent first, then its line is appended (the append no longer
    # delays the frame); on a flash with no room left for it the game goes back to what the
    # journal holds, on its screen, with a toast.
    storage = LineStorage()
    app = _app(storage)
    menu(app, "free")
    rolls = app.session.game.rolls
    shows = _shows(app)
    seen = []
    append = storage.append

    def watched(seg, line):
        seen.append((line, len(shows), screen_bytes(app)))
        append(seg, line)

    storage.append = watched
    press(app, OK)
    assert app.session.game.rolls == rolls + 1
    assert [line.split(b" ")[4][:7] for line, _n, _s in seen] == [b'["roll"']
    line, sent, frame = seen[0]
    assert sent >= 1 and shows[sent - 1] == frame == screen_bytes(app)  # the roll on screen
    assert not app.session.pending and journal_kinds(app)[-1] == "roll"
    # the flash full: no room for the next roll's line, nothing old that may go
    storage.capacity = storage.used()
    lines = len(journal_kinds(app))
    del seen[:]
    press(app, OK)
    assert seen  # it was tried
    assert app.session.game.rolls == rolls + 1 and len(journal_kinds(app)) == lines
    assert top(app) == "FreeRoll" and app.toast == "Flash full"
    storage.capacity = None  # room again: the game goes on
    press(app, OK)
    assert app.session.game.rolls == rolls + 2 and journal_kinds(app)[-1] == "roll"


def test_the_screens_load_after_the_first_frame_and_stop_for_a_press():
    """dicepod.ram.load_all: start() draws the first frame and imports one module; the idle
    passes import the rest, but a press the pins' IRQ latched stops them after the module
    under way, so the pass that answers it comes next (all of them take 400 ms on a Pico)."""
    from dicepod import ram

    ram.pending = None  # (a new boot: none imported yet)
    app = _app()
    assert ram.pending == list(ram._START[1:])
    keys = app.board.buttons
    latched = keys.latched
    keys.latched = lambda: OK  # a finger's press, latched while the modules load
    app.tick(20)
    assert ram.pending == list(ram._START[2:])
    keys.latched = latched
    app.tick(20)
    assert ram.pending == []
    app.tick(20)  # nothing left: a pass as before
    assert ram.pending == [] and top(app) == "MainMenu"
