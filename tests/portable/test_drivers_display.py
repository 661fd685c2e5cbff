"""Display drivers (SSD1306, SH1106): the I2C byte stream, decoded back into pixels by the fake
OLED, equals the frame buffer after every flush; only changed spans are sent; bus errors
propagate and the next flush repairs the screen. Needs framebuf: built into MicroPython; on
CPython they run with host/framebuf.py (the pure-Python shim), and are skipped without it."""

from checks import skip
from display_scenes import draw_roll_screen, redraw_after_roll
from seeded import Seeded

try:
    import framebuf
except ImportError:
    framebuf = None

try:
    import machine
    import oled_decode
except ImportError:
    from dicepod_host.fakeboard import machine, oled_decode

CONTROLLERS = ("ssd1306", "sh1106")


def _make(kind, rotate=0, shown=True):
    """The driver on a decoded controller; shown: its first frame (blank) sent, as the app's
    start sends one, so that the panel is on and the RAM known."""
    from dicepod.drivers import display

    i2c = machine.I2C(0)
    oled = oled_decode.OLED(kind)
    i2c.attach(0x3C, oled)
    d = display.make(kind, i2c, rotate=rotate)
    if shown:
        d.show()
    return d, i2c, oled


def _check(d, oled, what):
    img = oled.image()
    if img != d.buffer:
        bad = [i for i in range(len(img)) if img[i] != d.buffer[i]]
        raise AssertionError("%s: %d bytes differ, first at %d" % (what, len(bad), bad[0]))


def test_the_panel_switches_on_once_the_first_frame_is_whole_in_its_ram():
    if framebuf is None:
        skip("no framebuf: host/framebuf.py is not importable")
    for kind in CONTROLLERS:
        d, i2c, oled = _make(kind, shown=False)
        # set up with the panel off, and no blank frame sent before the app's first
        assert not oled.on and not d.is_on and oled.data_bytes == 0
        assert oled.segment_remap and oled.com_reversed
        d.text("dicepod", 8, 8, 1)
        d.show()
        assert oled.on and d.is_on
        _check(d, oled, kind + " after the first frame")
        # Every RAM byte the panel shows was written (RAM content at power-up is random).
        assert oled.data_bytes == 1024
        # the power policy's switching off is its own from then on
        d.poweroff()
        d.pixel(0, 0, 1)
        d.show()
        assert not oled.on and not d.is_on


def test_random_drawings_decode_to_the_frame_buffer():
    if framebuf is None:
        skip("no framebuf: host/framebuf.py is not importable")
    rng = Seeded(7)
    for kind in CONTROLLERS:
        d, i2c, oled = _make(kind)
        for step in range(40):
            shape = rng.randbelow(5)
            x, y = rng.randbelow(140) - 6, rng.randbelow(76) - 6
            w, h = rng.randbelow(40) + 1, rng.randbelow(30) + 1
            c = rng.randbelow(2)
            if shape == 0:
                d.fill_rect(x, y, w, h, c)
            elif shape == 1:
                d.text("%d" % rng.randbelow(1000), x, y, c)
            elif shape == 2:
                d.line(x, y, x + w, y + h, c)
            elif shape == 3:
                d.pixel(x % 128, y % 64, c)
            else:
                d.rect(x, y, w, h, c)
            if rng.randbelow(3) == 0:
                d.show()
                _check(d, oled, "%s step %d" % (kind, step))
        d.show()
        _check(d, oled, kind + " end")


def test_unchanged_frame_sends_nothing():
    if framebuf is None:
        skip("no framebuf: host/framebuf.py is not importable")
    for kind in CONTROLLERS:
        d, i2c, oled = _make(kind)
        i2c.clear()
        assert d.show() == 0
        assert i2c.writes == 0
        d.pixel(5, 5, 0)  # already 0: still no change
        assert d.show() == 0 and i2c.writes == 0


