"""Decode the I2C byte stream sent to an SSD1306 or SH1106 OLED back into pixels.

Test and emulator code (never deployed); runs under MicroPython and CPython. `OLED` is a model
of the controller as the datasheets describe it: each write transaction starts with a control
byte (0x00: the rest are command bytes; 0x40: the rest are display-RAM data; with the Co bit
0x80 set, one byte follows and another control byte comes after it), commands change the
addressing state, data bytes land in the display RAM (GDDRAM: 8 pages of 8 pixel rows, 128
columns on the SSD1306, 132 on the SH1106) at the current page and column.

`image()` returns what the panel shows as a 1,024-byte MONO_VLSB buffer in framebuf layout
(byte x + 128 * page, bit = row within the page), viewed the way the module is normally
mounted: segment remap on (0xA1) and COM scan reversed (0xC8) is upright, as every 128x64 module
is initialised. An SH1106's 128 visible columns are RAM columns 2..129 (its panel is centred on
the 132 segment drivers). Unknown command bytes raise ValueError so a driver bug cannot hide.
"""

_WIDTH = 128
_HEIGHT = 64
_PAGES = 8

# Commands taking one argument byte, on both controllers (SSD1306 datasheet section 9, SH1106
# datasheet "commands"): contrast 0x81, display offset 0xD3, clock 0xD5, pre-charge 0xD9,
# COM pins 0xDA, VCOMH 0xDB, multiplex 0xA8, charge pump 0x8D (SSD1306) / DC-DC 0xAD (SH1106),
# addressing mode 0x20 (SSD1306 only).
_ONE_ARG = (0x81, 0xD3, 0xD5, 0xD9, 0xDA, 0xDB, 0xA8, 0x8D, 0xAD, 0x20)


