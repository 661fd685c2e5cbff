"""OLED display drivers: SSD1306 and SH1106 (128x64, I2C) with a dirty-region flush.

Driver (shell code). Both classes are a `framebuf.FrameBuffer` (MONO_VLSB, 128x64) that the
screens draw on; `show()` sends only what changed since the last flush: it keeps a copy of the
frame last sent, compares page by page (a page is 8 pixel rows, one byte per column), and for
each page sends the changed column spans (spans closer than a span's framing cost are merged).
After a roll that redraws six dice in a 2-3 page band this is a few hundred bytes instead of a
full frame; tools/bench_display.py measures it.

Both controllers are driven in page addressing mode, so one flush routine serves both:
  0xB0|page, 0x00|(column & 0x0F), 0x10|(column >> 4), then the data bytes.
The SH1106 has a 132-column RAM with the 128-pixel panel centred on it: visible columns start at
RAM column 2, and it has no horizontal addressing mode (no wrap to the next page). An SSD1306
takes a frame whose spans would cost more bus bytes than the whole frame (a new screen) as
micropython-lib's driver sends one: the window in horizontal addressing, then one write of the
frame, which sits behind its data control byte for that (then page addressing again).

Constructor arguments: i2c (a built machine.I2C), addr (7-bit, 0x3C on most modules; 0x3D with
the address jumper), external_vcc (module without a charge pump), rotate (0 or 180: the panel
mounted upside down). A span goes out as one writeto() of a staging line (data control byte +
up to 128 columns), the columns copied in C through a memoryview slice: two small views a span
(an SSD1306's whole frame: none, its one write through a view made once), faster than a loop
copying a byte at a time and lighter than views made once for every span. (writevto() of a
control byte plus the span allocates too on a Pico: the rp2 port joins the vector into a
temporary heap buffer.) A page
equal to its copy is passed over in C (memoryview ==, a memcmp through views made once: far
quicker on a Pico than a native look at its columns). A changed page's spans are
found once a show(), kept for its sending: on a Pico in native code
(dicepod.drivers.glyphs.spans: every column compared, spans at most 16 unchanged columns apart
merged: a span's Python costs too); elsewhere (CPython, the simulator's WebAssembly build: no
native code) in Python (_spans, the same spans: the same bytes on the bus as a Pico's).
A page's copy is updated in C once its spans were written. Bus errors (OSError from the I2C)
propagate before that, so the next show() sends the page again.
"""

import framebuf
from micropython import const

try:  # native code: not on a port without a native emitter (nor on CPython)
    from dicepod.drivers.glyphs import big as _big
    from dicepod.drivers.glyphs import (
        clear,  # (named as list.clear: a name interned already)
        die,  # (named as dicepod.ui.draw.die, for the same)
    )
    from dicepod.drivers.glyphs import dots as _dots
    from dicepod.drivers.glyphs import spans as _spans
    from dicepod.drivers.glyphs import text6 as _text6
except Exception:
    _text6 = _dots = _big = clear = die = None

    def _spans(now, was, page, out):
        """dicepod.drivers.glyphs.spans in Python (its docstring): the same spans, merged
        across the same gaps (16 unchanged columns at most), how many plus their columns << 4."""
        base = page * 128
        if memoryview(now)[base : base + 128] == memoryview(was)[base : base + 128]:
            return 0  # (compared in C)
        n = 0
        start = -1
        end = 0
        held = 0
        for col in range(128):
            if now[base + col] != was[base + col]:
                if start < 0:
                    start = col
                elif col - end > 16:
                    out[n] = start
                    out[n + 1] = end
                    n += 2
                    held += end - start
                    start = col
                end = col + 1
        if start >= 0:
            out[n] = start
            out[n + 1] = end
            n += 2
            held += end - start
        return (n >> 1) | held << 4


_WIDTH = const(128)
_HEIGHT = const(64)
_PAGES = const(8)  # 64 rows / 8 rows per page
_FRAME_BYTES = const(1024)  # 128 columns x 8 pages
# What a span costs besides its columns, in the time of a byte on the bus: its address write
# and its data write's framing, and the Python between two spans, worth more bytes the faster
# the bus (SCL at 1 MHz, the device.fastbus setting, or at 400 kHz; tools/bench_pico.py and
# tests/test_pico_display_bus.py weigh them); and what an SSD1306's whole frame costs: window
# (9), frame (1,025), page addressing again (3). A frame goes whole when its spans would take
# longer.
_SPAN_FRAMING = const(19)
_SPAN_FRAMING_1MHZ = const(34)
_WHOLE_BYTES = const(1040)

