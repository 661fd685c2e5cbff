"""Replay a recorded button stream through the real app on a minimal board: the heap test and
the benchmark use it so that almost nothing but the firmware is in RAM. Portable.

    micropython app_replay.py BUTTONS_FILE JOURNAL_DIR SEED [report]

BUTTONS_FILE holds one byte per tick (the button bitmask of that tick; ticks are 20 ms).
With `report`, prints the live heap after boot and after the session, and the bytes allocated
per button event (gc.mem_alloc deltas, collected before each).
"""

import gc
import sys

import framebuf
from seeded import Seeded

from dicepod.app import App
from dicepod.drivers.storage import FileStorage


class _Display(framebuf.FrameBuffer):
    def __init__(self):
        self.buffer = bytearray(1024)
        super().__init__(self.buffer, 128, 64, framebuf.MONO_VLSB)

    def show(self):
        pass


class _Keys:
    def __init__(self):
        self.next = 0

    def update(self, dt_ms):
        return self.next


class _Board:
    def __init__(self, root, seed):
        self.display = _Display()
        self.buttons = _Keys()
        self.randbelow = Seeded(seed).randbelow
        self.storage = FileStorage(root)
        self.power = None
        self.usb = None
        self.device_id = "replay"


def replay(buttons, root, seed, report=False):
    """Run the app over the button stream; return (app, stats)."""
    board = _Board(root, seed)
    app = App(board)
    app.start()
    gc.collect()
    boot = gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0
    keys = board.buttons
    presses = 0
    allocated = 0
    most = 0
    for code in buttons:
        keys.next = code
        if report and code:
            gc.collect()
            before = gc.mem_alloc()
            app.tick(20)
            used = gc.mem_alloc() - before
            allocated += used
            if used > most:
                most = used
            presses += 1
        else:
            app.tick(20)
    keys.next = 0
    app.tick(20)
    gc.collect()
    after = gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0
    return app, (boot, after, presses, allocated, most)


def main(argv):
    with open(argv[1], "rb") as f:
        buttons = f.read()
    report = len(argv) > 4 and argv[4] == "report"
    app, stats = replay(buttons, argv[2], int(argv[3]), report)
    boot, after, presses, allocated, most = stats
    print("ticks %d events %d" % (len(buttons), app.journal.seq))
    if report:
        print("heap after boot %d" % boot)
        print("heap after session %d" % after)
        print("button events %d" % presses)
        print("allocated per button event %d (most %d)" % (allocated // max(presses, 1), most))
    if hasattr(gc, "mem_free"):
        print("heap free %d" % gc.mem_free())


if __name__ == "__main__":
    main(sys.argv)
