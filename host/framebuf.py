"""A pure-Python ``framebuf`` for CPython, so the firmware's screens run and render on a PC
exactly as they do under MicroPython (tests, screenshots, the emulator). Never deployed.

Implements MicroPython's FrameBuffer for the monochrome formats (MONO_VLSB, MONO_HLSB,
MONO_HMSB) with the same clipping and the same algorithms as ``extmod/modframebuf.c``: fill,
pixel, hline, vline, line, rect, fill_rect, text, blit, scroll. ``text`` uses the 8×8 font
MicroPython uses, extracted by rendering every printable ASCII character under the real
MicroPython unix port (``tests/portable/test_ui_framebuf.py`` checks the two agree byte for byte).
"""

from __future__ import annotations

from typing import Any

MONO_VLSB = 0
MONO_HLSB = 3
MONO_HMSB = 4
# MicroPython's names for the same formats.
MVLSB = MONO_VLSB

# The 8x8 font (font_petme128_8x8): 8 bytes per character from ' ' (32) to DEL (127), one byte
# per column, least significant bit at the top. Any other byte is drawn as DEL.
FONT = (
    b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x4f\x4f\x00\x00\x00"  #   !
    b"\x00\x07\x07\x00\x00\x07\x07\x00\x14\x7f\x7f\x14\x14\x7f\x7f\x14"  # " #
    b"\x00\x24\x2e\x6b\x6b\x3a\x12\x00\x00\x63\x33\x18\x0c\x66\x63\x00"  # $ %
    b"\x00\x32\x7f\x4d\x4d\x77\x72\x50\x00\x00\x00\x04\x06\x03\x01\x00"  # & '
    b"\x00\x00\x1c\x3e\x63\x41\x00\x00\x00\x00\x41\x63\x3e\x1c\x00\x00"  # ( )
    b"\x08\x2a\x3e\x1c\x1c\x3e\x2a\x08\x00\x08\x08\x3e\x3e\x08\x08\x00"  # * +
    b"\x00\x00\x80\xe0\x60\x00\x00\x00\x00\x08\x08\x08\x08\x08\x08\x00"  # , -
    b"\x00\x00\x00\x60\x60\x00\x00\x00\x00\x40\x60\x30\x18\x0c\x06\x02"  # . /
    b"\x00\x3e\x7f\x49\x45\x7f\x3e\x00\x00\x40\x44\x7f\x7f\x40\x40\x00"  # 0 1
    b"\x00\x62\x73\x51\x49\x4f\x46\x00\x00\x22\x63\x49\x49\x7f\x36\x00"  # 2 3
    b"\x00\x18\x18\x14\x16\x7f\x7f\x10\x00\x27\x67\x45\x45\x7d\x39\x00"  # 4 5
    b"\x00\x3e\x7f\x49\x49\x7b\x32\x00\x00\x03\x03\x79\x7d\x07\x03\x00"  # 6 7
    b"\x00\x36\x7f\x49\x49\x7f\x36\x00\x00\x26\x6f\x49\x49\x7f\x3e\x00"  # 8 9
    b"\x00\x00\x00\x24\x24\x00\x00\x00\x00\x00\x80\xe4\x64\x00\x00\x00"  # : ;
    b"\x00\x08\x1c\x36\x63\x41\x41\x00\x00\x14\x14\x14\x14\x14\x14\x00"  # < =
    b"\x00\x41\x41\x63\x36\x1c\x08\x00\x00\x02\x03\x51\x59\x0f\x06\x00"  # > ?
    b"\x00\x3e\x7f\x41\x4d\x4f\x2e\x00\x00\x7c\x7e\x0b\x0b\x7e\x7c\x00"  # @ A
    b"\x00\x7f\x7f\x49\x49\x7f\x36\x00\x00\x3e\x7f\x41\x41\x63\x22\x00"  # B C
    b"\x00\x7f\x7f\x41\x63\x3e\x1c\x00\x00\x7f\x7f\x49\x49\x41\x41\x00"  # D E
    b"\x00\x7f\x7f\x09\x09\x01\x01\x00\x00\x3e\x7f\x41\x49\x7b\x3a\x00"  # F G
    b"\x00\x7f\x7f\x08\x08\x7f\x7f\x00\x00\x00\x41\x7f\x7f\x41\x00\x00"  # H I
    b"\x00\x20\x60\x41\x7f\x3f\x01\x00\x00\x7f\x7f\x1c\x36\x63\x41\x00"  # J K
    b"\x00\x7f\x7f\x40\x40\x40\x40\x00\x00\x7f\x7f\x06\x0c\x06\x7f\x7f"  # L M
    b"\x00\x7f\x7f\x0e\x1c\x7f\x7f\x00\x00\x3e\x7f\x41\x41\x7f\x3e\x00"  # N O
    b"\x00\x7f\x7f\x09\x09\x0f\x06\x00\x00\x1e\x3f\x21\x61\x7f\x5e\x00"  # P Q
    b"\x00\x7f\x7f\x19\x39\x6f\x46\x00\x00\x26\x6f\x49\x49\x7b\x32\x00"  # R S
    b"\x00\x01\x01\x7f\x7f\x01\x01\x00\x00\x3f\x7f\x40\x40\x7f\x3f\x00"  # T U
    b"\x00\x1f\x3f\x60\x60\x3f\x1f\x00\x00\x7f\x7f\x30\x18\x30\x7f\x7f"  # V W
    b"\x00\x63\x77\x1c\x1c\x77\x63\x00\x00\x07\x0f\x78\x78\x0f\x07\x00"  # X Y
    b"\x00\x61\x71\x59\x4d\x47\x43\x00\x00\x00\x7f\x7f\x41\x41\x00\x00"  # Z [
    b"\x00\x02\x06\x0c\x18\x30\x60\x40\x00\x00\x41\x41\x7f\x7f\x00\x00"  # \ ]
    b"\x00\x08\x0c\x06\x06\x0c\x08\x00\xc0\xc0\xc0\xc0\xc0\xc0\xc0\xc0"  # ^ _
    b"\x00\x00\x01\x03\x06\x04\x00\x00\x00\x20\x74\x54\x54\x7c\x78\x00"  # ` a
    b"\x00\x7f\x7f\x44\x44\x7c\x38\x00\x00\x38\x7c\x44\x44\x6c\x28\x00"  # b c
    b"\x00\x38\x7c\x44\x44\x7f\x7f\x00\x00\x38\x7c\x54\x54\x5c\x58\x00"  # d e
    b"\x00\x08\x7e\x7f\x09\x03\x02\x00\x00\x98\xbc\xa4\xa4\xfc\x7c\x00"  # f g
    b"\x00\x7f\x7f\x04\x04\x7c\x78\x00\x00\x00\x00\x7d\x7d\x00\x00\x00"  # h i
    b"\x00\x40\xc0\x80\x80\xfd\x7d\x00\x00\x7f\x7f\x30\x38\x6c\x44\x00"  # j k
    b"\x00\x00\x41\x7f\x7f\x40\x00\x00\x00\x7c\x7c\x18\x30\x18\x7c\x7c"  # l m
    b"\x00\x7c\x7c\x04\x04\x7c\x78\x00\x00\x38\x7c\x44\x44\x7c\x38\x00"  # n o
    b"\x00\xfc\xfc\x24\x24\x3c\x18\x00\x00\x18\x3c\x24\x24\xfc\xfc\x00"  # p q
    b"\x00\x7c\x7c\x04\x04\x0c\x08\x00\x00\x48\x5c\x54\x54\x74\x20\x00"  # r s
    b"\x04\x04\x3f\x7f\x44\x64\x20\x00\x00\x3c\x7c\x40\x40\x7c\x3c\x00"  # t u
    b"\x00\x1c\x3c\x60\x60\x3c\x1c\x00\x00\x1c\x7c\x30\x18\x30\x7c\x1c"  # v w
    b"\x00\x44\x6c\x38\x38\x6c\x44\x00\x00\x9c\xbc\xa0\xa0\xfc\x7c\x00"  # x y
    b"\x00\x44\x64\x74\x5c\x4c\x44\x00\x00\x08\x08\x3e\x77\x41\x41\x00"  # z {
    b"\x00\x00\x00\xff\xff\x00\x00\x00\x00\x41\x41\x77\x3e\x08\x08\x00"  # | }
    b"\x00\x02\x03\x01\x03\x02\x03\x01\xaa\x55\xaa\x55\xaa\x55\xaa\x55"  # ~ DEL
)