# I2C control bytes (first byte of each write transaction).
_CONTROL_COMMANDS = const(0x00)  # Co=0, D/C#=0: every following byte is a command
_CONTROL_DATA = const(0x40)  # Co=0, D/C#=1: every following byte goes to display RAM

# Commands common to both controllers.
_SET_CONTRAST = const(0x81)  # + 1 byte: 0..255
_DISPLAY_FOLLOW_RAM = const(0xA4)  # 0xA5 would light every pixel
_NORMAL = const(0xA6)  # 0xA7 = inverse
_DISPLAY_OFF = const(0xAE)  # sleep mode: panel off, RAM kept, ~10 uA
_DISPLAY_ON = const(0xAF)
_SET_MULTIPLEX = const(0xA8)  # + 1 byte: rows - 1
_SET_DISPLAY_OFFSET = const(0xD3)  # + 1 byte: vertical shift
_SET_START_LINE = const(0x40)  # | line (0..63)
_SET_CLOCK = const(0xD5)  # + 1 byte: divide ratio (low nibble) and oscillator (high nibble)
_SET_PRECHARGE = const(0xD9)  # + 1 byte: phase 1 (low nibble) and phase 2 (high nibble) clocks
_SET_COM_PINS = const(0xDA)  # + 1 byte: COM pin hardware configuration
_SET_VCOMH = const(0xDB)  # + 1 byte: VCOMH deselect level
_SEGMENT_REMAP = const(0xA1)  # column 127 (SH1106: 131) -> SEG0; 0xA0 = no remap
_SEGMENT_NORMAL = const(0xA0)
_COM_SCAN_REVERSED = const(0xC8)  # scan COM[N-1] -> COM0; 0xC0 = COM0 -> COM[N-1]
_COM_SCAN_NORMAL = const(0xC0)
_PAGE_ADDRESS = const(0xB0)  # | page (0..7), page addressing mode
_COLUMN_LOW = const(0x00)  # | low nibble of the column
_COLUMN_HIGH = const(0x10)  # | high nibble of the column

# SSD1306 only.
_SSD1306_ADDRESSING_MODE = const(0x20)  # + 1 byte: 0x02 = page addressing (reset default)
_SSD1306_CHARGE_PUMP = const(0x8D)  # + 1 byte: 0x14 = on (internal VCC), 0x10 = off
# SH1106 only.
_SH1106_DC_DC = const(0xAD)  # + 1 byte: 0x8B = DC-DC converter on, 0x8A = off
_SH1106_PUMP_8V0 = const(0x32)  # charge pump output 8.0 V (0x30..0x33 = 6.4..9.0 V)


