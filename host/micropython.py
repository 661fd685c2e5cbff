"""CPython stand-in for MicroPython's ``micropython`` module, so the firmware's pure modules
(which do ``from micropython import const``) import unchanged on a PC. Never deployed."""

from typing import TypeVar

_T = TypeVar("_T")


def const(value: _T) -> _T:
    """Return value unchanged (on MicroPython, const() folds it at compile time)."""
    return value
