"""Power cut at every byte: a long session's journal is cut at each byte offset (what a power
cut while writing leaves), and a new App starts on it. Recovery must keep every completed
event and nothing else (the storage is cut back to the last whole line), and the app must
resume exactly where the game was after that event: same screen pixels and the same game
state as an App started on exactly those complete lines. CPython (thousands of restarts)."""

import binascii

import app_sessions
from app_board import Board, LineStorage

from dicepod import ram
from dicepod.app import App


def _session_journal():
    app = App(Board(seed=21))
    app.start()
    app_sessions.tests_session(app)
    app_sessions.battle_session(app)  # the best of three
    return app.board.storage.journal()


def _start(data):
    storage = LineStorage(data)  # segment 1: its header, then the lines
    app = App(Board(storage=storage, seed=5, strict=False))
    app.start()
    return app, storage


def _fingerprint(app):
    state = getattr(app.session.game, "state", None)
    return (
        app.session.mode,
        app.session.moves,
        app.session.last_event,
        state() if state else None,
        type(app.stack[-1]).__name__,
        binascii.crc32(bytes(app.board.display.buffer)),
    )


def test_power_cut_at_every_byte_keeps_exactly_the_completed_events(monkeypatch):
    # Thousands of restarts in one process: keep the mode's modules loaded between them (the
    # stock firmware's policy releases them; re-importing would only cost time here).
    monkeypatch.setattr(ram, "release", lambda: None)
    journal = _session_journal()
    assert len(journal) > 6000 and journal.count(b"\n") > 120
    assert journal.count(b"\n@ ") == 0  # one segment (its header is the first line)
    header = journal.find(b"\n") + 1
    boundaries = [header]
    for i, byte in enumerate(journal):
        if byte == 0x0A and i + 1 > header:
            boundaries.append(i + 1)
    reference = {}
    for count, boundary in enumerate(boundaries):
        app, _storage = _start(journal[:boundary])
        assert type(app.stack[-1]).__name__ != "Message"  # no notice
        assert app.session.journal.seq == count
        reference[boundary] = _fingerprint(app)
    line = 0
    for offset in range(header, len(journal) + 1):
        while line + 1 < len(boundaries) and boundaries[line + 1] <= offset:
            line += 1
        kept = boundaries[line]
        app, storage = _start(journal[:offset])
        assert storage.journal() == journal[:kept], offset  # the torn line is cut, no more
        assert type(app.stack[-1]).__name__ != "Message", offset  # silently
        assert app.session.journal.seq == line, offset
        assert _fingerprint(app) == reference[kept], offset