def test_one_pixel_sends_one_byte_at_the_right_ram_column():
    if framebuf is None:
        skip("no framebuf: host/framebuf.py is not importable")
    for kind in CONTROLLERS:
        d, i2c, oled = _make(kind)
        i2c.clear()
        d.pixel(100, 35, 1)  # page 4, column 100
        assert d.show() == 1
        offset = 2 if kind == "sh1106" else 0
        column = 100 + offset
        assert i2c.log == [
            (0x3C, bytes((0x00, 0xB4, column & 0x0F, 0x10 | column >> 4))),
            (0x3C, bytes((0x40, 1 << 3))),
        ]
        assert oled.ram[4 * oled.ram_width + column] == 1 << 3
        _check(d, oled, kind)


def test_spans_merge_when_close_and_split_when_far():
    if framebuf is None:
        skip("no framebuf: host/framebuf.py is not importable")
    d, i2c, oled = _make("ssd1306")
    i2c.clear()
    d.pixel(10, 0, 1)
    d.pixel(15, 0, 1)  # gap of 4 columns: cheaper to send through than to start a new span
    d.pixel(60, 0, 1)  # far: its own span
    assert d.show() == 2
    data = [t[1] for t in i2c.log if t[1][0] == 0x40]
    assert [len(x) - 1 for x in data] == [6, 1]
    _check(d, oled, "spans")


def test_ssd1306_new_screen_is_one_full_frame_write():
    # A screen that changes everywhere goes out as micropython-lib's driver sends a frame (the
    # window in horizontal addressing, then one 1,025-byte data write), and never costs more
    # bus bytes than that; a frame that changes less goes out as spans, cheaper still.
    if framebuf is None:
        skip("no framebuf: host/framebuf.py is not importable")
    d, i2c, oled = _make("ssd1306")
    rng = Seeded(11)
    for step in range(12):
        pages = 8 if step < 4 else rng.randbelow(8) + 1  # changed pages
        for page in range(pages):
            for x in range(0, 128, 1 if step < 4 else rng.randbelow(3) + 1):
                y = page * 8 + rng.randbelow(8)
                d.pixel(x, y, 1 - d.pixel(x, y))
        i2c.clear()
        d.show()
        _check(d, oled, "step %d" % step)
        data = [t[1] for t in i2c.log if t[1][0] == 0x40]
        assert i2c.wire_bytes() <= 1040, (step, i2c.wire_bytes())
        if step < 4:  # every column of every page changed: one write of the whole frame
            assert [len(x) for x in data] == [1025], (step, [len(x) for x in data])
            assert i2c.log[0][1] == bytes((0x00, 0x20, 0x00, 0x21, 0, 127, 0x22, 0, 7))
            assert i2c.log[-1][1] == bytes((0x00, 0x20, 0x02))  # page addressing again
            assert i2c.wire_bytes() == 1040
        else:
            spans = [len(x) - 1 for x in data]
            cost = sum(spans) + 7 * len(spans)
            assert len(data) == 1 and spans == [1024] or cost <= 1040, (step, spans)
    d.pixel(3, 3, 1 - d.pixel(3, 3))  # after a whole frame, a span lands where it should
    i2c.clear()
    assert d.show() == 1 and i2c.wire_bytes() == 8
    _check(d, oled, "a span after a whole frame")


def test_sh1106_column_offset_and_no_horizontal_mode():
    if framebuf is None:
        skip("no framebuf: host/framebuf.py is not importable")
    d, i2c, oled = _make("sh1106")
    for _addr, data in i2c.log:
        if data[0] == 0x00:
            assert 0x20 not in data[1:2] and 0x21 not in data[1:2]  # no SSD1306-only commands
    d.fill(1)
    d.show()
    # The panel shows RAM columns 2..129; columns 0, 1, 130, 131 are never written.
    for page in range(8):
        row = oled.ram[page * 132 : page * 132 + 132]
        assert row[0] == 0 and row[1] == 0 and row[130] == 0 and row[131] == 0
        assert row[2] == 0xFF and row[129] == 0xFF
    _check(d, oled, "sh1106 full")