class _OLED(framebuf.FrameBuffer):
    """The shared part: frame buffer, last-sent copy, dirty-span flush, power and contrast."""

    # Set by the subclasses.
    RAM_COLUMN_OFFSET = 0
    NAME = "oled"

    def __init__(self, i2c, addr=0x3C, external_vcc=False, rotate=0):
        self.i2c = i2c
        self.addr = addr
        self.external_vcc = external_vcc
        self.rotate = rotate
        self.width = _WIDTH
        self.height = _HEIGHT
        # the frame behind its data control byte: an SSD1306 takes a whole frame in one write
        whole = bytearray(_FRAME_BYTES + 1)
        whole[0] = _CONTROL_DATA
        self.buffer = memoryview(whole)[1:]
        self._sent = bytearray(_FRAME_BYTES)  # what the display RAM holds (after _synced)
        self._synced = False  # False until a full frame went out: RAM content unknown
        now = self.buffer
        # each page's changed spans (_spans), found once a show() and kept for its sending
        found = memoryview(bytearray(_PAGES * 32))
        self._found = [found[i : i + 32] for i in range(0, _PAGES * 32, 32)]
        self._counts = [0] * _PAGES  # what _spans returned for each page
        line = bytearray(_WIDTH + 1)  # data control byte + one span's columns
        line[0] = _CONTROL_DATA
        self._line_view = memoryview(line)
        self._line_data = self._line_view[1:]
        # big()'s text at 1x, drawn into the span line's columns (never in use while a screen
        # draws: show() fills it afterwards)
        self._strip = framebuf.FrameBuffer(self._line_data, _WIDTH, 8, framebuf.MONO_VLSB)
        self._frame_view = now
        # the 8 pages, then the whole frame with its control byte (SSD1306_I2C's one write)
        self._pages = [now[i : i + _WIDTH] for i in range(0, _FRAME_BYTES, _WIDTH)]
        self._pages.append(memoryview(whole))
        sent = memoryview(self._sent)
        self._sent_pages = [sent[i : i + _WIDTH] for i in range(0, _FRAME_BYTES, _WIDTH)]
        self._command = bytearray(2)  # control byte + one command
        self._command2 = bytearray(3)  # control byte + command + argument
        self._address = bytearray(4)  # control byte + page + column low + column high
        self._command[0] = _CONTROL_COMMANDS
        self._command2[0] = _CONTROL_COMMANDS
        self._address[0] = _CONTROL_COMMANDS
        self.is_on = False
        self.waking = False  # the panel switches on once the first frame is sent (show)
        self.level = 0
        self.freq = 400_000  # the bus's SCL rate asked (board.make sets it)
        self.bytes_sent = 0  # payload bytes written over I2C (control bytes included)
        self.writes = 0  # I2C write transactions
        super().__init__(self.buffer, _WIDTH, _HEIGHT, framebuf.MONO_VLSB)
        self.init_display()

    def text6(self, s, at, table):
        """Draw s in the 6×8 font (table: dicepod.ui.font6's glyphs) in native code
        (dicepod.drivers.glyphs) at at = (x + 512) | (y + 512) << 10 | ink << 20 (x and y in
        -512..511, ink 0 or 1: packed by the caller, dicepod.ui.font6.text, so that neither
        call's frame needs the heap); False when it cannot (no native code here, a character
        past "~"): the caller draws it in Python."""
        return _text6 is not None and _text6(self.buffer, s, table, at) == 0

    def big(self, s, at):
        """Draw s in the 8×8 font scaled up in native code (dicepod.drivers.glyphs.big) at at =
        (x + 512) | (y + 512) << 10 | ink << 20 | scale << 21 (packed by the caller,
        dicepod.ui.draw.big); False when it cannot (no native code here, over 16
        characters): the caller draws it in Python."""
        n = len(s)
        if _big is None or n > 16:
            return False
        strip = self._strip
        strip.fill_rect(0, 0, n * 8, 8, 0)
        strip.text(s, 0, 0, 1)
        _big(self.buffer, self._line_data, at | n << 24)
        return True

    def die(self, s, at):
        """Draw a die in native code (dicepod.drivers.glyphs.die): s its pips' cells, at its
        place, style and size packed by the caller (dicepod.ui.draw.die); False when there is
        no native code here: the caller draws it in Python."""
        return die is not None and die(self.buffer, s, at) == 0

    def fill(self, c):
        """Clear (c 0) or light the whole frame: in native code (glyphs.clear) on a Pico, else
        its first byte, then what is done copied over the next as many (memmove, 10 copies):
        framebuf's fill sets each pixel on its own."""
        frame = self._frame_view
        if not c and clear is not None:
            clear(frame)
            return
        frame[0] = 255 if c else 0
        n = 1
        while n < _FRAME_BYTES:
            frame[n : n + n] = frame[:n]
            n += n

    def dots(self, x, w, y):
        """Invert every other pixel of row y, from column x for w columns (a dotted line seen
        on lit bars and on the dark alike: dicepod.ui.free), in the frame's bytes, not a
        pixel read and a pixel write a dot."""
        if 0 <= y < _HEIGHT:
            buf = self.buffer
            bit = 1 << (y & 7)
            base = (y >> 3) * _WIDTH
            end = x + w
            if end > _WIDTH:
                end = _WIDTH
            if x < 0:
                x += (1 - x) // 2 * 2  # (the first dot on the screen, every other one kept)
            if _dots is not None:
                _dots(buf, base + x, base + end, bit)
                return
            for i in range(base + x, base + end, 2):
                buf[i] ^= bit

    # Commands --------------------------------------------------------------------------------

    def _cmd(self, command):
        self._command[1] = command
        self.i2c.writeto(self.addr, self._command)
        self.bytes_sent += 2
        self.writes += 1

    def _cmd_arg(self, command, arg):
        self._command2[1] = command
        self._command2[2] = arg
        self.i2c.writeto(self.addr, self._command2)
        self.bytes_sent += 3
        self.writes += 1

    def _init_commands(self):
        """Send the controller-specific set-up (display still off)."""
        raise NotImplementedError

    def init_display(self):
        """Initialise the controller with the panel off. The first show() sends the whole
        frame (the RAM holds noise at power-up) and then switches the panel on: no blank
        frame sent before the first one (a whole frame's bus time at every power-on)."""
        self.poweroff()
        self._init_commands()
        self._synced = False
        self.waking = True

    def invalidate(self):
        """Forget what the display holds: the next show() sends the whole frame."""
        self._synced = False

    def poweroff(self):
        """Switch the panel off (sleep mode; RAM and the frame are kept)."""
        self._cmd(_DISPLAY_OFF)
        self.is_on = False

    def poweron(self):
        """Switch the panel on."""
        self._cmd(_DISPLAY_ON)
        self.is_on = True

    def contrast(self, level):
        """Set the brightness, 0..255."""
        level = 0 if level < 0 else 255 if level > 255 else level
        self._cmd_arg(_SET_CONTRAST, level)
        self.level = level

    def invert(self, on):
        """Show white-on-black (False) or black-on-white (True)."""
        self._cmd(_NORMAL | (1 if on else 0))

    # The dirty-span flush --------------------------------------------------------------------

    def show(self):
        """Send the changed parts of the frame; return the number of spans sent (_PAGES for a
        whole frame)."""
        found = self._found
        counts = self._counts
        sent = self._sent
        pages = self._pages
        sents = self._sent_pages
        whole = not self._synced  # what the display's RAM holds is unknown: all of it
        cost = 0
        if not whole:
            # each page's changed spans, a page equal to its copy passed over in C (memcmp);
            # an SSD1306 takes the frame whole when its spans would take longer
            framing = _SPAN_FRAMING_1MHZ if self.freq > 400_000 else _SPAN_FRAMING
            for page in range(_PAGES):
                if pages[page] == sents[page]:
                    counts[page] = 0
                    continue
                n = _spans(self.buffer, sent, page, found[page])  # (how many, columns << 4)
                counts[page] = n
                cost += (n >> 4) + (n & 15) * framing
                if cost > _WHOLE_BYTES and not self.RAM_COLUMN_OFFSET:
                    whole = True
                    break
        if whole:
            if not self.RAM_COLUMN_OFFSET:
                # horizontal addressing over the whole panel, the frame, page addressing again
                self.i2c.writeto(self.addr, b"\x00\x20\x00\x21\x00\x7f\x22\x00\x07")
                self.i2c.writeto(self.addr, pages[_PAGES])
                self.i2c.writeto(self.addr, b"\x00\x20\x02")
                self.bytes_sent += _WHOLE_BYTES - 3
                self.writes += 3
                sent[:] = self.buffer  # copied in C
                return self._whole_sent()
            # an SH1106 has no horizontal addressing: its frame goes as a whole page a span
            for page in range(_PAGES):
                out = found[page]
                out[0] = 0
                out[1] = _WIDTH
                counts[page] = 1
        elif not cost:
            return 0  # nothing changed
        # Each span written out here with the attributes looked up once: on a subclass of
        # framebuf's type every self.name costs about as much as a span's Python does besides.
        writeto = self.i2c.writeto
        addr = self.addr
        address = self._address
        line = self._line_view
        frame = self._frame_view
        offset = self.RAM_COLUMN_OFFSET
        spans = 0
        sent_bytes = 0
        for page in range(_PAGES):
            n = counts[page] & 15
            if n:
                out = found[page]
                address[1] = _PAGE_ADDRESS | page
                for k in range(0, 2 * n, 2):
                    start = out[k]
                    end = out[k + 1] - start  # the span's columns
                    column = start + offset
                    address[2] = _COLUMN_LOW | (column & 0x0F)
                    address[3] = _COLUMN_HIGH | (column >> 4)
                    writeto(addr, address)
                    start += page * _WIDTH  # its first byte in the frame
                    line[1 : end + 1] = frame[start : start + end]  # copied in C
                    writeto(addr, line[: end + 1])
                    sent_bytes += 5 + end
                spans += n
                sents[page][:] = pages[page]  # the page as sent, in C
        self.bytes_sent += sent_bytes
        self.writes += 2 * spans
        return self._whole_sent() if whole else spans

    def _whole_sent(self):
        """The display's RAM holds the frame now; the first frame after a wake lights the
        panel. Return _PAGES (show()'s count for a whole frame)."""
        self._synced = True
        if self.waking:  # the first frame is in the RAM: the panel shows it
            self.waking = False
            self.poweron()
        return _PAGES


