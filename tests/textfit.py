"""Text that fits: a display that watches every drawing call of every frame the app shows and
notes text past the screen's edge or text drawn over (CPython; host/framebuf.py draws).

Each character is judged by its ink (the lit columns and rows of its glyph, in the 8x8 font or
the 6x8 one of dicepod.ui.font6), not its cell, so a glyph's blank margin may touch the edge or
a neighbour. A frame has a problem when
- a character's ink is outside the 128x64 screen ("past the edge");
- two characters of different text calls share a pixel ("overlap");
- a rectangle, line or pixel drawn after a character covers part of its ink ("drawn over": a
  die over a label, a message box across a line); a dark fill that erases characters whole
  (the app's message band in place of the bottom line) hides them and is no problem;
- a big letter (draw.big, draw.banner: filled squares) runs past the edge.
The frame is checked at show(); problems() names the top screen and the text.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _sub in ("firmware", "host", "tests/portable"):
    if str(ROOT / _sub) not in sys.path:
        sys.path.insert(0, str(ROOT / _sub))

import framebuf  # noqa: E402
from app_board import Display  # noqa: E402

from dicepod.ui import font6  # noqa: E402  (the table; the app's copy may be a re-import)

W = 128
H = 64


def _ink(columns):
    """(first column, last column, first row, last row) of a glyph's ink, or None if blank."""
    cols = [i for i, c in enumerate(columns) if c]
    if not cols:
        return None
    bits = 0
    for c in columns:
        bits |= c
    rows = [r for r in range(8) if bits >> r & 1]
    return cols[0], cols[-1], rows[0], rows[-1]


_BIG_INK = {}
_SMALL_INK = {}
for _code in range(32, 127):
    _BIG_INK[chr(_code)] = _ink(framebuf.FONT[(_code - 32) * 8 : (_code - 32) * 8 + 8])
    _SMALL_INK[chr(_code)] = _ink(font6._SMALL[(_code - 32) * 5 : (_code - 32) * 5 + 5])


class FitDisplay(Display):
    """The test board's display, judging each frame's text as it is drawn."""

    def __init__(self):
        super().__init__()
        self.found = []  # (screen, problem, text) of every frame
        self.where = lambda: "?"
        self._reset()

    def _reset(self):
        self.glyphs = []  # (x0, x1, y0, y1, call, text) of each character's ink this frame
        self.calls = 0
        self.frame = []
        self.strings = []  # the texts drawn this frame, in order
        self._run = None  # the 6x8 text being drawn: [x of its next glyph, y, characters]

    def _note(self, problem, text):
        item = (self.where(), problem, text)
        if item not in self.frame:
            self.frame.append(item)

    def _add(self, s, x, y, width, inks):
        self.calls += 1
        if width == 8:
            self._flush()
            self.strings.append(s)
        else:  # one glyph of 6x8 text: a run of glyphs (spaces are not drawn) is one string
            run = self._run
            gap = x - run[0] if run is not None and run[1] == y else -1
            if 0 <= gap <= 3 * width and gap % width == 0:
                run[2] += " " * (gap // width) + s
                run[0] = x + width
            else:
                self._flush()
                self._run = [x + width, y, s]
        for i, ch in enumerate(s):
            ink = inks.get(ch)
            if ink is None:
                continue
            x0, x1 = x + i * width + ink[0], x + i * width + ink[1]
            y0, y1 = y + ink[2], y + ink[3]
            if x0 < 0 or x1 >= W or y0 < 0 or y1 >= H:
                self._note("past the edge", s)
            for gx0, gx1, gy0, gy1, call, other in self.glyphs:
                if call != self.calls and x0 <= gx1 and gx0 <= x1 and y0 <= gy1 and gy0 <= y1:
                    self._note("overlap", "%s / %s" % (other, s))
            self.glyphs.append((x0, x1, y0, y1, self.calls, s))

    def _cover(self, x, y, w, h, c):
        """A shape drawn over [x, x+w) x [y, y+h): does it cover earlier text? A filled
        rectangle that holds a character whole hides it (the band of a message in place of a
        line): the character is gone, not drawn over."""
        if w <= 0 or h <= 0:
            return
        keep = []
        for glyph in self.glyphs:
            gx0, gx1, gy0, gy1, _call, other = glyph
            if x <= gx1 and gx0 < x + w and y <= gy1 and gy0 < y + h:
                if c is not None and x <= gx0 and gx1 < x + w and y <= gy0 and gy1 < y + h:
                    continue  # erased whole
                self._note("drawn over", other)
            keep.append(glyph)
        self.glyphs = keep

    # -- the drawing calls the screens make -----------------------------------------------------

    def fill(self, c):
        self._reset()
        super().fill(c)

    def text(self, s, x, y, c=1):
        self._add(s, x, y, 8, _BIG_INK)
        super().text(s, x, y, c)

    def blit(self, fbuf, x, y, key=-1, palette=None):
        font = sys.modules.get("dicepod.ui.font6")  # the RAM policy drops it, draw re-imports
        if font is not None and fbuf is font._glyph:  # one glyph of the 6x8 font
            self._add(_glyph_char(font), x, y, 6, _SMALL_INK)
        else:
            self._cover(x, y, fbuf.width, fbuf.height, None)
        super().blit(fbuf, x, y, key, palette)

    def fill_rect(self, x, y, w, h, c):
        if w == 2 and h == 2 or w == 3 and h == 3 or w == 4 and h == 4:
            if x < 0 or x + w > W or y < 0 or y + h > H:
                self._note("past the edge", "big letters")
        self._cover(x, y, w, h, c)
        super().fill_rect(x, y, w, h, c)

    def rect(self, x, y, w, h, c, f=False):
        if f:
            self._cover(x, y, w, h, c)
        else:
            self._cover(x, y, w, 1, None)
            self._cover(x, y + h - 1, w, 1, None)
            self._cover(x, y, 1, h, None)
            self._cover(x + w - 1, y, 1, h, None)
        super().rect(x, y, w, h, c, f)

    def hline(self, x, y, w, c):
        self._cover(x, y, w, 1, None)
        super().hline(x, y, w, c)

    def vline(self, x, y, h, c):
        self._cover(x, y, 1, h, None)
        super().vline(x, y, h, c)

    def pixel(self, x, y, c=None):
        if c is not None:
            self._cover(x, y, 1, 1, None)
            return super().pixel(x, y, c)
        return super().pixel(x, y)

    def _flush(self):
        if self._run is not None:
            self.strings.append(self._run[2])
            self._run = None

    def show(self):
        self._flush()
        self.found.extend(self.frame)
        self.frame = []
        self.shown = " ".join(self.strings)  # what the last frame says, its texts in order
        super().show()


def _glyph_char(font):
    """The character whose columns the 6x8 font's glyph buffer holds now."""
    columns = bytes(font._buffer)
    flipped = bytes(255 ^ b for b in columns)  # dark ink: the copy is inverted
    for code in range(33, 127):
        glyph = font6._SMALL[(code - 32) * 5 : (code - 32) * 5 + 5]
        if glyph == columns or glyph == flipped:
            return chr(code)
    return "?"
