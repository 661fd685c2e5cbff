"""Benchmark: boot time against the journal's history (issue 12: the goal is the same time,
at most 1 s, with an empty journal, 10,000 events and a full flash).

    .venv/bin/python tools/bench_journal.py [--pico] [--unix]

--unix (default): recovery alone on MicroPython's real LittleFS (unix port, 4 KB blocks in RAM;
tests/lfs_journal.py boot).
--pico: the whole boot on the emulated Pico (the real rp2 firmware in rp2040js with dicepod
deployed): power-up to the first frame on the display, with the journal's segment files
written on its flash before it boots (made by the firmware's own journal code on CPython):
empty; 10,000 events and a full flash, each with a game of 100 events in progress; and a
full flash with a game of 300 in progress (the fold of the game in progress is the part of
the boot that grows: with its length, not with the history), and that again with the game's
checkpoint on the flash (dicepod.resume: what a quiet while after a boot writes on either
build, which then folds only the events after it); and 10,000 events with an Auto-roll of 1,000
played on by the app (on CPython) and the power cut as it ends, before any quiet while: what
the app saved on the way bounds the fold.
pico_boot_ms(events) is what tools/bench_pico.py calls for its boot figures.
"""

import contextlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT / "firmware", ROOT / "host", ROOT / "tests"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

# The Pico's file system is 1,408 KiB: segments are deleted below 24 KB free, so a "full"
# flash holds about this much journal (LittleFS's own blocks and the firmware take the rest).
FULL_BYTES = 950_000
# The boots measured: (name, events, journal bytes, events of the game in progress). The
# game in progress is folded at boot (its every event read and played through its rules), so
# its length is the same in the history's cases; the last line shows a longer one.
BOOTS = (
    ("empty", 0, None, 0, False),
    ("10000 events", 10_000, None, 100, False),
    ("full flash", None, FULL_BYTES, 100, False),
    ("full flash, game of 300", None, FULL_BYTES, 300, False),
    ("full flash, game of 300 saved", None, FULL_BYTES, 300, True),
    ("10000 events, auto-roll 1000 cut", 10_000, None, 100, "run"),
)


@contextlib.contextmanager
def _app_on(storage):
    """The firmware's app started on storage on CPython, every mode's code resident (as on
    dicepod's build), with the test board's fingers (tests/portable/app_board.py)."""
    sys.path.insert(0, str(ROOT / "tests" / "portable"))
    from app_board import Board

    from dicepod import ram
    from dicepod.app import App

    was = ram.RESIDENT
    ram.RESIDENT = True
    try:
        app = App(Board(storage=storage))
        app.start()
        yield app
    finally:
        ram.RESIDENT = was


def _saved(storage):
    """The game in progress's checkpoint (dicepod.resume's side file) as a quiet while after
    a boot writes it, made by the firmware's code on CPython."""
    from dicepod import resume

    with _app_on(storage) as app:
        if not resume.write(app.session):
            raise SystemExit("bench_journal: no checkpoint was written")
    return storage.side(resume.NAME)


def _auto_rolled(storage):
    """The game in progress (Free roll) goes on with an Auto-roll of 1,000, played by the
    firmware's app on CPython with no quiet while at its end (the power cut comes as it
    finishes): what a power-on then folds is what the app saved on the way (App.tick).
    Return the events it played."""
    with _app_on(storage) as app:
        import app_sessions
        from app_board import OK, menu, press, wait

        seq = app.session.journal.seq
        menu(app, "free")
        press(app, OK)
        app_sessions._auto_roll(app, 1000)
        while app.stack[-1].left:
            wait(app)
        return app.session.journal.seq - seq  # the events it played


def journal_files(events=None, full_bytes=None, per_game=300, current=100, saved=False):
    """Return ({"journal/<first seq>": bytes, "journal/ack": ...}, events) for a journal of
    events (or of about full_bytes), written by dicepod.journal on CPython: games of free
    rolls of per_game events, the last one (in progress) of current events (saved: and its
    checkpoint, "journal/game"; "run": and an Auto-roll 1000 played on, _auto_rolled)."""
    from dicepod import journal
    from dicepod.drivers.memstorage import MemoryStorage

    if events == 0:
        return {}, 0
    storage = MemoryStorage()
    log = journal.Journal(storage, lambda: "0123456789abcdef")
    log.recover()
    n = 0
    last = None  # the seq the game in progress starts at
    while last is None or n < last + current:
        if last is None and (
            (events is not None and n >= events - current)
            or (full_bytes is not None and storage.used() >= full_bytes - current * 46)
        ):
            last = n
        start = n == last or (last is None and n % per_game == 0)
        log.append(n * 10, ("new_game", ("free",)) if start else ("roll", (n % 6 + 1, 3)))
        n += 1
    if saved == "run":
        n += _auto_rolled(storage)
    files = {"journal/%d" % seg: storage.segment(seg) for seg in storage.segments()}
    for side in ("ack", "game"):  # (ack names the last segment, as the device has it)
        if storage.side(side) is not None:
            files["journal/" + side] = storage.side(side)
    if saved is True:
        files["journal/game"] = _saved(storage)
    return files, n


def pico_boot_ms(events=None, full_bytes=None, current=100, firmware="stock", saved=False, **kw):
    """Boot the emulated Pico with that journal (the game in progress of current events,
    saved: with its checkpoint; kw: Pico's, as timing=); return (emulated ms to the first
    frame, events, segment files)."""
    from dicepod_host.pico import Pico

    files, n = journal_files(events, full_bytes, current=current, saved=saved)
    with Pico(files=files, firmware=firmware, **kw) as pico:
        ms = pico.run_until_frame(max_ms=20_000)
    return ms, n, len([k for k in files if k[8:].isdigit()])


def unix_boot():
    """Recovery times on the unix port's real LittleFS (tests/lfs_journal.py boot)."""
    from harness import run_micropython

    out = run_micropython(
        [str(ROOT / "tests" / "lfs_journal.py"), "boot"], heap="4m", extra_path=[ROOT / "tests"]
    )
    line = [x for x in out.stdout.splitlines() if x.startswith("RESULT ")]
    if out.returncode or not line:
        raise SystemExit(out.stdout[-2000:] + out.stderr[-2000:])
    return json.loads(line[-1][len("RESULT ") :])


def main(argv):
    if "--pico" in argv:
        for name, events, full, current, saved in BOOTS:
            try:
                ms, n, segs = pico_boot_ms(events, full, current, saved=saved)
            except Exception as err:  # no UF2 here, or the emulator failed: say so, go on
                print("pico boot, %-24s: not measured (%s)" % (name, err))
                continue
            print("pico boot, %-24s: %6.0f ms to the first frame (%d events, %d segments)"
                  % (name, ms, n, segs))  # fmt: skip
    if "--unix" in argv or "--pico" not in argv:
        result = unix_boot()
        for name in ("empty", "10000_events", "full"):
            print(
                "unix LittleFS recover, %-12s: %8.3f ms (%d events)"
                % (name, result[name]["boot_ms"], result[name]["events"])
            )
    return 0


if __name__ == "__main__":
    from bench import recorded

    sys.exit(recorded("bench_journal", main, sys.argv[1:]))
