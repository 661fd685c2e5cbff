"""A crash's traceback text and its journal event. Shell code, loaded by the app's crash
handler only when a step has crashed (and dropped again), so its code is not in RAM otherwise;
short of memory, the handler records the exception's name alone."""

import io
import sys

from dicepod.journal import NAME_CHARS


def trace_text(exc):
    """Return the traceback of exc as text (sys.print_exception on MicroPython)."""
    buffer = io.StringIO()
    print_exception = getattr(sys, "print_exception", None)
    if print_exception is not None:
        print_exception(exc, buffer)
    else:  # CPython (tests, emulator)
        __import__("traceback").print_exception(type(exc), exc, exc.__traceback__, file=buffer)
    return buffer.getvalue()  # pyright: ignore (the Pico stubs lack StringIO.getvalue)


def crash_event(exc, text):
    """Return the journal event for a crash: (name, file, line) of its innermost frame."""
    name = type(exc).__name__
    where = "unknown"
    line = 0
    for row in text.split("\n"):
        row = row.strip()
        if row.startswith('File "'):
            end = row.find('"', 6)
            where = row[6:end].replace("\\", "/").split("/")[-1]
            if where.endswith(".mpy"):  # a compiled module names itself (the deploy tool's
                where = where[:-4] + ".py"  # source_name): the record names its source
            at = row.find("line ")
            if at >= 0:
                digits = ""
                for ch in row[at + 5 :]:
                    if not "0" <= ch <= "9":
                        break
                    digits += ch
                line = int(digits) if digits else 0
    safe = ""
    for ch in where[:24]:
        safe += ch if ch in NAME_CHARS else "_"
    return ("crash", (name[:24], safe or "unknown", line))
