# Build the board, run the app. A board_options module on the import path names options for
# board.make() (a Pico has none; the PC's fake machine has host/dicepod_host/fakeboard/
# board_options.py: its flash directory and the virtual clock that ends a run after
# DICEPOD_FAKE_TICKS loop passes, default 300, 0 = forever).
#
# From main.py's first line and while the app runs, Ctrl-C is off (micropython.kbd_intr(-1)):
# no byte on the USB line (0x03, the raw REPL's 0x01..0x04, garbage) stops the game or reaches
# the REPL. `dicepod deploy` asks the app to hand over with the protocol's `repl` command; the
# app stops once the journal is written, and the REPL has the line again. Safe boot: BACK held
# at power-up starts the REPL without the app. board.py is needed only to build the board: it
# is dropped then.

import micropython

micropython.kbd_intr(-1)  # first: a Ctrl-C that arrives while the app's code loads stops nothing

from dicepod import app, board, ram  # noqa: E402

try:
    options = __import__("board_options").OPTIONS
except ImportError:
    options = {}

if board.back_held():
    micropython.kbd_intr(3)
    print("dicepod: BACK held at power-up: safe boot, the REPL without the app")
else:
    try:
        parts = board.make(**options)
        board = None
        ram.forget("dicepod.board")
        app.run(parts)
    finally:
        micropython.kbd_intr(3)
