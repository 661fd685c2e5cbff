"""Drawing helpers shared by the screens: dice as pip faces, big text, banners, bars, lists, and
a narrow 6×8 font (21 characters across, the 8×8 font's 16). Pure: only the canvas's
framebuf.FrameBuffer methods (fill_rect, rect, hline, vline, text, pixel, blit).
"""

import framebuf
from micropython import const

_CHAR = const(8)  # the built-in font is 8×8
WIDTH = const(128)

# Die styles.
ROLLED = 0  # thin frame: a die just rolled (may be re-rolled)
KEPT = 1  # thick frame: left as it is, counts in the next roll
ASIDE = 2  # solid, dark pips: in a set-aside scoring roll
BLANK = 3  # thin frame, no pips: not rolled yet
DIM = 4  # dotted frame, pips: a die that no longer counts (a failed test, a lost roll)

# The pips of faces 1..6 as cells of a 3×3 grid, row * 3 + col: a face's pips only, so that
# drawing a die visits no empty cell.
_PIPS = const(
    (b"", b"\x04", b"\x00\x08", b"\x00\x04\x08", b"\x00\x02\x06\x08", b"\x00\x02\x04\x06\x08",
     b"\x00\x02\x03\x05\x06\x08")
)  # fmt: skip

# One 8×8 glyph at a time is drawn here to be scaled up (allocated once).
_glyph_buffer = bytearray(8)
_glyph = framebuf.FrameBuffer(_glyph_buffer, 8, 8, framebuf.MONO_VLSB)

# The 6×8 font's text() (its table and glyph drawing live in dicepod.ui.font6, loaded on first
# use and then kept: dicepod.ram), held here once loaded: an import statement searches the
# interned names for the submodule's full name each time. The function itself, not the
# module: small() calls it with a frame of 11 words, which MicroPython
# keeps on the C stack (a method call's two more words put it on the heap: tools/mpy_frames.py).
# Named font6, a name already interned: a new name can be the one that makes the qstr pool
# grow, a block of a few KB found wherever the heap has one at that moment.
font6 = None
SMALL = 6  # pixels per character: 21 across the screen
SMALL_COLUMNS = 21
CENTER = -1  # small()'s x: centred
RIGHT = -2  # small()'s x: flush right


