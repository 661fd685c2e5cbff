"""host/framebuf.py (CPython) against MicroPython's own framebuf: every drawing primitive, with
clipping, returns the same bytes (tests/test_micropython.py compares the result_* values of
both interpreters). Portable."""

import binascii

import framebuf


def _canvas(width=128, height=64, fmt=None):
    fmt = framebuf.MONO_VLSB if fmt is None else fmt
    size = ((height + 7) // 8) * width if fmt == framebuf.MONO_VLSB else ((width + 7) // 8) * height
    buffer = bytearray(size)
    return buffer, framebuf.FrameBuffer(buffer, width, height, fmt)


def _hex(buffer):
    return binascii.hexlify(bytes(buffer)).decode()


def result_text_every_character():
    buffer, fb = _canvas()
    for code in range(32, 128):
        i = code - 32
        fb.text(chr(code), (i % 16) * 8, (i // 16) * 8, 1)
    return _hex(buffer)


def result_text_clipped_and_non_ascii():
    buffer, fb = _canvas()
    fb.text("Edge", -5, -3, 1)
    fb.text("clip right", 100, 60, 1)
    fb.text("\xe9t\xe9 \x01", 10, 20, 1)
    fb.fill_rect(30, 30, 40, 12, 1)
    fb.text("dark", 32, 32, 0)
    return _hex(buffer)


def result_rects_lines_and_pixels():
    buffer, fb = _canvas()
    fb.rect(0, 0, 128, 64, 1)
    fb.rect(-4, 10, 20, 20, 1)
    fb.rect(120, 50, 20, 20, 1, True)
    fb.fill_rect(10, 10, 0, 5, 1)
    fb.fill_rect(5, 5, 7, 9, 1)
    fb.hline(-10, 40, 200, 1)
    fb.vline(64, -10, 100, 1)
    fb.hline(20, 41, 30, 0)
    for x2, y2 in ((127, 63), (0, 63), (100, 5), (5, 100), (-30, 20), (64, 64), (10, 12)):
        fb.line(64, 32, x2, y2, 1)
    fb.line(3, 3, 3, 3, 1)
    fb.pixel(126, 62, 1)
    fb.pixel(200, 5, 1)
    return [_hex(buffer), fb.pixel(126, 62), fb.pixel(125, 62), fb.pixel(500, 500)]


def result_scroll_both_ways():
    buffer, fb = _canvas(32, 16)
    fb.text("AB", 0, 0, 1)
    fb.text("cd", 8, 8, 1)
    fb.scroll(3, 2)
    first = _hex(buffer)
    fb.scroll(-5, -1)
    second = _hex(buffer)
    fb.scroll(40, 0)
    return [first, second, _hex(buffer)]


def result_blit_formats_key_and_fill():
    buffer, fb = _canvas()
    fb.fill(1)
    fb.fill(0)
    sprite_buffer, sprite = _canvas(10, 10)
    sprite.rect(0, 0, 10, 10, 1)
    sprite.line(0, 0, 9, 9, 1)
    fb.blit(sprite, 5, 5)
    fb.blit(sprite, -3, 58)
    fb.fill_rect(40, 0, 20, 20, 1)
    fb.blit(sprite, 45, 5, 1)  # key 1: only the sprite's dark pixels are drawn
    hl_buffer = bytearray(2 * 8)
    hl = framebuf.FrameBuffer(hl_buffer, 16, 8, framebuf.MONO_HLSB)
    hl.text("h", 0, 0, 1)
    hl.line(0, 7, 15, 0, 1)
    fb.blit(hl, 100, 30)
    hm_buffer = bytearray(2 * 8)
    hm = framebuf.FrameBuffer(hm_buffer, 16, 8, framebuf.MONO_HMSB)
    hm.text("m", 4, 0, 1)
    fb.blit(hm, 80, 50)
    return [_hex(buffer), _hex(hl_buffer), _hex(hm_buffer), _hex(sprite_buffer)]


def test_font_glyph_a():
    buffer, fb = _canvas(8, 8)
    fb.text("A", 0, 0, 1)
    # MicroPython's 8x8 font: 'A' = 00 7c 7e 0b 0b 7e 7c 00 (one byte per column, LSB on top)
    assert bytes(buffer) == bytes((0x00, 0x7C, 0x7E, 0x0B, 0x0B, 0x7E, 0x7C, 0x00))


def test_pixel_outside_is_none():
    _buffer, fb = _canvas(8, 8)
    assert fb.pixel(8, 0) is None
    assert fb.pixel(0, 0) == 0


def result_small_font_every_character_both_inks():
    # dicepod.ui.draw's 6x8 font (dicepod.ui.font6): blit with a key, both inks
    from dicepod.ui import draw

    buffer, fb = _canvas()
    for row in range(5):
        draw.small(
            fb, "".join(chr(32 + row * 21 + i) for i in range(21) if row * 21 + i < 95), 0, row * 8
        )
    fb.fill_rect(0, 44, 128, 10, 1)
    draw.small(fb, "Dark on lit: 0123456789", -3, 45, 0)
    draw.small(fb, "right", draw.RIGHT, 56)
    draw.small(fb, "mid", draw.CENTER, 56)
    return _hex(buffer)