def test_rotate_180_turns_the_image():
    if framebuf is None:
        skip("no framebuf: host/framebuf.py is not importable")
    for kind in CONTROLLERS:
        d, i2c, oled = _make(kind, rotate=180)
        d.text("Hi", 0, 0, 1)
        d.fill_rect(100, 50, 5, 3, 1)
        d.show()
        img = oled.image()
        for y in range(64):
            for x in range(128):
                shown = img[((63 - y) >> 3) * 128 + 127 - x] >> ((63 - y) & 7) & 1
                assert shown == d.pixel(x, y), (kind, x, y)


def test_contrast_power_invert_commands():
    if framebuf is None:
        skip("no framebuf: host/framebuf.py is not importable")
    for kind in CONTROLLERS:
        d, i2c, oled = _make(kind)
        d.contrast(12)
        assert oled.contrast == 12 and d.level == 12
        d.contrast(999)
        assert oled.contrast == 255
        d.fill_rect(0, 0, 10, 10, 1)
        d.show()
        d.poweroff()
        assert not oled.on and not d.is_on
        assert oled.image() == bytearray(1024)  # a panel that is off shows nothing
        d.poweron()
        _check(d, oled, kind + " back on")
        d.invert(True)
        assert oled.inverted
        d.invert(False)
        assert not oled.inverted


class _Flaky:
    """An OLED whose bus fails on demand."""

    def __init__(self, kind):
        self.oled = oled_decode.OLED(kind)
        self.fail = False

    def write(self, data):
        if self.fail and data[0] == 0x40:
            raise OSError(5)
        self.oled.write(data)


def test_bus_error_propagates_and_next_show_repairs():
    if framebuf is None:
        skip("no framebuf: host/framebuf.py is not importable")
    from dicepod.drivers import display

    for kind in CONTROLLERS:
        i2c = machine.I2C(0)
        dev = _Flaky(kind)
        i2c.attach(0x3C, dev)
        d = display.make(kind, i2c)
        d.fill_rect(20, 20, 30, 20, 1)
        dev.fail = True
        try:
            d.show()
            raise AssertionError("no error")
        except OSError as exc:
            assert exc.args[0] == 5
        dev.fail = False
        d.show()
        _check(d, dev.oled, kind + " repaired")


def test_missing_display_raises_at_init():
    if framebuf is None:
        skip("no framebuf: host/framebuf.py is not importable")
    from dicepod.drivers import display

    i2c = machine.I2C(0)
    i2c.attach(0x3C, None)
    try:
        display.make("ssd1306", i2c)
        raise AssertionError("no error")
    except OSError:
        pass
    try:
        display.make("st7735", i2c)
        raise AssertionError("no error")
    except ValueError:
        pass


def roll_redraw_bytes(kind, rolls=30, seed=3):
    """Wire bytes (payload + address bytes) per roll redraw: list over `rolls` rolls."""
    d, i2c, oled = _make(kind)
    rng = Seeded(seed)
    faces = [rng.randbelow(6) + 1 for _ in range(6)]
    draw_roll_screen(d, faces, 0, 0)
    d.show()
    counts = []
    score = 0
    for roll in range(1, rolls + 1):
        faces = [rng.randbelow(6) + 1 for _ in range(6)]
        score += 50 * rng.randbelow(7)
        redraw_after_roll(d, faces, score, roll)
        i2c.clear()
        d.show()
        _check(d, oled, "%s roll %d" % (kind, roll))
        counts.append(i2c.wire_bytes())
    return counts


def test_roll_redraw_within_budget():
    if framebuf is None:
        skip("no framebuf: host/framebuf.py is not importable")
    for kind in CONTROLLERS:
        counts = roll_redraw_bytes(kind)
        assert sum(counts) / len(counts) <= 400, counts
        assert max(counts) < 1080  # always less than a full frame (1,024 data + framing)