class SSD1306_I2C(_OLED):
    """SSD1306 128x64 over I2C (the usual 0.96-inch module)."""

    RAM_COLUMN_OFFSET = 0
    NAME = "ssd1306"

    def _init_commands(self):
        ext = self.external_vcc
        flipped = self.rotate == 180
        self._cmd_arg(_SET_CLOCK, 0x80)  # divide ratio 1, oscillator mid-range (reset value)
        self._cmd_arg(_SET_MULTIPLEX, _HEIGHT - 1)  # 64 rows
        self._cmd_arg(_SET_DISPLAY_OFFSET, 0x00)  # no vertical shift
        self._cmd(_SET_START_LINE | 0)  # RAM row 0 at the top
        self._cmd_arg(_SSD1306_CHARGE_PUMP, 0x10 if ext else 0x14)  # internal pump unless VCC
        self._cmd_arg(_SSD1306_ADDRESSING_MODE, 0x02)  # page addressing (the flush uses it)
        self._cmd(_SEGMENT_NORMAL if flipped else _SEGMENT_REMAP)  # column 0 at the left
        self._cmd(_COM_SCAN_NORMAL if flipped else _COM_SCAN_REVERSED)  # row 0 at the top
        self._cmd_arg(_SET_COM_PINS, 0x12)  # alternative COM pins, no left/right remap (64 rows)
        self._cmd_arg(_SET_CONTRAST, 0x9F if ext else 0xCF)  # datasheet application values
        self.level = 0x9F if ext else 0xCF
        self._cmd_arg(_SET_PRECHARGE, 0x22 if ext else 0xF1)  # phase 1/2 clocks
        self._cmd_arg(_SET_VCOMH, 0x30)  # ~0.83 x VCC
        self._cmd(_DISPLAY_FOLLOW_RAM)
        self._cmd(_NORMAL)