class OLED:
    """A fake SSD1306/SH1106 at one I2C address: feed it writes, read its pixels."""

    def __init__(self, controller="ssd1306"):
        if controller not in ("ssd1306", "sh1106"):
            raise ValueError("unknown controller %s" % controller)
        self.controller = controller
        self.ram_width = 132 if controller == "sh1106" else 128
        self.column_offset = 2 if controller == "sh1106" else 0
        self.ram = bytearray(self.ram_width * _PAGES)
        self.page = 0
        self.column = 0
        self.mode = 2  # SSD1306 addressing: 0 horizontal, 1 vertical, 2 page (reset default)
        self.column_start, self.column_end = 0, _WIDTH - 1  # 0x21 window (SSD1306)
        self.page_start, self.page_end = 0, _PAGES - 1  # 0x22 window (SSD1306)
        self.on = False
        self.inverted = False
        self.all_on = False
        self.contrast = 0x7F  # reset value on SSD1306 (SH1106: 0x80)
        self.segment_remap = False
        self.com_reversed = False
        self.start_line = 0
        self.display_offset = 0
        self.data_bytes = 0  # display RAM bytes received
        self.command_bytes = 0

    # The I2C side ------------------------------------------------------------------------

    def write(self, data):
        """Take one write transaction (the bytes after the address byte)."""
        i = 0
        n = len(data)
        while i < n:
            control = data[i]
            i += 1
            if control & 0x3F:
                raise ValueError("bad control byte 0x%02x" % control)
            is_data = control & 0x40
            if control & 0x80:  # Co = 1: exactly one byte follows, then another control byte
                if i < n:
                    if is_data:
                        self._data(data[i : i + 1])
                    else:
                        self._commands(data[i : i + 1])
                    i += 1
                continue
            if is_data:
                self._data(data[i:])
            else:
                self._commands(data[i:])
            return

    # Commands ------------------------------------------------------------------------------

    def _commands(self, cmds):
        i = 0
        n = len(cmds)
        while i < n:
            c = cmds[i]
            self.command_bytes += 1
            i += 1
            if c in _ONE_ARG:
                if i >= n:
                    raise ValueError("command 0x%02x without its argument" % c)
                arg = cmds[i]
                self.command_bytes += 1
                i += 1
                self._one_arg(c, arg)
            elif c == 0x21 or c == 0x22:  # column / page address window (SSD1306)
                if self.controller != "ssd1306":
                    raise ValueError("0x%02x is not an SH1106 command" % c)
                if i + 1 >= n:
                    raise ValueError("command 0x%02x without its arguments" % c)
                a, b = cmds[i], cmds[i + 1]
                self.command_bytes += 2
                i += 2
                if c == 0x21:
                    self.column_start, self.column_end = a & 0x7F, b & 0x7F
                    self.column = self.column_start
                else:
                    self.page_start, self.page_end = a & 0x07, b & 0x07
                    self.page = self.page_start
            else:
                self._simple(c)

    def _one_arg(self, c, arg):
        if c == 0x81:
            self.contrast = arg
        elif c == 0xD3:
            self.display_offset = arg & 0x3F
        elif c == 0x20:
            if self.controller != "ssd1306":
                raise ValueError("0x20 is not an SH1106 command")
            self.mode = arg & 0x03
        # clock, pre-charge, COM pins, VCOMH, multiplex, charge pump: no effect on pixels

    def _simple(self, c):
        if c <= 0x0F:  # lower column nibble (page addressing)
            self.column = (self.column & 0xF0) | c
        elif c <= 0x1F:  # higher column nibble (SH1106: 0x10..0x18)
            self.column = ((c & 0x0F) << 4) | (self.column & 0x0F)
        elif 0x30 <= c <= 0x33 and self.controller == "sh1106":
            pass  # pump voltage (SH1106)
        elif 0x40 <= c <= 0x7F:  # display start line
            self.start_line = c & 0x3F
        elif c == 0xA0 or c == 0xA1:  # segment remap
            self.segment_remap = c == 0xA1
        elif c == 0xA4 or c == 0xA5:  # entire display on (ignore RAM)
            self.all_on = c == 0xA5
        elif c == 0xA6 or c == 0xA7:  # normal / inverse
            self.inverted = c == 0xA7
        elif c == 0xAE or c == 0xAF:  # display off / on
            self.on = c == 0xAF
        elif 0xB0 <= c <= 0xB7:  # page address (page addressing mode)
            self.page = c & 0x07
        elif c == 0xC0 or c == 0xC8:  # COM scan direction
            self.com_reversed = c == 0xC8
        elif c == 0xE3:  # no operation
            pass
        elif c == 0x2E and self.controller == "ssd1306":  # deactivate scroll
            pass
        else:
            raise ValueError("unknown %s command 0x%02x" % (self.controller, c))

    # Data ----------------------------------------------------------------------------------

    def _data(self, data):
        for b in data:
            self.data_bytes += 1
            if self.column < self.ram_width:
                self.ram[self.page * self.ram_width + self.column] = b
            self._advance()

    def _advance(self):
        if self.controller == "sh1106" or self.mode == 2:
            # Page addressing: the column moves on and stops at the end (no page wrap).
            if self.column < self.ram_width - 1:
                self.column += 1
            elif self.controller == "ssd1306":
                self.column = 0  # SSD1306 page mode wraps to column 0 of the same page
            return
        if self.mode == 0:  # horizontal: column first, then page, inside the windows
            if self.column < self.column_end:
                self.column += 1
            else:
                self.column = self.column_start
                self.page = self.page_start if self.page >= self.page_end else self.page + 1
        else:  # vertical: page first, then column
            if self.page < self.page_end:
                self.page += 1
            else:
                self.page = self.page_start
                self.column = (
                    self.column_start if self.column >= self.column_end else self.column + 1
                )

    # The panel -----------------------------------------------------------------------------

    def ram_pixel(self, column, row):
        """Return the bit at RAM column and RAM row (0..63)."""
        return (self.ram[(row >> 3) * self.ram_width + column] >> (row & 7)) & 1

    def image(self):
        """Return what the panel shows as a MONO_VLSB buffer (1,024 bytes, framebuf layout).

        A panel that is off shows nothing (all zeros)."""
        out = bytearray(_WIDTH * _PAGES)
        if not self.on:
            return out
        if (
            self.segment_remap
            and self.com_reversed
            and self.start_line == 0
            and self.display_offset == 0
            and not self.all_on
        ):
            # The usual upright set-up: RAM pages map straight onto the image (fast path; the
            # general loop below gives the same bytes).
            width = self.ram_width
            for page in range(_PAGES):
                start = page * width + self.column_offset
                out[page * _WIDTH : (page + 1) * _WIDTH] = self.ram[start : start + _WIDTH]
            if self.inverted:
                for i in range(len(out)):
                    out[i] ^= 0xFF
            return out
        return self._image_general(out)

    def _image_general(self, out):
        """Pixel by pixel, for any remap, scan direction, start line and offset."""
        for y in range(_HEIGHT):
            # Row y of the upright image is panel COM (63 - y) ...
            com = _HEIGHT - 1 - y
            # ... which shows RAM row (63 - com) when the scan is reversed (0xC8).
            row = _HEIGHT - 1 - com if self.com_reversed else com
            row = (row + self.start_line - self.display_offset) % _HEIGHT
            for x in range(_WIDTH):
                # Column x of the upright image is panel segment (width-1-x) + offset ...
                segment = self.ram_width - 1 - self.column_offset - x
                # ... which shows RAM column (ram_width-1-segment) when remapped.
                column = self.ram_width - 1 - segment if self.segment_remap else segment
                bit = 1 if self.all_on else self.ram_pixel(column, row)
                if self.inverted:
                    bit ^= 1
                if bit:
                    out[(y >> 3) * _WIDTH + x] |= 1 << (y & 7)
        return out

    def ascii(self):
        """Return the image as 64 lines of '#' and '.' (for failure messages)."""
        img = self.image()
        lines = []
        for y in range(_HEIGHT):
            row = bytearray(b"." * _WIDTH)
            for x in range(_WIDTH):
                if img[(y >> 3) * _WIDTH + x] >> (y & 7) & 1:
                    row[x] = 35  # '#'
            lines.append(bytes(row).decode())
        return "\n".join(lines)