def test_decoder_horizontal_mode_and_co_bit_stream():
    # The decoder also follows a full-frame write in SSD1306 horizontal addressing (as
    # micropython-lib's driver sends it) and command streams using the Co bit (0x80).
    oled = oled_decode.OLED("ssd1306")
    frame = bytearray(1024)
    for i in range(1024):
        frame[i] = (i * 37) & 0xFF
    oled.write(bytes((0x80, 0xA1, 0x80, 0xC8, 0x80, 0xAF)))  # remap, scan, on: one per Co pair
    oled.write(bytes((0x00, 0x20, 0x00, 0x21, 0, 127, 0x22, 0, 7)))  # horizontal, full window
    oled.write(b"\x40" + bytes(frame[:500]))
    oled.write(b"\x40" + bytes(frame[500:]))
    assert oled.image() == frame
    assert oled.column == 0 and oled.page == 0  # wrapped back to the window's start
    try:
        oled.write(b"\x00\xff")
        raise AssertionError("unknown command accepted")
    except ValueError:
        pass
    sh = oled_decode.OLED("sh1106")
    try:
        sh.write(b"\x00\x20\x00")
        raise AssertionError("SSD1306-only command accepted by the SH1106 model")
    except ValueError:
        pass


def test_decoder_fast_path_equals_pixel_by_pixel():
    for kind in CONTROLLERS:
        oled = oled_decode.OLED(kind)
        oled.write(bytes((0x00, 0xA1, 0xC8, 0xAF)))
        rng = Seeded(5)
        for i in range(len(oled.ram)):
            oled.ram[i] = rng.randbelow(256)
        for inverted in (False, True):
            oled.inverted = inverted
            assert oled.image() == oled._image_general(bytearray(1024)), (kind, inverted)


def _spied(name):
    """A display whose native-code method name records what each call returned (taken: True
    drawn, False left to Python), and a plain frame buffer (its bytes: plain) drawn on beside
    it, which has no such method: the Python drawing to compare with."""
    d, _i2c, _oled = _make("ssd1306")
    native = getattr(d, name)
    taken = []

    def spy(*args):
        done = native(*args)
        taken.append(done)
        return done

    setattr(d, name, spy)
    plain = bytearray(1024)
    return d, framebuf.FrameBuffer(plain, 128, 64, framebuf.MONO_VLSB), plain, taken


def _background(canvas):
    """A cleared frame with a lit band (dark ink shows there) and a frame line."""
    canvas.fill(0)
    canvas.fill_rect(0, 20, 128, 20, 1)
    canvas.rect(3, 2, 50, 50, 1)


def test_native_6x8_text_is_font6s_pixels():
    """The display's text6 (native code, dicepod.drivers.glyphs), which font6.text draws
    through on the display, sets and clears the very pixels font6.text's own blits do: every
    printable character, both inks, over a patterned background, clipped at every edge; a
    character past "~" leaves it to Python."""
    if framebuf is None:
        skip("no framebuf: host/framebuf.py is not importable")
    from dicepod.drivers import display
    from dicepod.ui import font6

    if display._text6 is None:
        skip("no native code on this interpreter (CPython): the MicroPython run checks it")
    d, ref, plain, taken = _spied("text6")  # ref: no text6, Python blits
    chars = "".join(chr(c) for c in range(32, 127))
    rng = Seeded(11)
    cases = [(chars[i : i + 20], 1 + (i % 7), (i * 5) % 60, i % 2) for i in range(0, 95, 19)]
    cases += [("edge", 120, 60, 1), ("left", -9, 3, 0), ("up", 4, -5, 1), ("all off", 0, 70, 1)]
    for _ in range(40):
        text = "".join(chars[rng.randbelow(95)] for _ in range(1 + rng.randbelow(24)))
        cases.append((text, rng.randbelow(150) - 12, rng.randbelow(80) - 10, rng.randbelow(2)))
    for text, x, y, ink in cases:
        for canvas in (d, ref):
            _background(canvas)
            font6.text(canvas, text, x, y, ink)
        assert d.buffer == plain, (text, x, y, ink)
    assert taken == [True] * len(cases)
    for canvas in (d, ref):
        canvas.fill(0)
        font6.text(canvas, "caf\u00e9 ok", 2, 2, 1)  # past "~": drawn in Python ("?")
    assert taken[-1] is False and d.buffer == plain


