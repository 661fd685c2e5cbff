"""Benchmark: boot time against the journal's history (issue 12: the goal is the same time,
at most 1 s, with an empty journal, 10,000 events and a full flash).

    .venv/bin/python tools/bench_journal.py [--pico] [--unix]

--unix (default): recovery alone on MicroPython's real LittleFS (unix port, 4 KB blocks in RAM;
tests/lfs_journal.py boot).
--pico: the whole boot on the emulated Pico (the real rp2 firmware in rp2040js with dicepod
deployed): power-up to the first frame on the display, with the journal's segment files
written on its flash before it boots (made by the firmware's own journal code on CPython).
pico_boot_ms(events) is what tools/bench_pico.py calls for its boot figures.
"""

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


def journal_files(events=None, full_bytes=None, per_game=300):
    """Return {"journal/<first seq>": bytes} for a journal of events (or of about full_bytes),
    written by dicepod.journal on CPython (games of free rolls, the last one in progress)."""
    from dicepod import journal
    from dicepod.drivers.memstorage import MemoryStorage

    storage = MemoryStorage()
    log = journal.Journal(storage, lambda: "0123456789abcdef")
    log.recover()
    n = 0
    while (events is not None and n < events) or (
        full_bytes is not None and storage.used() < full_bytes
    ):
        event = ("new_game", ("free",)) if n % per_game == 0 else ("roll", (n % 6 + 1, 3))
        log.append(n * 10, event)
        n += 1
    files = {"journal/%d" % seg: storage.segment(seg) for seg in storage.segments()}
    return files, n


def pico_boot_ms(events=None, full_bytes=None):
    """Boot the emulated Pico with that journal; return (emulated ms to the first frame,
    events, segment files)."""
    from dicepod_host.pico import Pico

    files, n = journal_files(events, full_bytes)
    with Pico(files=files) as pico:
        ms = pico.run_until_frame(max_ms=20_000)
    return ms, n, len(files)


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
        for name, events, full in (
            ("empty", 0, None),
            ("10000 events", 10_000, None),
            ("full flash", None, FULL_BYTES),
        ):
            try:
                ms, n, segs = pico_boot_ms(events, full)
            except Exception as err:  # no UF2 here, or the emulator failed: say so, go on
                print("pico boot, %-13s: not measured (%s)" % (name, err))
                continue
            print("pico boot, %-13s: %7.0f ms to the first frame (%d events, %d segments)"
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
    sys.exit(main(sys.argv[1:]))
