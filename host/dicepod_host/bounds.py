"""Checked, bounded command-line values: argparse `type=` functions that turn anything out of
range (nan, inf, negative, huge) into a one-line usage error instead of a traceback or a run
that never ends. Each names its option and its bounds."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

# The longest a wait or a run may be asked to last: a week (seconds).
MAX_SECONDS = 7 * 24 * 3600.0


def seconds(
    name: str, low: float = 0.0, high: float = MAX_SECONDS, allow_negative_one: bool = False
) -> Callable[[str], float]:
    """Return a parser of a finite number of seconds in low..high (or -1 when allowed)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} needs a number of seconds") from None
        if allow_negative_one and value == -1:
            return value
        if not math.isfinite(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                "{} must be {:g} to {:g} seconds{}".format(
                    name, low, high, " (or -1)" if allow_negative_one else ""
                )
            )
        return value

    return parse


def integer(name: str, low: int, high: int) -> Callable[[str], int]:
    """Return a parser of an integer in low..high."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip()) if len(text) <= 24 else None
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number {low} to {high}")
        return value

    return parse
