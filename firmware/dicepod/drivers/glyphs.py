"""The display driver's inner loops in viper (native code): the 6×8 font written straight into
a MONO_VLSB frame buffer (text6), the changed spans of a page (spans), a dotted line (dots),
the 8×8 font scaled up (big), a cleared frame (clear) and a die (die).

Driver (device only: the display driver, dicepod.drivers.display, offers text6 to the screens as
its text6() method; dicepod.ui.font6 draws through it when the canvas has one, else in Python;
show() finds each page's changed columns with spans, every column compared; its dots() inverts
a dotted line's bytes with dots, a pixel() read and write a dot in Python).
It sets (ink 1) or clears (ink 0) each glyph column's lit pixels, shifted across the two pages
a row of text straddles, clipped to the 128×64 screen: the same pixels as font6.text's blits
(tests/portable/test_drivers_display.py compares them, and every frame of the emulated Pico's
sessions equals CPython's), in native code: a list screen draws a hundred characters and more.

Compiled for the machine it runs on: `dicepod deploy` and the emulated Pico give mpy-cross
-march=armv6m for this file (dicepod_host.deploy.native_code), the unix-port tests x64; a port
without a native emitter (the simulator's WebAssembly build) cannot import it, and the display
driver then draws in Python.
"""

# ruff: noqa: F821
# pyright: reportUndefinedVariable=false
import micropython
from micropython import const

# Two changed spans of a page at most this many unchanged columns apart are one: a span costs
# its framing on the bus (dicepod.drivers.display's _SPAN_FRAMING) and its sending's Python,
# which costs about as much as the bytes of a short gap.
_GAP = const(16)


@micropython.viper
def spans(now, was, page: int, out) -> int:
    """The changed columns of page (0..7) between the frames now and was (1,024 bytes each,
    128 columns a page) as spans, (first, one past the last) byte pairs written into out (32
    bytes: at most 8 spans); two spans at most _GAP unchanged columns apart are one. Return
    how many, plus the columns they hold << 4 (show() weighs a frame's spans without a loop
    over them)."""
    a = ptr8(now)
    b = ptr8(was)
    o = ptr8(out)
    base = page * 128
    n = 0
    start = -1
    end = 0
    col = 0
    held = 0
    while col < 128:
        if a[base + col] != b[base + col]:
            if start < 0:
                start = col
            elif col - end > _GAP:
                o[n] = start
                o[n + 1] = end
                n += 2
                held += end - start
                start = col
            end = col + 1
        col += 1
    if start >= 0:
        o[n] = start
        o[n + 1] = end
        n += 2
        held += end - start
    return (n >> 1) | held << 4


@micropython.viper
def clear(buf):
    """Zero the 1,024 bytes of a frame (a byte at a time: the frame's view need not be
    word-aligned), for the display's fill(0): framebuf's own fill sets each pixel apart."""
    b = ptr8(buf)
    i = 0
    while i < 1024:
        b[i] = 0
        b[i + 1] = 0
        b[i + 2] = 0
        b[i + 3] = 0
        i += 4


@micropython.viper
def dots(buf, at: int, end: int, bit: int):
    """Invert bit in every other byte of buf from at, before end (a dotted line's row)."""
    b = ptr8(buf)
    i = at
    while i < end:
        b[i] = b[i] ^ bit
        i += 2


@micropython.viper
def text6(buf, s, table, at: int) -> int:
    """Draw the str s into buf (1,024 bytes: 8 pages of 128 columns) with the glyph table
    (five MONO_VLSB bytes a character from " " to "~"); at packs x + 512, (y + 512) << 10 and
    the ink << 20. Return 0, or -1 (nothing drawn) when s holds a character past "~"."""
    n = int(len(s))
    src = ptr8(s)
    i = 0
    while i < n:
        if src[i] > 126:
            return -1
        i += 1
    x = (at & 1023) - 512
    y = ((at >> 10) & 1023) - 512
    ink = (at >> 20) & 1
    fb = ptr8(buf)
    glyphs = ptr8(table)
    page = y >> 3
    shift = y & 7
    low = page >= 0 and page < 8  # the glyph's top part lands on a page of the screen
    high = shift != 0 and page >= -1 and page < 7  # and its bottom part on the next
    top = page * 128
    i = 0
    while i < n:
        code = src[i]
        if code > 32:
            base = (code - 32) * 5
            col = 0
            while col < 5:
                cx = x + col
                if cx >= 0 and cx < 128:
                    bits = glyphs[base + col] << shift
                    if low:
                        k = top + cx
                        if ink:
                            fb[k] = fb[k] | (bits & 255)
                        else:
                            fb[k] = fb[k] & (255 ^ (bits & 255))
                    if high:
                        k = top + 128 + cx
                        if ink:
                            fb[k] = fb[k] | ((bits >> 8) & 255)
                        else:
                            fb[k] = fb[k] & (255 ^ ((bits >> 8) & 255))
                col += 1
        x += 6
        i += 1
    return 0


