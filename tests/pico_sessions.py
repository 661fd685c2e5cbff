"""The scripted sessions (tests/portable/app_sessions.py) played by a finger, on CPython and at
the pins of the emulated Pico (tests/test_pico_sessions.py, tools/bench_pico.py).

The finger: every code a session presses becomes a hold of that button's pin, read by the real
buttons driver (dicepod.drivers.buttons) one tick (20 ms) at a time: a press is held 4 ticks
(80 ms) and a long press 31 ticks (620 ms: the driver reports the press at once, repeats UP and
DOWN at 400 and 520 ms, the long press at 600, and the finger lets go before the 640 ms repeat),
then the finger waits 3 ticks (release and the driver's 30 ms lock-out). So the app sees what
a person's presses make, the short press before every long one included.

record() plays sessions on CPython with that finger and returns, per tick, the pins' state (a
bitmask of the buttons held), the display's bytes after the tick, and the journal. play() gives
the same pin states to an emulated Pico running tests/pico_lockstep.py (the real firmware and
board, one App.tick(20) per host tick, CPython's seeded dice) and returns its decoded display
after every tick: the test compares the two, tick by tick, and the journals byte for byte.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PORTABLE = HERE / "portable"
for _path in (str(PORTABLE), str(HERE.parent / "firmware"), str(HERE.parent / "host")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import app_sessions  # noqa: E402
from app_board import Board  # noqa: E402

from dicepod.app import App  # noqa: E402
from dicepod.drivers.buttons import Buttons  # noqa: E402

SEED = 11
TICK_MS = 20
SHORT_TICKS = 4  # a press: the pin low for 80 ms
LONG_TICKS = 31  # a long press: 620 ms (long at 600, the next UP/DOWN repeat at 640)
GAP_TICKS = 3  # released: the driver sees the release, then its 30 ms lock-out ends
GO_PIN = 2  # the host's tick (tests/pico_lockstep.py)
DONE_PIN = 3  # toggled by the Pico after each tick
BUTTON_PINS = (10, 11, 12, 13)  # UP, DOWN, OK, BACK: bit order of the buttons driver
EVERY_MODE = ("free", "tests", "battle", "tyranid", "orks", "extras")
# The suite's every-mode session (and tools/bench_pico.py --quick): one Battle Game, a few
# Tyranid actions, one Orks round; free roll with two auto-rolls of 10; Tests and the settings
# whole.
QUICK = {"games": 1, "rounds": 1, "steps": (20, 10), "runs": (10, 10)}


class _Contact:
    """One button's pin as the buttons driver reads it: 0 while the finger holds it."""

    def __init__(self, board, bit):
        self.board = board
        self.bit = bit

    def value(self):
        return 0 if self.board.mask & self.bit else 1


class FingerBoard(Board):
    """The test board (tests/portable/app_board.py) with the real buttons driver on pins a
    finger holds; app_board.press() hands its codes to finger(). Records every tick."""

    def __init__(self, seed=SEED, storage=None):
        super().__init__(storage=storage, seed=seed)
        self.mask = 0
        self.buttons = Buttons([_Contact(self, 1 << i) for i in range(4)])
        self.pins = bytearray()  # the buttons held during each tick
        self.frames = []  # the display's bytes after each tick
        self.sizes = []  # the journal's length after each tick
        self.settings = []  # the settings file after each tick (None: none written)
        self.screens = []  # the top screen's class after each tick

    def tick(self, app):
        self.pins.append(self.mask)
        app.tick(TICK_MS)
        self.frames.append(bytes(self.display.buffer))
        self.sizes.append(self.storage.journal_size())
        self.settings.append(self.storage.settings)
        self.screens.append(type(app.stack[-1]).__name__)

    def wait(self, app, ticks):
        """Ticks with no button held (app_board.wait)."""
        self.mask = 0
        for _ in range(ticks):
            self.tick(app)

    def finger(self, app, codes):
        for code in codes:
            if code >> 4:
                self.mask, hold = code >> 4, LONG_TICKS
            else:
                self.mask, hold = code, SHORT_TICKS
            for _ in range(hold):
                self.tick(app)
            self.mask = 0
            for _ in range(GAP_TICKS):
                self.tick(app)


class Recording:
    """A finger session on CPython: pins[i] = the buttons held in tick i; frames[i + 1],
    sizes[i + 1], settings_at[i + 1] and screens[i + 1] = the display's bytes, the journal's
    length, the settings file and the top screen's class after it (index 0: after
    App.start()); marks[name] = (first tick, end tick) of each session; the final journal
    and settings file."""

    def __init__(self, board, app, marks):
        self.pins = bytes(board.pins)
        self.frames = [board.boot_frame] + board.frames
        self.sizes = [0] + board.sizes
        self.settings_at = [None] + board.settings
        self.screens = [board.boot_screen] + board.screens
        self.marks = marks
        self.journal = board.storage.journal()
        self.settings = board.storage.load_settings()
        self.app = app


def record(sessions=EVERY_MODE, seed=SEED, resident=False, **options):
    """Play the named sessions (app_sessions.<name>_session) in turn on one CPython app with
    the finger; options go to the session functions that take them (games=, rounds=).
    resident: the app keeps every module, as on dicepod's MicroPython (dicepod.ram.RESIDENT),
    so that it opens a mode in the same pass as that Pico does."""
    import inspect

    from dicepod import ram

    was = ram.RESIDENT
    ram.RESIDENT = resident
    try:
        board = FingerBoard(seed=seed)
        app = App(board)
        app.start()
        board.boot_frame = bytes(board.display.buffer)
        board.boot_screen = type(app.stack[-1]).__name__
        marks = {}
        for name in sessions:
            fn = getattr(app_sessions, name + "_session")
            params = inspect.signature(fn).parameters
            kw = {k: v for k, v in options.items() if k in params}
            first = len(board.pins)
            fn(app, **kw)
            marks[name] = (first, len(board.pins))
    finally:
        ram.RESIDENT = was
        ram.release()
    return Recording(board, app, marks)


