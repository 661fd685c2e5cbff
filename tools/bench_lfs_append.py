"""What one journal append costs the flash: LittleFS v2 (littlefs-python, the rp2 port's geometry:
4 KiB blocks, 256-byte programs) appending journal lines to a segment and syncing after each,
as dicepod.drivers.storage.FileStorage.append does (open, write, flush, close), and with the
file kept open (write, sync). Counts each append's block erases and page programs, and what
they take on the Pico's W25Q16JV at its data sheet's typical times (45 ms an erase, 0.4 ms a
program: host/dicepod_host/pico/pico.mjs W25Q16JV_NS).

LittleFS copies a file's last, partly written block to a freshly erased one whenever the file
grows after a sync (its copy-on-write keeps the old block whole until the new one is
committed), so an append that must survive a power cut costs an erase: issue 44's "no erase on
the path of a press" is a question for the journal's storage, not for the app's loop.

    .venv/bin/python tools/bench_lfs_append.py [LINES]
"""

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "firmware"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))

ERASE_MS = 45.0  # W25Q16JV tSE, typical
PROGRAM_MS = 0.4  # W25Q16JV tPP, typical


def _fs():
    import littlefs
    from littlefs.context import UserContext

    from dicepod_host import pico

    class Counting(UserContext):
        erases = 0
        programs = 0

        def erase(self, cfg, block):
            Counting.erases += 1
            return super().erase(cfg, block)

        def prog(self, cfg, block, off, data):
            Counting.programs += 1
            return super().prog(cfg, block, off, data)

    context = Counting(buffer=bytearray(pico.FS_BLOCK * pico.FS_BLOCKS))
    fs = littlefs.LittleFS(
        context=context, block_size=pico.FS_BLOCK, block_count=pico.FS_BLOCKS,
        prog_size=pico.FS_PROG, read_size=32, cache_size=pico.FS_PROG, lookahead_size=32,
    )  # fmt: skip
    return fs, Counting


def _lines(count):
    from dicepod import journal
    from dicepod.drivers.memstorage import MemoryStorage

    log = journal.Journal(MemoryStorage(), lambda: "00000000000000aa")
    log.recover()
    out = []
    for n in range(count):
        event = ("new_game", ("free",)) if n == 0 else ("roll", (n % 6 + 1, (n * 5) % 6 + 1))
        out.append(log.append(n * 700, event))
    return out


def measure(count, kept_open):
    """[(erases, programs)] of each append of count journal lines to one segment."""
    from littlefs import lfs

    fs, counts = _fs()
    fs.mkdir("journal")
    with fs.open("journal/1", "wb") as f:  # the segment's header, written whole
        f.write(b"@ 00000000000000aa 1 0 00000000 0 0 0 0 12345678\n")
    per = []
    handle = lfs.file_open(fs.fs, "journal/1", "a") if kept_open else None
    for line in _lines(count):
        erases, programs = counts.erases, counts.programs
        if kept_open:
            lfs.file_write(fs.fs, handle, line)
            lfs.file_sync(fs.fs, handle)
        else:
            with fs.open("journal/1", "ab") as f:
                f.write(line)
        per.append((counts.erases - erases, counts.programs - programs))
    if kept_open:
        lfs.file_close(fs.fs, handle)
    return per


def table(count):
    rows = [
        "| append | appends | erases per append (mean) | appends with an erase | page programs "
        "per append (mean / max) | flash ms per append, typical (mean / max) |",
        "|---|---|---|---|---|---|",
    ]
    for name, kept_open in (("open, write, close (FileStorage)", False), ("kept open, sync", True)):
        per = measure(count, kept_open)
        ms = [e * ERASE_MS + p * PROGRAM_MS for e, p in per]
        rows.append(
            "| %s | %d | %.2f | %d | %.1f / %d | %.1f / %.1f |"
            % (
                name, len(per), statistics.mean(e for e, _p in per),
                sum(1 for e, _p in per if e), statistics.mean(p for _e, p in per),
                max(p for _e, p in per), statistics.mean(ms), max(ms),
            )
        )  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("lines", nargs="?", type=int, default=180)
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args()
    rows = table(args.lines)
    print("\n".join(rows))
    if not args.no_record:
        from measurements import record

        record(
            "bench_lfs_append", rows,
            note="%d journal lines appended to one segment (about 8 KB, a segment's size) on "
            "LittleFS v2 with the rp2 port's geometry; flash time at the W25Q16JV's typical "
            "erase and program times" % args.lines,
        )  # fmt: skip


if __name__ == "__main__":
    main()
