"""Scenes for the display driver tests and tools/bench_display.py: six dice drawn as pip faces
in a band of three pages, and a status line, as a roll screen shows them. Portable (MicroPython
and CPython); draws on any framebuf.FrameBuffer-like canvas."""

# Pip positions (dx, dy in thirds of the face) for faces 1..6.
_PIPS = (
    (),
    ((1, 1),),
    ((0, 0), (2, 2)),
    ((0, 0), (1, 1), (2, 2)),
    ((0, 0), (2, 0), (0, 2), (2, 2)),
    ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    ((0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)),
)
DIE = 19  # face size in pixels
GAP = 2
TOP = 18  # rows 18..36: pages 2..4
LEFT = 2


def draw_die(canvas, x, y, face, kept=False):
    """Draw one die face at (x, y): a rounded square with pips (inverted when kept)."""
    fg = 0 if kept else 1
    canvas.fill_rect(x, y, DIE, DIE, 0)
    if kept:
        canvas.fill_rect(x + 1, y + 1, DIE - 2, DIE - 2, 1)
    else:
        canvas.rect(x + 1, y, DIE - 2, DIE, 1)
        canvas.rect(x, y + 1, DIE, DIE - 2, 1)
    for dx, dy in _PIPS[face]:
        px = x + 4 + dx * 5
        py = y + 4 + dy * 5
        canvas.fill_rect(px, py, 3, 3, fg)


def draw_dice(canvas, faces, kept=0):
    """Draw up to six faces in a row; bit i of kept marks die i as kept."""
    for i in range(len(faces)):
        draw_die(canvas, LEFT + i * (DIE + GAP), TOP, faces[i], bool(kept >> i & 1))


def draw_roll_screen(canvas, faces, score, roll_number):
    """A whole roll screen: title, dice, score line."""
    canvas.fill(0)
    canvas.text("Battle Game", 0, 0, 1)
    canvas.hline(0, 10, 128, 1)
    draw_dice(canvas, faces)
    canvas.text("Roll %d" % roll_number, 0, 44, 1)
    canvas.text("Score %4d" % score, 0, 56, 1)


def redraw_after_roll(canvas, faces, score, roll_number):
    """What a screen redraws after a roll: the dice band and the two text lines."""
    draw_dice(canvas, faces)
    canvas.fill_rect(0, 44, 128, 20, 0)
    canvas.text("Roll %d" % roll_number, 0, 44, 1)
    canvas.text("Score %4d" % score, 0, 56, 1)
