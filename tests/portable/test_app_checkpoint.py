"""The game in progress saved in a quiet while (dicepod.resume): every mode's state reads back
to itself; a power-on folds only the events after the checkpoint and shows the very pixels and
game a fold from the first event gives; a checkpoint that does not agree with the journal (a
torn or changed file, an undo past it, another game) is passed over. Portable (plain asserts):
CPython and MicroPython."""

import json

import app_sessions
from app_board import BACK, OK, Board, hold, idle, menu, press, screen_bytes, top
from checks import skip

from dicepod import ram, replay, resume
from dicepod.app import App


def _new(game):
    from dicepod.settings import Settings

    return type(game)(Settings(game.settings.specs))


def _state(game):
    """A game's state as resume.pack gives it (what differs from a new game's)."""
    return resume.pack(game, _new(game))


def test_every_modes_state_reads_back_to_itself():
    # At every screen worth a picture of every mode's session: packed, through JSON, restored
    # into a new game, packed again: the same.
    checked = {}

    def run(app, _snap):
        def snap(_name):
            game = app.session.game
            if game is None:
                return
            state = _state(game)
            copy = _new(game)
            resume.restore(copy, json.loads(json.dumps(state)))
            assert _state(copy) == state, (app.session.mode, state, _state(copy))
            checked[app.session.mode] = checked.get(app.session.mode, 0) + 1

        app_sessions.every_mode(app, snap)

    app_sessions.run_recorded(run)
    for mode in ("free", "battle", "tests", "tyranid", "orks"):
        assert checked.get(mode, 0) >= 3, checked


class _Counted:
    """replay.step counted: how many events a fold steps."""

    def __init__(self):
        self.step = replay.step
        self.n = 0

    def __enter__(self):
        def counted(game, event):
            self.n += 1
            return self.step(game, event)

        replay.step = counted
        return self

    def __exit__(self, *exc):
        replay.step = self.step


class _Resident:
    """ram.RESIDENT set for a with block: True, every module kept (the code in flash, dicepod's
    build); False, a mode's code loaded into the heap (the stock build)."""

    def __init__(self, value):
        self.value = value
        self.was = ram.RESIDENT  # (put back on leaving)

    def __enter__(self):
        ram.RESIDENT = self.value
        return self

    def __exit__(self, *exc):
        ram.RESIDENT = self.was


def _played(storage, presses):
    """A Free roll game of presses rolls (ram.RESIDENT as the test set it); returns the app."""
    app = App(Board(storage=storage, seed=5))
    app.start()
    menu(app, "free")
    for _ in range(presses):
        press(app, OK)
    return app


def _reset(app):
    """A power cycle: a new App on the same storage (and seed)."""
    import gc

    storage = app.board.storage
    del app.stack[:]
    app.session.game = None
    gc.collect()
    again = App(Board(storage=storage, seed=5))
    with _Counted() as steps:
        again.start()
    return again, steps.n


def _full_fold(app):
    """The game as a fold from its first event gives it (an undo's fold: no checkpoint)."""
    session = app.session
    session.refold(True)
    return _state(session.game)