class SH1106_I2C(_OLED):
    """SH1106 128x64 over I2C (most 1.3-inch modules): 132-column RAM, 2-column offset."""

    RAM_COLUMN_OFFSET = 2
    NAME = "sh1106"

    def _init_commands(self):
        flipped = self.rotate == 180
        self._cmd_arg(_SET_CLOCK, 0x80)  # divide ratio 1, oscillator +15 %
        self._cmd_arg(_SET_MULTIPLEX, _HEIGHT - 1)  # 64 rows
        self._cmd_arg(_SET_DISPLAY_OFFSET, 0x00)  # no vertical shift
        self._cmd(_SET_START_LINE | 0)  # RAM row 0 at the top
        self._cmd_arg(_SH1106_DC_DC, 0x8A if self.external_vcc else 0x8B)  # DC-DC on unless VCC
        self._cmd(_SH1106_PUMP_8V0)  # charge pump 8.0 V
        self._cmd(_SEGMENT_NORMAL if flipped else _SEGMENT_REMAP)  # column 0 at the left
        self._cmd(_COM_SCAN_NORMAL if flipped else _COM_SCAN_REVERSED)  # row 0 at the top
        self._cmd_arg(_SET_COM_PINS, 0x12)  # alternative COM pins (64 rows)
        self._cmd_arg(_SET_CONTRAST, 0x80)  # reset value
        self.level = 0x80
        self._cmd_arg(_SET_PRECHARGE, 0x22)  # 2 clocks each phase (reset value)
        self._cmd_arg(_SET_VCOMH, 0x35)  # ~0.77 x VCC (reset value)
        self._cmd(_DISPLAY_FOLLOW_RAM)
        self._cmd(_NORMAL)


CONTROLLERS = ("ssd1306", "sh1106")  # settings value 0, 1


def make(kind, i2c, addr=0x3C, external_vcc=False, rotate=0):
    """Build the driver for kind ("ssd1306"/"sh1106", or its index in CONTROLLERS)."""
    if kind == 1 or kind == "sh1106":
        return SH1106_I2C(i2c, addr, external_vcc, rotate)
    if kind == 0 or kind == "ssd1306":
        return SSD1306_I2C(i2c, addr, external_vcc, rotate)
    raise ValueError("unknown display %r" % (kind,))
