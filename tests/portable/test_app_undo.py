"""Undo with RAM to spare (Session.back: a roomy heap on a Pico): the session keeps the game
before its last event beside it and an undo takes it instead of folding the journal again.
Every mode's scripted session is played with it and without it: the same frames after every
flush, the same journal, and after every undo the same game, last event and move count as a
fold of the journal gives. (An undo that must fold is done a pass later, after its Undoing...
band, App.undo: that band's frames and the journal's clock, one pass off, are left out.)
Portable (plain asserts)."""

import binascii

from app_board import BACK, OK, Board, hold, press
from app_sessions import (
    _tyranid_play,
    battle_session,
    extras_session,
    free_session,
    orks_session,
    tyranid_session,
)
from app_sessions import (
    tests_session as play_tests,
)

from dicepod import replay
from dicepod.app import App
from dicepod.rules import modes
from dicepod.settings import Settings


def _folded(session):
    """(state, last kind, last event, moves, trailing) of a fold of the journal's game."""
    module = modes.module(session.mode)
    game = None
    moves = trailing = 0
    kind = last = None
    for event in session.journal.game_events():
        if event[0] == "new_game":
            game = module.Game(Settings(module.SETTINGS))
        if not replay.step(game, event):
            trailing += 1
            continue
        kind = event[0]
        last = _plain(event)
        trailing = 0
        if kind != "new_game" and kind != "set":
            moves += 1
    return _state(game), kind, last, moves, trailing


def _plain(event):
    return None if event is None else [event[0], list(event[1])]


def _state(value):
    """A rules Game's whole state as plain lists and dicts (its objects' attributes, deep)."""
    if isinstance(value, (list, tuple)):
        return [_state(v) for v in value]
    if isinstance(value, dict):
        return dict([(k, _state(v)) for k, v in value.items()])
    if isinstance(value, bytearray):
        return bytes(value)
    if hasattr(value, "__dict__") and not callable(value):
        return [type(value).__name__, _state(value.__dict__)]
    return value


def _band():
    """The bottom page (rows 56..63) of a frame showing the Undoing... band."""
    import framebuf

    buf = bytearray(1024)
    canvas = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
    canvas.fill_rect(0, 55, 128, 9, 1)
    canvas.text("Undoing...", (128 - 10 * 8) // 2, 56, 0)
    return bytes(buf[896:])


def frame_crcs(app):
    """Record the crc32 of the frame at every show() of app's display (a session's frames, a
    few bytes each), the Undoing... band's left out; return the list it fills."""
    frames = []
    display = app.board.display
    show = display.show
    band = _band()

    def shown():
        if bytes(display.buffer[896:]) != band:
            frames.append(binascii.crc32(bytes(display.buffer)) & 0xFFFFFFFF)
        show()

    display.show = shown
    return frames


def _play(session_fn, spare):
    """Play a scripted session; return (frames' crc32s, journal, undos taken fast)."""
    app = App(Board(seed=5))
    app.start()
    session = app.session
    frames = frame_crcs(app)
    undo = session.undo
    fast = [0]

    def checked_undo():
        if not spare:  # the undo folds the journal again
            session.back = None
        kept = session.back is not None
        done = undo()
        if done:
            session.flush()  # (the undo's line, written after the frame in the app)
            fast[0] += kept
            got = (
                _state(session.game),
                session.last_kind,
                _plain(session.last_event),
                session.moves,
                session.trailing,
            )
            assert got == _folded(session), (got, _folded(session))
        return done

    session.undo = checked_undo
    session_fn(app)
    # each line's SEQ, GAME and EVENT (its MS, and the chain hashes over it, left out)
    lines = app.board.storage.journal().splitlines()
    journal = [line.split(b" ")[:2] + line.split(b" ")[4:5] for line in lines]
    return frames, journal, fast[0]


def _same_with_and_without(session_fn, fewest):
    frames, journal, fast = _play(session_fn, False)
    assert fast == 0
    spare_frames, spare_journal, fast = _play(session_fn, True)
    assert fast >= fewest, fast
    print("undos without a fold:", fast)
    assert spare_journal == journal
    assert len(spare_frames) == len(frames) > 20
    assert spare_frames == frames


def test_free_roll_undo_with_ram_to_spare_is_a_fold():
    _same_with_and_without(lambda app: free_session(app, runs=(10, 10)), 1)


def test_battle_undo_with_ram_to_spare_is_a_fold():
    _same_with_and_without(lambda app: battle_session(app, games=1), 1)


def test_tests_undo_with_ram_to_spare_is_a_fold():
    _same_with_and_without(play_tests, 1)


def _undos(app, n):
    """Hold BACK n times on the game screen: n undos."""
    for _ in range(n):
        hold(app, BACK)


def _tyranid(app):
    tyranid_session(app, steps=(25, 0))
    _undos(app, 3)
    _tyranid_play(app, lambda name: None, 10)
    _undos(app, 1)


def test_tyranid_undo_with_ram_to_spare_is_a_fold():
    _same_with_and_without(_tyranid, 2)


def _orks(app):
    orks_session(app, rounds=6)
    _undos(app, 3)
    press(app, OK)
    _undos(app, 1)


def test_orks_undo_with_ram_to_spare_is_a_fold():
    _same_with_and_without(_orks, 2)


def test_extras_with_ram_to_spare_are_unchanged():
    _same_with_and_without(extras_session, 0)


def test_the_undo_copy_steps_after_the_frame():
    """The second fold of a press's events (Session.back, one event behind) waits until the
    pass's frame is sent: in a loop pass no Back.step comes before a play() or the pass's
    first show(), and once the pass has written its journal nothing waits."""
    from dicepod import session as session_module

    app = App(Board(seed=5))
    app.start()
    session = app.session
    log = []  # per pass: its plays, shows and steps, in order
    step = session_module.Back.step
    play = session.play
    show = app.board.display.show
    tick = app.tick
    waiting = []  # passes that ended with their journal written and steps still waiting

    def logged_step(self, event, kind, moves):
        log[-1].append("step")
        return step(self, event, kind, moves)

    def logged_play(event, tell=True):
        log[-1].append("play")
        return play(event, tell)

    def logged_show():
        log[-1].append("show")
        return show()

    def logged_tick(dt_ms):
        log.append([])
        tick(dt_ms)
        back = session.back
        if back is not None and back.pending and not session.pending:
            waiting.append(len(log))

    session_module.Back.step = logged_step
    try:
        session.play = logged_play
        app.board.display.show = logged_show
        app.tick = logged_tick
        battle_session(app, games=1)
    finally:
        session_module.Back.step = step
    played = 0
    for events in log:
        if "step" in events:
            first = events.index("step")
            assert "play" not in events[first:], events
            if "play" in events:
                played += 1
                assert "show" in events[:first], events
    assert played > 20, played
    assert waiting == []
