"""Helpers shared by the portable tests (plain functions, no pytest: the same code runs under
CPython and MicroPython)."""

import sys

MICROPYTHON = sys.implementation.name == "micropython"


class Skip(Exception):
    """Raised by skip(): tests/mp_runner.py prints SKIP for it (not PASS), and pytest reports it
    as skipped (the hook in tests/conftest.py)."""


def skip(reason):
    """End the running test as skipped on this interpreter, saying why."""
    raise Skip(reason)


def raises(function, *args):
    """True when function(*args) raises ValueError (what the rules raise for an illegal move or
    a malformed event), False when it returns."""
    try:
        function(*args)
    except ValueError:
        return True
    return False


def check_events(events):
    """Every event must be a valid journal event (canonical bytes, name charset):
    journal.check_event raises otherwise."""
    from dicepod import journal  # only for the modules that check events

    for event in events:
        journal.check_event(event)


def undone(events):
    """The undo rule the naive way, the oracle for dicepod.replay's one pass over marks (and the
    journal's streamed replay): each undo pops the last effective event, never the game's
    new_game; an undo with nothing left is ignored."""
    out = []
    for event in events:
        if event[0] == "undo":
            if out and not (len(out) == 1 and out[0][0] == "new_game"):
                out.pop()
        else:
            out.append(event)
    return out
