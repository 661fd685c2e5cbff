# Build the board, run the app. A board_options module on the import path names options for
# board.make() (a Pico has none; the PC's fake machine has host/dicepod_host/fakeboard/
# board_options.py: its flash directory and the virtual clock that ends a run after
# DICEPOD_FAKE_TICKS loop passes, default 300, 0 = forever).
from dicepod import app, board

try:
    options = __import__("board_options").OPTIONS
except ImportError:
    options = {}

app.run(board.make(**options))