def die(canvas, x, y, face, style=ROLLED, size=20):
    """Draw one die (size 20, 12 or 11 pixels square) showing face 1..6 in the given style: on
    the Pico's display in native code (its die(), dicepod.drivers.glyphs), x, y, the style
    and the size packed in one int."""
    native = getattr(canvas, "die", None)  # (one lookup: the display's classes are walked)
    if native is not None and -512 <= x < 512 and -512 <= y < 512 and 0 < size < 32:
        pips = _PIPS[face] if style != BLANK and 1 <= face <= 6 else b""
        if native(pips, (x + 512) | (y + 512) << 10 | style << 20 | size << 23):
            return
    if size >= 20:
        pip, offsets = 4, (3, 8, 13)
    else:
        pip, offsets = 2, (2, 5, 8)
    ink = 1
    if style == ASIDE:
        canvas.fill_rect(x, y, size, size, 1)
        ink = 0
    elif style == DIM:
        pixel = canvas.pixel  # (looked up once: the display's classes are walked for it)
        if hasattr(canvas, "dots"):
            # the top and bottom rows' every other pixel at once (native on a Pico; they
            # are dark before, so inverting them lights them), then the sides
            canvas.dots(x, size, y)
            canvas.dots(x, size, y + size - 1)
            for i in range(0, size, 2):
                pixel(x, y + i, 1)
                pixel(x + size - 1, y + i, 1)
        else:
            for i in range(0, size, 2):
                pixel(x + i, y, 1)
                pixel(x + i, y + size - 1, 1)
                pixel(x, y + i, 1)
                pixel(x + size - 1, y + i, 1)
    else:
        canvas.rect(x, y, size, size, 1)
        if style == KEPT:
            canvas.rect(x + 1, y + 1, size - 2, size - 2, 1)
    if style == BLANK or not 1 <= face <= 6:
        return
    for cell in _PIPS[face]:
        px = x + offsets[cell % 3]
        py = y + offsets[cell // 3]
        if pip >= 4:
            # a round-ish pip: a 4×4 square without its corners
            canvas.fill_rect(px, py + 1, pip, pip - 2, ink)
            canvas.fill_rect(px + 1, py, pip - 2, pip, ink)
        else:
            canvas.fill_rect(px, py, pip, pip, ink)


def dice_row(canvas, faces, styles, y=0, cursor=-1):
    """Draw up to six 20-pixel dice across the screen; a caret under the die at cursor."""
    for i in range(len(faces)):
        x = 1 + i * 21
        die(canvas, x, y, faces[i], styles[i] if styles else ROLLED)
        if i == cursor:
            # a small triangle under the die
            canvas.hline(x + 6, y + 21, 8, 1)
            canvas.hline(x + 7, y + 22, 6, 1)
            canvas.hline(x + 8, y + 23, 4, 1)


def text(canvas, s, x, y, c=1):
    """Draw s with the 8×8 font."""
    canvas.text(s, x, y, c)


def small(canvas, s, x, y, c=1):
    """Draw s with the 6×8 font (6 pixels a character); x may be CENTER or RIGHT (flush right,
    the last glyph's blank column off the edge)."""
    if x < 0:
        x = (WIDTH - len(s) * SMALL + 1) // 2 if x == CENTER else WIDTH + 1 - len(s) * SMALL
    global font6
    if font6 is None:
        from dicepod.ui.font6 import text as font6  # (kept for good: dicepod.ram)
    font6(canvas, s, x, y, c)  # type: ignore  (a function once loaded)


def center(canvas, s, y, c=1):
    """Draw s centred horizontally."""
    canvas.text(s, (WIDTH - len(s) * _CHAR) // 2, y, c)


def right(canvas, s, y, c=1):
    """Draw s flush right."""
    canvas.text(s, WIDTH - len(s) * _CHAR, y, c)


def big(canvas, s, x, y, scale=2, c=1):
    """Draw s with the 8×8 font scaled up (each pixel becomes scale×scale): a rectangle for
    each run of lit pixels down a glyph's column (a third of the calls of one a pixel). On the
    Pico's display in native code (its big(), dicepod.drivers.glyphs), x, y, the ink and the
    scale packed in one int."""
    if hasattr(canvas, "big") and -512 <= x < 512 and -512 <= y < 512 and 0 < scale < 8:
        if canvas.big(s, (x + 512) | ((y + 512) << 10) | (c & 1) << 20 | scale << 21):
            return
    fill = canvas.fill_rect  # (looked up once: the display's classes are walked for it)
    glyph = _glyph
    for ch in s:
        glyph.fill(0)
        glyph.text(ch, 0, 0, 1)
        left = x
        for col in range(8):
            bits = _glyph_buffer[col]
            row = 0
            while bits:
                if bits & 1:
                    run = 1
                    bits >>= 1
                    while bits & 1:
                        run += 1
                        bits >>= 1
                    fill(left, y + row * scale, scale, run * scale, c)
                    row += run
                else:
                    bits >>= 1
                    row += 1
            left += scale
        x += 8 * scale


def banner(canvas, s, y, scale=2):
    """An unmistakable message: s in big dark letters on a lit full-width band."""
    height = 8 * scale + 4
    canvas.fill_rect(0, y, WIDTH, height, 1)
    width = len(s) * 8 * scale
    big(canvas, s, (WIDTH - width) // 2, y + 2, scale, 0)


def title(canvas, s):
    """A title bar: s in dark letters on a lit band across the top (rows 0..8); a title over
    15 characters in the 6×8 font (21 fit), never cut."""
    canvas.fill_rect(0, 0, WIDTH, 9, 1)
    if len(s) > 15:
        small(canvas, s, 1, 1, 0)
    else:
        canvas.text(s, 1, 1, 0)


def action_bar(canvas, label):
    """The bottom band of an action screen: < label > in dark letters on a lit band (rows
    55..63); a label longer than 14 characters in the 6×8 font (18 fit), never cut."""
    canvas.fill_rect(0, 55, WIDTH, 9, 1)
    canvas.text("<", 0, 56, 0)
    canvas.text(">", 120, 56, 0)
    if len(label) <= 14:
        center(canvas, label, 56, 0)
    else:
        small(canvas, label, CENTER, 56, 0)


def bar(canvas, x, y, w, h, num, den):
    """A progress bar w×h showing num/den."""
    canvas.rect(x, y, w, h, 1)
    if den > 0 and num > 0:
        inner = (w - 2) * min(num, den) // den
        canvas.fill_rect(x + 1, y + 1, inner, h - 2, 1)


def rows(canvas, items, cursor, top, y0=10, count=6):
    """Draw a list of strings from index top, count rows of 9 pixels from y0; the row at
    cursor is inverted. A list with an item longer than 15 characters is drawn in the 6×8 font
    (20 a row) rather than cut. A scroll mark on the right shows there is more above/below."""
    narrow = False
    for item in items:
        if len(item) > 15:
            narrow = True
            break
    text = canvas.text  # (looked up once: the display's classes are walked for it)
    for i in range(count):
        index = top + i
        if index >= len(items):
            break
        y = y0 + i * 9
        ink = 1
        if index == cursor:
            canvas.fill_rect(0, y, WIDTH - 3, 9, 1)
            ink = 0
        if narrow:
            small(canvas, items[index], 1, y + 1, ink)
        else:
            text(items[index], 1, y + 1, ink)
    if top > 0:
        canvas.vline(WIDTH - 1, y0, 4, 1)
    if top + count < len(items):
        canvas.vline(WIDTH - 1, y0 + count * 9 - 4, 4, 1)


def scroll_top(cursor, top, count=6):
    """Return the first visible row so that cursor stays in view."""
    if cursor < top:
        return cursor
    if cursor >= top + count:
        return cursor - count + 1
    return top


def percent_tenths(num, den):
    """Return '12.3%' for num/den with integer arithmetic (same text on every interpreter)."""
    if den <= 0:
        return "-"
    tenths = (num * 1000 + den // 2) // den
    return "%d.%d%%" % (tenths // 10, tenths % 10)