def lockstep_files(seed=SEED, heap=None, measure=False):
    """The files that make a deployed Pico run the lockstep loop (on top of the firmware);
    heap: the bytes of heap left to the app (a ballast takes the rest); measure: the heap
    before the app's first import and after its first pass (heap_at_boot())."""
    files = {
        "main.py": (HERE / "pico_lockstep.py").read_bytes(),
        "seeded.py": (PORTABLE / "seeded.py").read_bytes(),
        "seed.txt": b"%d\n" % seed,
    }
    if heap:
        files["heap.txt"] = b"%d\n" % heap
    if measure:
        files["measure.txt"] = b""
    return files


def seeded_main_files(seed=SEED):
    """The deployed firmware's own main loop (dicepod.app.run on board.make(), the real clock)
    with CPython's seeded dice, so a scripted session's presses meet the same game."""
    main = (
        b"from seeded import Seeded\n"
        b"from dicepod import app, board\n"
        b"parts = board.make()\n"
        b"parts.randbelow = Seeded(%d).randbelow\n"
        b"app.run(parts)\n" % seed
    )
    return {"main.py": main, "seeded.py": (PORTABLE / "seeded.py").read_bytes()}


def heap_at_boot(pico):
    """(free heap, free before the app's first import) on a measuring lockstep Pico after
    Player.boot(); the host's count of the free heap (Pico.heap) must equal the Pico's own
    gc.mem_free() after its first pass (SCRATCH0): the check that it reads the right table."""
    own, _, start = pico.call("peek", addr=0x4005800C, count=3)["words"]
    free, _low = pico.heap()
    if free != own:
        raise AssertionError(
            "the host counts %d bytes of heap free, gc.mem_free() %d" % (free, own)
        )
    return free, start


# Interned names (qstrs) live in pools that double: the firmware's RAM pools hold 20 + 40 + ...
# + 640 = 1,260 names, the seventh 1,280 more (one 7.7 KB block), and the 2,541st name
# allocates a pool of 2,560 entries, one 15.4 KB block found wherever the heap then has one
# (docs/ARCHITECTURE.md, "RAM").
NAMES_IN_SIX_POOLS = 1260
NAMES_IN_SEVEN_POOLS = 2540


def interned(pico):
    """(pools, names, text bytes, total bytes) of the names interned in RAM, from
    micropython.qstr_info() at the REPL (a lockstep Pico's app, or none: the app stops, so
    read the journal first)."""
    import re

    out = pico.exec_raw("import micropython\nmicropython.qstr_info()", ask_app=False)
    found = re.search(
        r"n_pool=(\d+), n_qstr=(\d+), n_str_data_bytes=(\d+), n_total_bytes=(\d+)", out
    )
    if found is None:
        raise AssertionError("no qstr_info() line in %r" % out)
    return tuple(int(g) for g in found.groups())


class Player:
    """Drives an emulated Pico running tests/pico_lockstep.py one tick at a time."""

    def __init__(self, pico):
        self.pico = pico
        self.level = 0
        self.held = 0
        self.ticks = 0
        pico.drive(GO_PIN, 0)

    def boot(self, max_ms=20_000):
        """Run to the end of App.start() (the first frame is on the display); after a power
        cut, power_on() first."""
        self.level = 0
        self.held = 0
        if self.pico.run_until_edge(DONE_PIN, max_ms) != "edge":
            raise RuntimeError("the Pico did not start the app" + self._output())

    def tick(self, mask, max_ms=20_000):
        """Hold the buttons in mask (release the others), then one App.tick(20)."""
        return self.play([mask], max_ms)

    def play(self, masks, max_ms=20_000):
        """tick() for each mask in turn, in one command to the emulator (Pico.run_ticks: the
        same pins driven, the same handshake, without a round trip per tick). Return "edge"
        when every tick was done, "power_cut" when a cut armed with power_cut() struck."""
        reply = self.pico.run_ticks(
            masks, GO_PIN, DONE_PIN, BUTTON_PINS, self.held, self.level, max_ms
        )
        self.held = reply["held"]
        self.level = reply["level"]
        self.ticks += reply["ticks"]
        stopped = reply["stopped"]
        if stopped == "power_cut":
            return stopped
        if stopped != "ticks":
            raise RuntimeError("tick %d did not finish in %d ms" % (self.ticks, max_ms))
        return "edge"

    def _output(self):
        return self.pico.boot_output()


def journal_of(pico):
    """The journal on the emulated Pico's flash (read from the image file): its segment files
    concatenated in order (what LineStorage.journal() gives on CPython), and the settings."""
    from dicepod_host.pico import read_littlefs

    files = read_littlefs(Path(pico.flash_path).read_bytes())
    return journal_in(files), files.get("settings.json")


def journal_in(files):
    """The journal in a flash's {path: bytes}: the segments journal/<first seq>, in order."""
    names = sorted(int(k[8:]) for k in files if k.startswith("journal/") and k[8:].isdigit())
    return b"".join(files["journal/%d" % n] for n in names)
