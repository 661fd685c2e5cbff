"""Typed errors for the PC tools, caught once in cli.main and printed as one line."""

from __future__ import annotations


class UserError(Exception):
    """A problem the user can fix (bad argument, missing file, no port): message + exit code."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


class UsageError(UserError):
    """Bad command-line input: exit code 2."""

    def __init__(self, message: str) -> None:
        super().__init__(message, 2)


class LockedError(UserError):
    """The database is locked by another program past the busy timeout (the logger waits)."""
