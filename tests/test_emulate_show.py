"""`dicepod emulate --show` (the unix port) and `dicepod emulate --pico --show`: the live display
drawn in the terminal. The view's characters, read back pixel by pixel, equal the frame buffer:
for random frames in both styles (half blocks, braille), and end to end, where the last view a
run drew equals the firmware's own rendering of the same presses under CPython."""

import random
import subprocess
import sys
from pathlib import Path

import pytest

from dicepod_host.commands.emulate import ScreenView
from dicepod_host.fakeboard import oled_decode

sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))

from sim_reference import Reference, frame_ascii  # noqa: E402

BRAILLE_BITS = ((0x01, 0x02, 0x04, 0x40), (0x08, 0x10, 0x20, 0x80))
HALVES = {" ": (0, 0), "\u2580": (1, 0), "\u2584": (0, 1), "\u2588": (1, 1)}


def image_of(rows, style):
    """Read a view's rows (inside the frame) back into a MONO_VLSB image."""
    out = bytearray(1024)

    def light(x, y):
        out[(y >> 3) * 128 + x] |= 1 << (y & 7)

    if style == "blocks":
        assert len(rows) == 32 and all(len(row) == 128 for row in rows)
        for cy, row in enumerate(rows):
            for x, char in enumerate(row):
                top, bottom = HALVES[char]
                if top:
                    light(x, 2 * cy)
                if bottom:
                    light(x, 2 * cy + 1)
    else:
        assert len(rows) == 16 and all(len(row) == 64 for row in rows)
        for cy, row in enumerate(rows):
            for cx, char in enumerate(row):
                bits = ord(char) - 0x2800
                assert 0 <= bits < 256
                for dx in (0, 1):
                    for dy in range(4):
                        if bits & BRAILLE_BITS[dx][dy]:
                            light(2 * cx + dx, 4 * cy + dy)
    return bytes(out)


def last_view(text):
    """The rows of the last view drawn in a terminal output, and its bottom line."""
    lines = text.split("\x1b[H")[-1].replace("\x1b[2J", "").split("\n")
    top = next(i for i, line in enumerate(lines) if line.startswith("\u250c"))
    end = next(i for i, line in enumerate(lines) if line.startswith("\u2514"))
    return [line[1:-1] for line in lines[top + 1 : end]], lines[end]


@pytest.mark.parametrize("style", ["blocks", "braille"])
def test_the_view_shows_every_pixel_of_the_frame(style):
    rng = random.Random(46)
    frames = [bytes(1024), bytes([255]) * 1024, bytes(rng.getrandbits(8) for _ in range(1024))]
    one = bytearray(1024)
    one[127 + 7 * 128] = 0x80  # the bottom-right pixel alone
    frames.append(bytes(one))
    for frame in frames:
        view = ScreenView(None, style, "t")
        lines = view.render(frame)
        assert all(len(line) == len(lines[0]) for line in lines)
        assert image_of([line[1:-1] for line in lines[1:-1]], style) == frame
    rows = oled_decode.half_blocks(bytes(one)) if style == "blocks" else oled_decode.braille(one)
    assert rows[-1][-1] == ("\u2584" if style == "blocks" else chr(0x2800 + 0x80))
    # A display switched off shows nothing, and says so.
    off = ScreenView(None, style, "t").render(bytes([255]) * 1024, on=False)
    assert image_of([line[1:-1] for line in off[1:-1]], style) == bytes(1024)
    assert "display off" in off[-1]


def reference_after(presses):
    ref = Reference(7)
    for name in presses:
        ref.press(name, 200)
    return ref.frame()


@pytest.mark.parametrize(
    "pico, style",
    [(False, "blocks"), pytest.param(True, "braille", marks=pytest.mark.slow)],
)
def test_emulate_show_draws_the_live_display(tmp_path, pico, style):
    if pico:
        from dicepod_host import pico as pico_module

        if pico_module.find_rp2() is None:
            pytest.skip("the rp2 firmware is missing")
    script = tmp_path / "presses.txt"
    script.write_text("DOWN\nDOWN\nWAIT 300\n")
    cmd = [sys.executable, "-m", "dicepod_host.cli", "emulate", "--script", str(script)]
    cmd += ["--linger", "0", "--show", style] + (["--pico"] if pico else [])
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stderr[-2000:]
    rows, bottom = last_view(result.stdout)
    got = image_of(rows, style)
    want = reference_after(["DOWN", "DOWN"])
    assert got == want, "the terminal view is not the firmware's frame\n%s\n\n%s" % (
        frame_ascii(got),
        frame_ascii(want),
    )
    assert "contrast" in bottom
    assert result.stdout.count("port: /dev/") == 1
