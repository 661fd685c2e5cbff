"""dicepod.replay, the one replay path: the undo rule against the naive one, the fold step, and
the rules' contract the app relies on when it keeps its game after an illegal move (no refold
from the flash): Game.apply raises with the game as it was. Portable (plain asserts)."""

from app_sessions import every_mode, run_recorded
from checks import MICROPYTHON, skip, undone
from seeded import Seeded

from dicepod import journalfix, replay
from dicepod.rules import free, modes
from dicepod.settings import MissingValue, Settings


def _random_game(rng, n):
    events = [("new_game", ("free",))]
    for i in range(n):
        pick = rng.randbelow(7)
        if pick < 3:
            events.append(("undo", ()))
        elif pick == 3:
            events.append(("crash", ("MemoryError", "app.py", i)))
        else:
            events.append(("roll", (i % 6 + 1,)))
    return events


def test_the_undo_rule_matches_the_naive_one():
    rng = Seeded(16)
    for trial in range(300):
        events = _random_game(rng, trial % 40)
        expected = undone(events)
        marks = replay.keep(event[0] for event in events)
        assert len(marks) == len(events) and bytes(marks).strip(b"\x00\x01") == b""
        assert [e for e, m in zip(events, marks) if m] == expected
        assert journalfix.effective(events) == expected
        assert journalfix.effective(tuple(events)) == expected


def test_undo_never_cancels_new_game_and_an_ignored_undo_eats_nothing_later():
    start = ("new_game", ("free",))
    events = [start, ("roll", (1,)), ("undo", ()), ("undo", ()), ("roll", (2,))]
    assert list(replay.keep(e[0] for e in events)) == [1, 0, 0, 0, 1]
    assert journalfix.effective(events) == [start, ("roll", (2,))]
    assert journalfix.effective([start, ("undo", ())]) == [start]
    assert list(replay.keep(())) == []


def test_step_folds_moves_and_steps_over_the_app_s_own_events():
    game = free.Game(Settings(free.SETTINGS))
    assert replay.step(game, ("new_game", ("free",)))
    assert replay.step(game, ("roll", (3, 4)))
    assert not replay.step(game, ("crash", ("ValueError", "app.py", 12)))
    assert game.rolls == 1 and game.dice == 2
    try:
        replay.step(game, ("roll", (9,)))
    except ValueError:
        pass
    else:
        raise AssertionError("accepted a face of 9")
    assert game.rolls == 1 and game.dice == 2


def _state(value, depth=0):
    """A comparable copy of everything a value holds (objects by their attributes)."""
    if depth > 16:
        raise AssertionError("too deep (a cycle?)")
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return value
    if isinstance(value, bytearray):
        return ("bytearray", bytes(value))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_state(v, depth + 1) for v in value])
    if isinstance(value, dict):
        return ("dict", sorted([(repr(k), _state(v, depth + 1)) for k, v in value.items()]))
    attrs = getattr(value, "__dict__", None)
    if isinstance(attrs, dict):
        items = [(k, _state(v, depth + 1)) for k, v in attrs.items()]
        return (type(value).__name__, sorted(items))
    return repr(value)


def _fold(mode, events):
    module = modes.module(mode)
    game = module.Game(Settings(module.SETTINGS))
    for event in events:
        replay.step(game, event)
    return game


def _candidates(events):
    """Events to try at every point of a game: every distinct event of it, and each kind with
    no data, one value too many, and out-of-range values."""
    seen = {}
    for kind, data in events:
        if kind == "new_game":
            continue
        seen[repr((kind, data))] = (kind, data)
        for bad in ((), data + (1,), tuple([99 for _v in data]), tuple([-1 for _v in data])):
            seen[repr((kind, bad))] = (kind, bad)
    seen["nonsense"] = ("nonsense", (1,))
    return [seen[key] for key in sorted(seen)]


def test_an_illegal_event_leaves_every_mode_s_game_as_it_was():
    if MICROPYTHON:
        skip("CPython only: every mode's session, each of its states tried with every event")
    app, _shots = run_recorded(every_mode)
    games = {}
    for _seq, entry, _body in journalfix.read_entries(app.session.journal):
        games.setdefault(entry[1], []).append(entry[3])
    rng = Seeded(61)
    tried = {}
    for number in sorted(games):
        events = journalfix.effective(games[number])
        mode = events[0][1][0]
        pool = _candidates(events)
        for k in range(1, len(events) + 1):
            if len(events) > 60 and rng.randbelow(len(events)) >= 60:
                continue  # about 60 states of a long game
            game = _fold(mode, events[:k])
            before = _state(game)
            for candidate in pool:
                try:
                    game.apply(candidate)
                except (ValueError, MissingValue) as exc:
                    name = type(exc).__name__
                    tried[mode + " " + name] = tried.get(mode + " " + name, 0) + 1
                    assert _state(game) == before, (mode, k, candidate)
                    continue
                except Exception:  # noqa: S110 - malformed data a screen never plays: a crash
                    pass  # (the app restarts from the journal), outside the contract
                game = _fold(mode, events[:k])  # legal here (or a crash): back to state k
    for mode, _title in modes.MODES:
        assert tried.get(mode + " ValueError", 0) > 100, (mode, tried)
    assert tried.get("orks MissingValue", 0) + tried.get("tyranid MissingValue", 0) > 0, tried
