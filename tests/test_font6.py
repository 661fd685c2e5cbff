"""The 6x8 font's table in the firmware (dicepod.ui.font6._SMALL) is what tools/font6.py makes
from the 8x8 font (and its hand-drawn digits), and draw.small draws it: each glyph's columns
land where they should, in both inks."""

import sys
from pathlib import Path

import framebuf

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import font6  # noqa: E402

from dicepod.ui import draw  # noqa: E402
from dicepod.ui import font6 as firmware_font  # noqa: E402


def test_the_table_is_the_tools_output():
    assert firmware_font._SMALL == font6.table()
    assert len(firmware_font._SMALL) == 95 * 5
    source = (ROOT / "firmware" / "dicepod" / "ui" / "font6.py").read_text()
    assert font6.source() in source


def test_small_draws_each_glyph_in_both_inks():
    buf = bytearray(1024)
    canvas = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
    text = "Aa1!~ z0"
    draw.small(canvas, text, 3, 8)
    for i, ch in enumerate(text):
        columns = font6.glyph(ord(ch))
        for col in range(6):
            want = columns[col] if col < 5 else 0
            assert buf[128 + 3 + i * 6 + col] == want, (ch, col)
    canvas.fill_rect(0, 24, 128, 8, 1)  # a lit band: dark letters
    draw.small(canvas, "Ok", 10, 24, 0)
    for i, ch in enumerate("Ok"):
        for col, bits in enumerate(font6.glyph(ord(ch))):
            assert buf[3 * 128 + 10 + i * 6 + col] == 0xFF & ~bits
    assert buf[3 * 128 + 10 + 5] == 0xFF  # the gap column stays lit
    canvas.fill(0)
    draw.small(canvas, "ab", draw.RIGHT, 0)  # flush right: the last gap column off the edge
    assert bytes(buf[117:128]) == bytes(font6.glyph(97) + [0] + font6.glyph(98))
    canvas.fill(0)
    draw.small(canvas, "abc", draw.CENTER, 0)  # 17 pixels of ink, 55 on either side
    assert buf[55] == font6.glyph(97)[0] and buf[72:128] == bytearray(56)
