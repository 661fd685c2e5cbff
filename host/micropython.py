"""CPython stand-in for MicroPython's ``micropython`` module, so the firmware's pure modules
(which do ``from micropython import const``) import unchanged on a PC. Never deployed."""


def const(value):
    """Return value unchanged (on MicroPython, const() folds it at compile time)."""
    return value
