# The emulated Pico's main.py for the session tests (tests/pico_sessions.py): the real firmware
# on the real board (board.make(): display, buttons on their pins, LittleFS journal, power,
# USB link), with two things from the test: the dice come from the same seeded generator as
# CPython's test board (tests/portable/seeded.py), and the loop's clock is the host's. Each
# loop pass waits for an edge on GP2 (the host's "tick"), then runs App.tick(20) exactly as
# CPython's scripted session ticks; GP3 toggles when a pass is done. So the journal's MS field
# and the buttons driver's hold times are CPython's, tick for tick, and (with the journal's
# identity made as the test board makes it, not from os.urandom) the journal and the pixels
# can be compared byte for byte. Never deployed by `dicepod deploy`.
# A file heap.txt holding N leaves the app N bytes of heap: a ballast takes the rest first (the
# heap tests and tools/bench_pico.py); measure.txt makes it write gc.mem_free() before the
# app's first import and after its first pass into the watchdog's SCRATCH2 and SCRATCH0
# registers, which the host reads without disturbing the run (it counts the heap itself after
# every later pass: Pico.heap).
import gc

import machine

try:
    with open("heap.txt") as f:
        leave = int(f.read())
except OSError:
    leave = None
ballast = None
if leave:
    gc.collect()
    ballast = bytearray(max(0, gc.mem_free() - leave - 16))  # 16: the bytearray's own block
try:
    open("measure.txt").close()
    measure = True
except OSError:
    measure = False
_SCRATCH0 = 0x4005800C
if measure:
    gc.collect()
    machine.mem32[_SCRATCH0 + 8] = gc.mem_free()  # before the app's first import

# as firmware/main.py: a small heap's imports collected every 4 KB
if gc.mem_free() < 131072:
    gc.threshold(4096)

from seeded import Seeded  # noqa: E402

# resume: the checkpoint's code, imported as a power-on with a game saved on the flash does (on
# every build; where the code loads into the heap its names and heap are then in the figures)
from dicepod import app, board, ram, resume  # noqa: E402, F401

_PERIOD_MS = 20
parts = board.make()
board = None  # dropped from RAM once the board is built, as firmware/main.py does
ram.forget("dicepod.board")
parts.randbelow = Seeded(int(open("seed.txt").read())).randbelow
parts.new_id = None  # the journal's identity made from what is stored, as CPython's test board
go = machine.Pin(2, machine.Pin.IN)
done = machine.Pin(3, machine.Pin.OUT, value=0)
go.irq(handler=lambda pin: None, trigger=machine.Pin.IRQ_RISING | machine.Pin.IRQ_FALLING)
the_app = app.App(parts)
the_app.start()
level = go.value()
while True:
    if measure:  # once: the host checks its own count of the heap against it
        machine.mem32[_SCRATCH0] = gc.mem_free()
        measure = False
    done.toggle()
    while go.value() == level:
        machine.idle()  # the GP2 interrupt wakes it
    level = go.value()
    the_app.tick(_PERIOD_MS)
