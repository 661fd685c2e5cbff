"""Power cut anywhere: a long session's journal is cut at byte offsets (what a power cut while
writing leaves): at each line's end and either side of it, and at every byte of one line of
each kind of event; a new App starts on it. Recovery must keep every completed
event and nothing else (the storage is cut back to the last whole line), and the app must
resume exactly where the game was after that event: same screen pixels and the same game
state as an App started on exactly those complete lines. CPython (over a thousand restarts)."""

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


def _cuts(journal, boundaries):
    """Where to cut: every line's end, one byte either side of it, and every byte of the first
    line of each kind of event (a cut inside a line is the same recovery wherever it falls:
    these cover each kind's shape, every other line its edges)."""
    cuts = set()
    kinds = set()
    for i, start in enumerate(boundaries[:-1]):
        end = boundaries[i + 1]
        cuts.update((start, start + 1, end - 1))
        kind = journal[start:end].split(b'["', 1)[-1].split(b'"', 1)[0]
        if kind not in kinds:
            kinds.add(kind)
            cuts.update(range(start, end))
    cuts.add(len(journal))
    return sorted(cuts), kinds


def test_power_cut_anywhere_keeps_exactly_the_completed_events(monkeypatch):
    # Many restarts in one process: keep the mode's modules loaded between them (the stock
    # firmware's policy releases them; re-importing would only cost time here).
    monkeypatch.setattr(ram, "release", lambda: None)
    journal = _session_journal()
    assert len(journal) > 6000 and journal.count(b"\n") > 120
    assert journal.count(b"\n@ ") == 0  # one segment (its header is the first line)
    header = journal.find(b"\n") + 1
    boundaries = [header]
    for i, byte in enumerate(journal):
        if byte == 0x0A and i + 1 > header:
            boundaries.append(i + 1)
    cuts, kinds = _cuts(journal, boundaries)
    assert len(kinds) >= 8 and len(cuts) > 3 * len(boundaries), (kinds, len(cuts))
    reference = {}
    for count, boundary in enumerate(boundaries):
        app, _storage = _start(journal[:boundary])
        assert type(app.stack[-1]).__name__ != "Message"  # no notice
        assert app.session.journal.seq == count
        reference[boundary] = _fingerprint(app)
    line = 0
    for offset in cuts:
        while line + 1 < len(boundaries) and boundaries[line + 1] <= offset:
            line += 1
        kept = boundaries[line]
        app, storage = _start(journal[:offset])
        assert storage.journal() == journal[:kept], offset  # the torn line is cut, no more
        assert type(app.stack[-1]).__name__ != "Message", offset  # silently
        assert app.session.journal.seq == line, offset
        assert _fingerprint(app) == reference[kept], offset
