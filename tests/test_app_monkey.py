"""Random presses (seeded) through the real app: fingers on the pins, through the real buttons
driver, in every screen reachable from the menu, holds included. No crash may happen (a crash
record in the journal is a bug in a screen), and a reset afterwards resumes the same game state.
CPython."""

import pytest
from app_board import Board, hold, press
from seeded import Seeded

from dicepod.app import App

# OK more often than the rest: it is the button that moves a game forward. Negative: a hold.
_CODES = (1, 2, 4, 8, 1, 2, -4, -8, 4, 4, 4, 4, 4, 2, 1)


@pytest.mark.parametrize("seed", [1, 4, 6])
def test_random_presses_never_crash_and_resume(seed):
    rng = Seeded(seed)
    app = App(Board(seed=seed, strict=False))
    app.start()
    for step in range(1500):
        code = _CODES[rng.randbelow(len(_CODES))]
        if code > 0:
            press(app, code)
        else:
            hold(app, -code)
        assert not app.crashes, (step, getattr(app.stack[-1], "lines", None))
    assert app.session.journal.seq > 60
    again = App(Board(storage=app.board.storage, seed=seed))
    again.start()
    assert again.session.mode == app.session.mode and again.session.moves == app.session.moves
    state = getattr(app.session.game, "state", None)
    if state is not None:
        assert again.session.game.state() == state()
