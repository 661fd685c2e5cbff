# Build the board, run the app. On a PC under the fake machine (host/dicepod_host/fakeboard)
# the run stops after DICEPOD_FAKE_TICKS loop passes (default 300, 0 = forever).
from dicepod import app, board

app.run(board.make())
