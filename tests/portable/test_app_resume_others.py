"""Resume after a reset: a new App on the same storage (what a power cycle gives) shows exactly
the same pixels as the app before it: Tests, Free roll and the co-op action screens (the
Battle Game's phases are in test_app_resume.py). Portable (plain asserts)."""

from app_board import (
    DOWN,
    OK,
    UP,
    Board,
    act,
    answer,
    file_storage,
    last,
    menu,
    press,
    screen_bytes,
    top,
)
from checks import MICROPYTHON, skip

from dicepod.app import App


def _app(storage=None, seed=3):
    app = App(Board(storage=storage, seed=seed))
    app.start()
    return app


def _resumes_identically(app):
    """A reset: the old app goes (its game and screens with it, as on the device) and a new
    App on the same storage must show exactly the same pixels. Returns the new app."""
    import gc

    expected = screen_bytes(app)
    name = top(app)
    storage = app.board.storage
    seed = app.board.rng.state
    del app.stack[:]
    app.session.game = None
    gc.collect()
    again = _app(storage, seed=seed)
    assert top(again) == name, (top(again), name)
    assert screen_bytes(again) == expected, name
    return again


def test_resume_tests_and_free_screens():
    app = _app(file_storage("resume-others"))
    menu(app, "tests")
    screen = app.stack[-1]
    while screen.action != 2:
        press(app, DOWN)
    press(app, OK, DOWN, OK)  # TN 5+
    while screen.action != 0:
        press(app, UP)
    press(app, OK, OK)
    del screen  # (it holds the old app: a reset must free it)
    app = _resumes_identically(app)
    menu(app, "free")
    press(app, OK, OK)
    app = _resumes_identically(app)


def test_resume_coop_screens():
    # A reset recompiles the mode's rules from source: for tyranid.py that needs ~100 KB of
    # working heap on top of this harness, more than the 190 KB portable run leaves under the
    # MicroPython unix port (the device runs the deploy tool's .mpy files; the heap test in
    # tests/test_app_heap.py covers MicroPython with those). CPython checks it here.
    if MICROPYTHON:
        skip("a reset recompiles tyranid.py from source: more heap than the run leaves")
    app = _app(file_storage("resume-coop"))
    menu(app, "tyranid")
    act(app, "Level 1")
    assert top(app) == "Team"
    last(app)
    press(app, OK)  # the first four Marines: Start
    assert top(app) == "TyranidScreen"
    for step in range(12):
        labels = [a[0] for a in app.stack[-1].actions]
        act(app, labels[0])
        answer(app)
        if top(app) == "TyranidScreen" and step % 5 == 4:
            app = _resumes_identically(app)
