"""Replay a recorded button stream through the real app on a minimal board: the heap test and
the benchmark use it so that almost nothing but the firmware is in RAM. Portable.

    micropython app_replay.py BUTTONS_FILE JOURNAL_DIR SEED [report [MARK,MARK...] | device]

BUTTONS_FILE holds one byte per tick (the button bitmask of that tick; ticks are 20 ms).
With `report`, app_report.py measures the heap as it replays (its code is loaded only then, so
the heap test measures the app, not the measuring). With `device`, the board is the Pico's
real drivers and USB link on stand-ins (app_device.py), not the minimal one below.
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
    state = 0  # no button held between the codes (the app's idle passes read it)

    def __init__(self):
        self.next = 0

    def update(self, dt_ms):
        return self.next

    def latched(self):
        return 0  # (no pins: the codes come from the journal)


class _Board:
    def __init__(self, root, seed):
        self.display = _Display()
        self.buttons = _Keys()
        self.randbelow = Seeded(seed).randbelow
        self.storage = FileStorage(root)
        self.power = None
        self.usb = None
        self.device_id = "replay"


def ticks(path):
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


def main(argv):
    report = len(argv) > 4 and argv[4] == "report"
    if report:
        import app_report  # before the app: its code is part of the boot heap it reports
    if len(argv) > 4 and argv[4] == "device":
        import app_device

        board = app_device.make(argv[2], int(argv[3]), _Keys())
    else:
        board = _Board(argv[2], int(argv[3]))
    app = App(board)
    app.start()
    if report:
        app_report.run(app, ticks(argv[1]), argv[5] if len(argv) > 5 else "")
    else:
        keys = board.buttons
        for code in ticks(argv[1]):
            keys.next = code
            app.tick(20)
        keys.next = 0
        app.tick(20)
        print("ticks %d events %d" % (app.session.ms // 20 - 1, app.session.journal.seq))
    if hasattr(gc, "mem_free"):
        print("heap free %d" % gc.mem_free())


if __name__ == "__main__":
    main(sys.argv)