def test_native_big_text_is_draw_bigs_pixels():
    """The display's big() (native code, dicepod.drivers.glyphs.big), which draw.big draws
    through on the display, sets and clears the very pixels draw.big's rectangles do: every
    scale the screens use, both inks, over a patterned background, clipped at every edge; over
    16 characters it leaves the text to Python."""
    if framebuf is None:
        skip("no framebuf: host/framebuf.py is not importable")
    from dicepod.drivers import display
    from dicepod.ui import draw

    if display._big is None:
        skip("no native code on this interpreter (CPython): the MicroPython run checks it")
    d, ref, plain, taken = _spied("big")  # ref: no big(), rectangles
    chars = "".join(chr(c) for c in range(32, 127))
    rng = Seeded(5)
    cases = [("BREACH", 0, 11, 2, 1), ("A3", 100, 12, 3, 1), ("7", 8, 14, 4, 1)]
    cases += [("BUST!", 24, 29, 2, 0), ("BLUE AGAIN", -16, 2, 2, 0), ("edge", 120, 58, 3, 1)]
    cases += [("up", -5, -7, 2, 1), ("gone", 0, 70, 2, 1), ("%d" % 42, 127, 63, 7, 1)]
    for _ in range(30):
        text = "".join(chars[rng.randbelow(95)] for _ in range(1 + rng.randbelow(16)))
        x, y = rng.randbelow(150) - 20, rng.randbelow(80) - 12
        cases.append((text, x, y, 1 + rng.randbelow(4), rng.randbelow(2)))
    for text, x, y, scale, ink in cases:
        for canvas in (d, ref):
            _background(canvas)
            draw.big(canvas, text, x, y, scale, ink)
        assert d.buffer == plain, (text, x, y, scale, ink)
    assert taken == [True] * len(cases)
    for canvas in (d, ref):
        canvas.fill(0)
        draw.big(canvas, "seventeen letters", -40, 0, 2, 1)  # over 16: drawn in Python
    assert taken[-1] is False and d.buffer == plain


def test_native_die_is_draw_dies_pixels():
    """The display's die() (native code, dicepod.drivers.glyphs.die), which draw.die draws
    through on the display, sets and clears the very pixels draw.die's rectangles do: every
    face, every style, the three sizes the screens use, over a patterned background, clipped
    at every edge."""
    if framebuf is None:
        skip("no framebuf: host/framebuf.py is not importable")
    from dicepod.drivers import display
    from dicepod.ui import draw

    if display.die is None:
        skip("no native code on this interpreter (CPython): the MicroPython run checks it")
    d, ref, plain, taken = _spied("die")  # ref: no die(), rectangles
    cases = []
    for size in (20, 12, 11):
        for style in (draw.ROLLED, draw.KEPT, draw.ASIDE, draw.BLANK, draw.DIM):
            for face in range(8):  # 0 and 7: no face, the frame alone
                cases.append((1 + face * 15, 21 + (face & 1) * 9, face, style, size))
    rng = Seeded(7)
    for _ in range(60):
        x, y = rng.randbelow(150) - 21, rng.randbelow(90) - 21
        size = (20, 12, 11)[rng.randbelow(3)]
        cases.append((x, y, 1 + rng.randbelow(6), rng.randbelow(5), size))
    for x, y, face, style, size in cases:
        for canvas in (d, ref):
            _background(canvas)
            draw.die(canvas, x, y, face, style, size)
        assert d.buffer == plain, (x, y, face, style, size)
    assert taken == [True] * len(cases)


