"""Make the 6x8 font's bitmap table (firmware/dicepod/ui/font6.py, _SMALL) from the 8x8 font.

    .venv/bin/python tools/font6.py            prints the table's Python text
    .venv/bin/python tools/font6.py --show S   draws S in the font as text art

The 8x8 font (MicroPython's font_petme128_8x8, host/framebuf.py) draws most glyphs six columns
wide with two-pixel strokes. Each glyph here keeps its inked columns and, while it is wider than
five, merges the two neighbouring columns that differ least (OR): a stroke two pixels wide
becomes one, the shape stays. Narrower glyphs are centred in five columns. The digits are drawn
by hand (DIGITS): merged, a 1 read as an i and a 0 as a D, and counts are what a class reads.
A column of space follows every glyph when drawn: 6 pixels a character, 21 characters across
the 128-pixel screen (16 with the 8x8 font). tests/test_font6.py checks the firmware's table
is this output.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))

import framebuf  # noqa: E402

FIRST = 32
LAST = 126
WIDTH = 5


# 0-9, five columns each (bit 0 the top row): plain 5x7 digits with one-pixel strokes.
DIGITS = (
    (0x3E, 0x51, 0x49, 0x45, 0x3E),
    (0x00, 0x42, 0x7F, 0x40, 0x00),
    (0x42, 0x61, 0x51, 0x49, 0x46),
    (0x21, 0x41, 0x45, 0x4B, 0x31),
    (0x18, 0x14, 0x12, 0x7F, 0x10),
    (0x27, 0x45, 0x45, 0x45, 0x39),
    (0x3C, 0x4A, 0x49, 0x49, 0x30),
    (0x01, 0x71, 0x09, 0x05, 0x03),
    (0x36, 0x49, 0x49, 0x49, 0x36),
    (0x06, 0x49, 0x49, 0x29, 0x1E),
)


def _ones(n):
    return bin(n).count("1")


def glyph(code):
    """The five columns (MONO_VLSB bytes, bit 0 the top row) of character code."""
    if 48 <= code <= 57:
        return list(DIGITS[code - 48])
    cols = list(framebuf.FONT[(code - FIRST) * 8 : (code - FIRST) * 8 + 8])
    while cols and cols[0] == 0:
        cols.pop(0)
    while cols and cols[-1] == 0:
        cols.pop()
    while len(cols) > WIDTH:
        best = min(range(len(cols) - 1), key=lambda i: (_ones(cols[i] ^ cols[i + 1]), i))
        cols[best : best + 2] = [cols[best] | cols[best + 1]]
    pad = (WIDTH - len(cols)) // 2
    return [0] * pad + cols + [0] * (WIDTH - len(cols) - pad)


def table():
    """The whole table: WIDTH bytes per character from FIRST to LAST."""
    out = bytearray()
    for code in range(FIRST, LAST + 1):
        out.extend(glyph(code))
    return bytes(out)


def source():
    """The table as the Python text in font6.py (a bytes literal, 4 glyphs a line)."""
    data = table()
    lines = []
    step = WIDTH * 4
    for start in range(0, len(data), step):
        lines.append('    b"' + "".join("\\x%02x" % b for b in data[start : start + step]) + '"')
    return "_SMALL = const(\n" + "\n".join(lines) + "\n)\n"


def show(text):
    rows = [""] * 8
    for ch in text:
        cols = glyph(ord(ch)) + [0]
        for r in range(8):
            rows[r] += "".join("#" if col >> r & 1 else "." for col in cols)
    return "\n".join(rows)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--show":
        print(show(sys.argv[2]))
    else:
        print(source(), end="")