@micropython.viper
def big(buf, table, at: int):
    """Draw the 8×8 font scaled up into buf (1,024 bytes: 8 pages of 128 columns): table holds
    the text drawn at 1× (framebuf's font, MONO_VLSB, 8 columns a character, one page); at packs
    x + 512, (y + 512) << 10, the ink << 20, the scale << 21 (1..7) and the characters << 24.
    Each run of lit pixels down a glyph's column becomes a rectangle scale columns wide,
    clipped to the 128×64 screen and filled a byte (8 rows of a column) at a time: the same
    pixels as dicepod.ui.draw.big's rectangles."""
    fb = ptr8(buf)
    src = ptr8(table)
    x = (at & 1023) - 512
    y = ((at >> 10) & 1023) - 512
    ink = (at >> 20) & 1
    scale = (at >> 21) & 7
    cols = ((at >> 24) & 31) * 8
    col = 0
    while col < cols:
        bits = src[col]
        left = x + col * scale
        right = left + scale
        if left < 0:
            left = 0
        if right > 128:
            right = 128
        row = 0
        while bits != 0 and left < right:
            if bits & 1:
                run = 0
                while bits & 1:
                    run += 1
                    bits = bits >> 1
                top = y + row * scale
                bottom = top + run * scale
                row += run
                if top < 0:
                    top = 0
                if bottom > 64:
                    bottom = 64
                while top < bottom:
                    page = top >> 3
                    end = (page + 1) << 3
                    if end > bottom:
                        end = bottom
                    mask = ((1 << (end - (page << 3))) - 1) ^ ((1 << (top & 7)) - 1)
                    k = (page << 7) + left
                    stop = (page << 7) + right
                    if ink:
                        while k < stop:
                            fb[k] = fb[k] | mask
                            k += 1
                    else:
                        mask = 255 ^ mask
                        while k < stop:
                            fb[k] = fb[k] & mask
                            k += 1
                    top = end
            else:
                bits = bits >> 1
                row += 1
        col += 1


@micropython.viper
def die(buf, s, at: int) -> int:
    """Draw a die into buf (1,024 bytes: 8 pages of 128 columns): its frame in a style, then
    the pips whose cells s holds (a 3×3 grid, row * 3 + column; b"" for none). at packs
    x + 512, (y + 512) << 10, the style << 20 (dicepod.ui.draw: ROLLED 0, KEPT 1, ASIDE 2,
    BLANK 3, DIM 4) and the size << 23. The same pixels as draw.die's rectangles, clipped to
    the 128×64 screen: a die's dozen framebuf calls from Python cost more than the die's
    drawing. Each part is a rectangle (a pip is two) filled a byte (8 rows of a column) at a
    time."""
    fb = ptr8(buf)
    cells = ptr8(s)
    n = int(len(s))
    x = (at & 1023) - 512
    y = ((at >> 10) & 1023) - 512
    style = (at >> 20) & 7
    size = (at >> 23) & 31
    big = 0
    first = 2  # the first pip's offset, and from one pip to the next
    step = 3
    if size >= 20:
        big = 1
        first = 3
        step = 5
    frame = 4  # rectangles of the frame: ROLLED and BLANK a thin one, KEPT two, ASIDE solid
    ink = 1  # the pips' ink: dark on a solid (ASIDE) die
    if style == 1:
        frame = 8
    elif style == 2:
        frame = 1
        ink = 0
    elif style == 4:
        frame = 0  # dotted: every other pixel of each side, lit
        i = 0
        while i < size:
            q = 0
            while q < 4:
                cx = x + i
                cy = y
                if q == 1:
                    cy = y + size - 1
                elif q == 2:
                    cx = x
                    cy = y + i
                elif q == 3:
                    cx = x + size - 1
                    cy = y + i
                if cx >= 0 and cx < 128 and cy >= 0 and cy < 64:
                    k = (cy >> 3) * 128 + cx
                    fb[k] = fb[k] | (1 << (cy & 7))
                q += 1
            i += 2
    if style == 3:
        n = 0
    total = frame + n * (1 + big)
    rx = 0
    ry = 0
    rw = 0
    rh = 0
    j = 0
    while j < total:
        col = 1
        if j < frame:
            if style == 2:
                rx = x
                ry = y
                rw = size
                rh = size
            else:
                inset = j >> 2  # KEPT's second frame, inside the first
                rx = x + inset
                ry = y + inset
                rw = size - inset - inset
                rh = 1
                side = j & 3
                if side == 1:
                    ry = ry + rw - 1
                elif side == 2:
                    rh = rw
                    rw = 1
                elif side == 3:
                    rx = rx + rw - 1
                    rh = rw
                    rw = 1
        else:
            col = ink
            p = j - frame
            if big:
                p = p >> 1
            cell = cells[p]
            row = 0
            if cell >= 6:
                row = 2
            elif cell >= 3:
                row = 1
            rx = x + first + step * (cell - 3 * row)
            ry = y + first + step * row
            rw = 2
            rh = 2
            if big:
                if (j - frame) & 1:  # a round-ish pip: a 4×4 square without its corners
                    rx += 1
                    rh = 4
                else:
                    ry += 1
                    rw = 4
        # the rectangle clipped to the screen, filled a page at a time: one byte a column (as
        # big's runs: written out in each, for a call from one viper function to another
        # costs as much as a Python call)
        top = ry
        if top < 0:
            top = 0
        bottom = ry + rh
        if bottom > 64:
            bottom = 64
        left = rx
        if left < 0:
            left = 0
        right = rx + rw
        if right > 128:
            right = 128
        while top < bottom:
            page = top >> 3
            end = (page + 1) << 3
            if end > bottom:
                end = bottom
            mask = ((1 << (end - (page << 3))) - 1) ^ ((1 << (top & 7)) - 1)
            k = (page << 7) + left
            stop = (page << 7) + right
            if col:
                while k < stop:
                    fb[k] = fb[k] | mask
                    k += 1
            else:
                mask = 255 ^ mask
                while k < stop:
                    fb[k] = fb[k] & mask
                    k += 1
            top = end
        j += 1
    return 0