def decode(transactions, controller="ssd1306", addr=0x3C):
    """Replay a recorded log of (addr, bytes) writes; return the OLED model."""
    oled = OLED(controller)
    for to, data in transactions:
        if to == addr:
            oled.write(data)
    return oled


# The terminal view (`dicepod emulate --show`) ---------------------------------------------------

_UPPER = "\u2580"  # upper half block: the top pixel of the pair lit
_LOWER = "\u2584"  # lower half block: the bottom pixel lit
_FULL = "\u2588"  # both


def _lit(image, x, y):
    return image[(y >> 3) * _WIDTH + x] >> (y & 7) & 1


def half_blocks(image):
    """Return a MONO_VLSB image as 32 lines of 128 characters, two pixel rows to a character
    (' ', upper half, lower half or full block): the terminal view on a wide terminal."""
    chars = (" ", _UPPER, _LOWER, _FULL)
    lines = []
    for y in range(0, _HEIGHT, 2):
        lines.append(
            "".join(chars[_lit(image, x, y) | _lit(image, x, y + 1) << 1] for x in range(_WIDTH))
        )
    return lines


# Bit of each dot of a braille cell (2 wide, 4 high), by (dx, dy): Unicode's dot numbering.
_BRAILLE = ((0x01, 0x02, 0x04, 0x40), (0x08, 0x10, 0x20, 0x80))


def braille(image):
    """Return a MONO_VLSB image as 16 lines of 64 braille characters, 2x4 pixels to a
    character: the terminal view on an 80-column terminal."""
    lines = []
    for y in range(0, _HEIGHT, 4):
        row = []
        for x in range(0, _WIDTH, 2):
            bits = 0
            for dx in (0, 1):
                for dy in range(4):
                    if _lit(image, x + dx, y + dy):
                        bits |= _BRAILLE[dx][dy]
            row.append(chr(0x2800 + bits))
        lines.append("".join(row))
    return lines
