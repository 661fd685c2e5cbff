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
