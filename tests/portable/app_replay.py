"""Replay a recorded button stream through the real app on a minimal board: the heap test and
the benchmark use it so that almost nothing but the firmware is in RAM. Portable.

    micropython app_replay.py BUTTONS_FILE JOURNAL_DIR SEED [report [MARK,MARK...]]

BUTTONS_FILE holds one byte per tick (the button bitmask of that tick; ticks are 20 ms).
With `report`, prints the live heap after boot, at each MARK (a tick index) and after the
session, and the bytes allocated per button event (gc.mem_alloc deltas, collected before each:
mean, median and most).
"""

import array
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


# Per-press allocation histogram: buckets of this many bytes (the last one holds the rest).
_BUCKET = 32
_BUCKETS = 256


def _ticks(path):
    """Yield the button byte of each tick, read from the file 64 at a time (the stream of a
    long session would otherwise sit in the heap next to the app being measured)."""
    chunk = bytearray(64)
    with open(path, "rb") as f:
        while True:
            n = f.readinto(chunk)
            if not n:
                return
            for i in range(n):
                yield chunk[i]


def replay(buttons, root, seed, report=False, marks=()):
    """Run the app over the button stream (bytes, or any iterable of ints); return (app, boot
    heap, heaps at marks, end heap, (presses, total, most, histogram) of the bytes each button
    press allocated)."""
    board = _Board(root, seed)
    app = App(board)
    app.start()
    gc.collect()
    boot = gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0
    keys = board.buttons
    histogram = None  # allocated once, before measuring, and only when reporting
    if report:
        histogram = array.array("I", bytes(4 * _BUCKETS))
    presses = total = most = 0
    at_marks = []
    tick = 0
    for code in buttons:
        keys.next = code
        if report and code:
            gc.collect()
            before = gc.mem_alloc()
            app.tick(20)
            used = gc.mem_alloc() - before
            presses += 1
            total += used
            if used > most:
                most = used
            histogram[max(0, min(used // _BUCKET, _BUCKETS - 1))] += 1
        else:
            app.tick(20)
        tick += 1
        if tick in marks:
            gc.collect()
            at_marks.append(gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0)
    keys.next = 0
    app.tick(20)
    gc.collect()
    end = gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0
    return app, boot, at_marks, end, (presses, total, most, histogram)


def main(argv):
    buttons = _ticks(argv[1])
    report = len(argv) > 4 and argv[4] == "report"
    marks = ()
    if len(argv) > 5 and argv[5]:
        marks = tuple(int(m) for m in argv[5].split(","))
    app, boot, at_marks, end, allocations = replay(buttons, argv[2], int(argv[3]), report, marks)
    print("ticks %d events %d" % (app.ms // 20 - 1, app.journal.seq))
    if report:
        print("heap after boot %d" % boot)
        for i in range(len(at_marks)):
            print("heap at mark %d %d" % (i + 1, at_marks[i]))
        print("heap after session %d" % end)
        presses, total, most, histogram = allocations
        if presses:
            seen = 0
            median = 0
            for bucket in range(_BUCKETS):
                seen += histogram[bucket]
                if seen * 2 >= presses:
                    median = bucket * _BUCKET
                    break
            print(
                "allocated per button event: mean %d median %d-%d most %d over %d presses"
                % (total // presses, median, median + _BUCKET - 1, most, presses)
            )
    if hasattr(gc, "mem_free"):
        print("heap free %d" % gc.mem_free())


if __name__ == "__main__":
    main(sys.argv)