def test_fill_clears_and_lights_every_byte():
    # The display's fill() copies its first byte over the rest (memmove), not a pixel at a time
    for kind in CONTROLLERS:
        d, _i2c, oled = _make(kind)
        d.fill_rect(5, 9, 40, 30, 1)
        d.show()
        for c in (1, 0, 1, 0):
            d.fill(c)
            assert d.buffer == bytearray([255 * c] * 1024), (kind, c)
            d.show()
            _check(d, oled, "%s fill(%d)" % (kind, c))


def test_dots_invert_every_other_pixel_as_pixel_calls_do():
    # The dotted line of Free roll's charts (dicepod.ui.free._line): the driver's dots() in
    # the frame's bytes must equal the pixel-by-pixel inversion on any frame, clipped at
    # every edge, and go out over the bus like any drawing.
    if framebuf is None:
        skip("no framebuf: host/framebuf.py is not importable")
    rng = Seeded(11)
    d, i2c, oled = _make("ssd1306")
    wanted = bytearray(1024)
    want = framebuf.FrameBuffer(wanted, 128, 64, framebuf.MONO_VLSB)
    for step in range(60):
        x, y, w, h = rng.randbelow(140) - 6, rng.randbelow(70) - 3, rng.randbelow(50), 9
        d.fill_rect(x, y - 4, w, h, 1)
        want.fill_rect(x, y - 4, w, h, 1)
        x, w = rng.randbelow(150) - 11, rng.randbelow(140)
        d.dots(x, w, y)
        for i in range(x, x + w, 2):
            want.pixel(i, y, 0 if want.pixel(i, y) else 1)
        assert d.buffer == wanted, "step %d: dots(%d, %d, %d)" % (step, x, w, y)
        d.show()
        _check(d, oled, "dots step %d" % step)


def _reference_spans(now, was, page):
    """Every changed column of page, spans at most 16 unchanged columns apart merged (on a
    Pico a span costs its framing and its sending's Python: dicepod.drivers.glyphs._GAP)."""
    found = []
    for col in range(128):
        if now[page * 128 + col] != was[page * 128 + col]:
            if found and col - found[-1][1] <= 16:
                found[-1][1] = col + 1
            else:
                found.append([col, col + 1])
    return [(a, b) for a, b in found]


def test_native_spans_are_the_changed_columns_merged_across_small_gaps():
    """show()'s native span finder (dicepod.drivers.glyphs.spans, on a Pico and the unix
    port): random changes, the 8 spans of a column every 18th, a whole page, none."""
    from dicepod.drivers import display

    if display._spans is None:
        skip("no native code on this interpreter (CPython): the MicroPython run checks it")
    spans = display._spans
    rng = Seeded(5)
    now = bytearray(1024)
    was = bytearray(1024)
    out = bytearray(32)

    def check(a, b):
        for page in range(8):
            n = spans(a, b, page, out)
            got = [(out[2 * k], out[2 * k + 1]) for k in range(n & 15)]
            assert got == _reference_spans(a, b, page), (page, got)
            assert n >> 4 == sum(end - start for start, end in got), (page, n)

    for _ in range(150):
        was[:] = now
        page = rng.randbelow(8)
        for _ in range(rng.randbelow(24)):
            now[page * 128 + rng.randbelow(128)] ^= 1 << rng.randbelow(8)
        check(now, was)
    apart = bytearray(1024)
    for col in range(0, 128, 18):
        apart[3 * 128 + col] = 1
    was[:] = bytes(1024)
    check(apart, was)
    now[:] = b"\xff" * 1024
    check(now, was)
    check(was, was)
    n = spans(apart, was, 3, out)
    assert n & 15 == 8 and n >> 4 == 8 and out[14:16] == bytes((126, 127))