def test_a_power_on_folds_only_the_events_after_the_checkpoint():
    import sys

    from app_board import LineStorage

    if sys.implementation.name == "micropython":
        skip(
            "every mode's code resident (dicepod's build) is over the 64-bit unix port's heap:"
            " tests/test_pico_resume.py plays it on the emulated Pico"
        )

    with _Resident(True):
        storage = LineStorage()
        app = _played(storage, 60)
        length = app.session.journal.game_length
        assert length >= resume.EVERY, length
        assert storage.size(resume.NAME) == 0  # none yet: no quiet while
        idle(app, 11000 // 20)  # quiet whiles: the scrub's, then the checkpoint's
        assert storage.size(resume.NAME) > 0
        assert app.session.saved == (app.session.journal.game, 0, length)
        saved = b"".join(storage.lines(resume.NAME))
        for _ in range(4):  # events after it (the first press may only wake the display)
            press(app, OK)
        after = app.session.journal.game_length - length
        assert after >= 2, after
        screen = screen_bytes(app)
        state = _state(app.session.game)
        name = top(app)
        app, steps = _reset(app)
        assert top(app) == name and screen_bytes(app) == screen
        assert _state(app.session.game) == state
        assert steps <= after, (steps, after, length)  # not the whole game again
        assert _full_fold(app) == state

        # One that does not agree is passed over: a changed byte (the checksum), a torn file,
        # another journal's; then an undo past it; then another game.
        cases = [
            saved[:40] + (b"9" if saved[40:41] != b"9" else b"8") + saved[41:],
            saved[: len(saved) // 2],
            saved.replace(app.session.journal.id.encode(), b"0" * 16, 1),
        ]
        for bad in cases:
            storage.write(resume.NAME, bad)
            app, steps = _reset(app)
            assert _state(app.session.game) == state
            assert steps >= app.session.journal.game_length - 2, steps  # from the start
        storage.write(resume.NAME, saved)
        app, steps = _reset(app)
        assert steps <= after and _state(app.session.game) == state
        hold(app, BACK)  # an undo: the checkpoint is behind an undo from now on
        assert app.toast.startswith("Undone")
        hold(app, BACK)
        undone = _state(app.session.game)
        app, steps = _reset(app)
        assert _state(app.session.game) == undone
        assert steps >= app.session.journal.game_length - 4, steps
        menu(app, "battle")  # a new game: the old game's checkpoint is not this game's
        app, steps = _reset(app)
        assert app.session.mode == "battle" and app.session.moves == 0


def test_a_checkpoint_gives_way_to_a_press_before_it_writes():
    # resume.write asks latched (the app passes its buttons' latched presses) before the
    # flash is written: a press waits for no erase, and the checkpoint comes in a later quiet
    # while.
    import sys

    from app_board import LineStorage

    if sys.implementation.name == "micropython":
        skip("every mode's code resident is over the 64-bit unix port's heap")
    with _Resident(True):
        storage = LineStorage()
        app = _played(storage, 60)
        asked = []
        assert not resume.write(app.session, lambda: asked.append(1) or True)
        assert asked == [1] and storage.size(resume.NAME) == 0
        assert resume.write(app.session, lambda: False)
        assert storage.size(resume.NAME) > 0


def test_the_stock_build_imports_the_checkpoint_code_only_when_there_is_one():
    # Where the code loads into the heap (ram.RESIDENT false: the stock build) a power-on with
    # no checkpoint on the flash folds the game without importing dicepod.resume; the quiet
    # while writes one, and the next power-on folds only what came after it.
    import sys

    from app_board import LineStorage

    import dicepod

    with _Resident(False):
        try:
            storage = LineStorage()
            app = _played(storage, 60)
            length = app.session.journal.game_length
            sys.modules.pop("dicepod.resume", None)  # (and from its package: an import's
            del dicepod.resume  # `from dicepod import resume` takes the attribute first)
            app, steps = _reset(app)
            assert "dicepod.resume" not in sys.modules
            assert steps >= length - 2, (steps, length)  # the whole game folded
            idle(app, 11000 // 20)  # quiet whiles: the scrub's, then the checkpoint's
            assert "dicepod.resume" in sys.modules and storage.size(resume.NAME) > 0
            for _ in range(4):  # events after it (the first may only wake the display)
                press(app, OK)
            after = app.session.journal.game_length - length
            assert after >= 2, after
            state = _state(app.session.game)
            screen = screen_bytes(app)
            app, steps = _reset(app)
            assert screen_bytes(app) == screen and _state(app.session.game) == state
            assert steps <= after, (steps, after, length)  # not the whole game again
        finally:
            sys.modules["dicepod.resume"] = resume  # (one module object for every test)
            dicepod.resume = resume


def test_a_long_run_with_no_quiet_while_is_saved_on_the_way():
    # An auto-roll of 1,000 plays its events with no quiet while (the screen moves every
    # pass): the game is saved whole on the way, once _OVERDUE_EVENTS were played since the
    # last checkpoint and no finger was on a button for a moment, so that a power cut at any
    # point of the run leaves a power-on no more than that to fold.
    import sys

    from app_board import LineStorage, wait

    from dicepod import app as app_module

    if sys.implementation.name == "micropython":
        skip("every mode's code resident is over the 64-bit unix port's heap")
    bound = app_module._OVERDUE_EVENTS + 2 * app_module._RUN_FLUSH_MOVES
    with _Resident(True):
        storage = LineStorage()
        app = App(Board(storage=storage, seed=5))
        app.start()
        menu(app, "free")
        press(app, OK)  # a first roll
        app_sessions._auto_roll(app, 1000)
        most = 0
        for _ in range(400):
            if not app.stack[-1].left:
                break
            wait(app)
            most = max(most, app.session.unsaved())
        assert app.stack[-1].left == 0
        length = app.session.journal.game_length
        assert length >= 1000, length
        assert app.session.saved is not None and length - app.session.saved[2] <= bound
        assert app.session.journal.game_length - app.session.unsaved() > 800  # saved on the way
        assert most <= bound, (most, bound)
        app, steps = _reset(app)  # the power cut at the run's end, before any quiet while
        assert steps <= bound, (steps, bound, length)
        state = _state(app.session.game)  # (the last rolls of the run, not on the flash yet,
        assert state["rolls"] >= 1000 - app_module._RUN_FLUSH_MOVES  # lost with the power)
        assert _full_fold(app) == state  # the game as a fold from its first event gives it