class FrameBuffer:
    """FrameBuffer(buffer, width, height, format, stride=width) over a writable buffer."""

    def __init__(
        self, buffer: Any, width: int, height: int, format: int, stride: int | None = None
    ) -> None:
        if format not in (MONO_VLSB, MONO_HLSB, MONO_HMSB):
            raise ValueError("invalid format")
        if stride is None:
            stride = width
        if format in (MONO_HLSB, MONO_HMSB):
            stride = (stride + 7) & ~7
            needed = stride * height // 8
        else:
            needed = ((height + 7) // 8) * stride
        if len(buffer) < needed:
            raise ValueError("buffer too small")
        self.buffer = buffer
        self.width = width
        self.height = height
        self.format = format
        self.stride = stride

    # -- the per-format pixel primitives (no clipping: callers clip) --

    def _set(self, x, y, col):
        buf = self.buffer
        if self.format == MONO_VLSB:
            index = (y >> 3) * self.stride + x
            mask = 1 << (y & 7)
        else:
            index = (x + y * self.stride) >> 3
            mask = (0x80 >> (x & 7)) if self.format == MONO_HLSB else (1 << (x & 7))
        if col:
            buf[index] |= mask
        else:
            buf[index] &= ~mask & 0xFF

    def _get(self, x, y):
        if self.format == MONO_VLSB:
            return (self.buffer[(y >> 3) * self.stride + x] >> (y & 7)) & 1
        byte = self.buffer[(x + y * self.stride) >> 3]
        if self.format == MONO_HLSB:
            return (byte >> (7 - (x & 7))) & 1
        return (byte >> (x & 7)) & 1

    def _fill_rect(self, x, y, w, h, col):
        if h < 1 or w < 1 or x + w <= 0 or y + h <= 0 or y >= self.height or x >= self.width:
            return
        xend = min(self.width, x + w)
        yend = min(self.height, y + h)
        x = max(x, 0)
        y = max(y, 0)
        if self.format == MONO_VLSB:
            buf = self.buffer
            stride = self.stride
            for yy in range(y, yend):
                base = (yy >> 3) * stride
                mask = 1 << (yy & 7)
                if col:
                    for xx in range(x, xend):
                        buf[base + xx] |= mask
                else:
                    inverse = ~mask & 0xFF
                    for xx in range(x, xend):
                        buf[base + xx] &= inverse
        else:
            for yy in range(y, yend):
                for xx in range(x, xend):
                    self._set(xx, yy, col)

    # -- the public drawing methods --

    def fill(self, c: int) -> None:
        """Fill the whole buffer with colour c."""
        if self.format == MONO_VLSB and self.stride == self.width:
            value = 0xFF if c else 0
            size = ((self.height + 7) // 8) * self.stride
            self.buffer[0:size] = bytes([value]) * size
        else:
            self._fill_rect(0, 0, self.width, self.height, c)

    def pixel(self, x: int, y: int, c: int | None = None) -> int | None:
        """Get the pixel at x, y (None outside), or set it to c."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            return None
        if c is None:
            return self._get(x, y)
        self._set(x, y, c)
        return None

    def fill_rect(self, x: int, y: int, w: int, h: int, c: int) -> None:
        """Fill a w×h rectangle at x, y."""
        self._fill_rect(x, y, w, h, c)

    def rect(self, x: int, y: int, w: int, h: int, c: int, f: bool = False) -> None:
        """Draw a rectangle outline (or a filled one when f is true)."""
        if f:
            self._fill_rect(x, y, w, h, c)
        else:
            self._fill_rect(x, y, w, 1, c)
            self._fill_rect(x, y + h - 1, w, 1, c)
            self._fill_rect(x, y, 1, h, c)
            self._fill_rect(x + w - 1, y, 1, h, c)

    def hline(self, x: int, y: int, w: int, c: int) -> None:
        """Draw a horizontal line w pixels long."""
        self._fill_rect(x, y, w, 1, c)

    def vline(self, x: int, y: int, h: int, c: int) -> None:
        """Draw a vertical line h pixels long."""
        self._fill_rect(x, y, 1, h, c)

    def line(self, x1: int, y1: int, x2: int, y2: int, c: int) -> None:
        """Draw a line with MicroPython's Bresenham (same pixels as the C code)."""
        dx = x2 - x1
        if dx > 0:
            sx = 1
        else:
            dx = -dx
            sx = -1
        dy = y2 - y1
        if dy > 0:
            sy = 1
        else:
            dy = -dy
            sy = -1
        steep = dy > dx
        if steep:
            x1, y1 = y1, x1
            dx, dy = dy, dx
            sx, sy = sy, sx
        e = 2 * dy - dx
        for _ in range(dx):
            if steep:
                if 0 <= y1 < self.width and 0 <= x1 < self.height:
                    self._set(y1, x1, c)
            elif 0 <= x1 < self.width and 0 <= y1 < self.height:
                self._set(x1, y1, c)
            while e >= 0:
                y1 += sy
                e -= 2 * dx
            x1 += sx
            e += 2 * dy
        if 0 <= x2 < self.width and 0 <= y2 < self.height:
            self._set(x2, y2, c)

    def text(self, s: str, x: int, y: int, c: int = 1) -> None:
        """Draw the string s with the 8×8 font, top-left at x, y (pixels set, never cleared)."""
        data = s.encode() if isinstance(s, str) else bytes(s)
        for code in data:
            if code < 32 or code > 127:
                code = 127
            offset = (code - 32) * 8
            for j in range(8):
                if 0 <= x < self.width:
                    column = FONT[offset + j]
                    yy = y
                    while column:
                        if column & 1 and 0 <= yy < self.height:
                            self._set(x, yy, c)
                        column >>= 1
                        yy += 1
                x += 1

    def scroll(self, xstep: int, ystep: int) -> None:
        """Shift the contents by xstep, ystep (uncovered pixels keep their old values)."""
        if xstep < 0:
            sx, xend, dx = 0, self.width + xstep, 1
            if xend <= 0:
                return
        else:
            sx, xend, dx = self.width - 1, xstep - 1, -1
            if xend >= sx:
                return
        if ystep < 0:
            y, yend, dy = 0, self.height + ystep, 1
            if yend <= 0:
                return
        else:
            y, yend, dy = self.height - 1, ystep - 1, -1
            if yend >= y:
                return
        while y != yend:
            x = sx
            while x != xend:
                self._set(x, y, self._get(x - xstep, y - ystep))
                x += dx
            y += dy

    def blit(
        self, fbuf: FrameBuffer, x: int, y: int, key: int = -1, palette: FrameBuffer | None = None
    ) -> None:
        """Draw another FrameBuffer (or a (buffer, w, h, format[, stride]) tuple) at x, y;
        pixels of colour key are skipped; palette maps source colours."""
        if isinstance(fbuf, tuple):
            fbuf = FrameBuffer(*fbuf)
        if x >= self.width or y >= self.height or -x >= fbuf.width or -y >= fbuf.height:
            return
        x0 = max(0, x)
        y0 = max(0, y)
        x1 = max(0, -x)
        y1 = max(0, -y)
        x0end = min(self.width, x + fbuf.width)
        y0end = min(self.height, y + fbuf.height)
        while y0 < y0end:
            cx1 = x1
            for cx0 in range(x0, x0end):
                col = fbuf._get(cx1, y1)
                if palette is not None:
                    col = palette._get(col, 0)
                if col != key:
                    self._set(cx0, y0, col)
                cx1 += 1
            y0 += 1
            y1 += 1
