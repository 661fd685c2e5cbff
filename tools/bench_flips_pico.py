"""Benchmark (issue 48's trials table, the emulated Pico): single bit flips on a dicepod's flash.

The real firmware in the emulated RP2040 (host/dicepod_host/pico) on a flash holding a journal
of about 400 free-roll events in three segments (written by the real journal module, then two
rolls pressed on the Pico so its own LittleFS commits are on the flash too) and a settings
file. Each seeded trial copies that flash, flips one bit in one region and powers on:

- metadata: a byte of a LittleFS metadata block (the directory pairs, up to their last
  written byte), found by tracing the blocks a mount and a directory walk read;
- segments: a byte of a journal segment, where its bytes lie on the flash;
- settings: a byte of the settings file, where its bytes lie (inline in its directory's block).

After the flip: does a frame reach the OLED within 15 s (emulated), is it the device's own
notice or crash screen, does the app answer OK; with no frame, is the REPL's prompt on USB;
does the file system still hold the journal (a wiped one holds none of it). Then `dicepod log`
runs on the Pico's USB until its database stops growing, and `dicepod verify` on it. Events
lost: those of the journal (seq 1..N, its identity) the PC did not store; without a mark: those
no break covers that the device's chained ("lost", (first, last)) event vouches for.

    .venv/bin/python tools/bench_flips_pico.py [TRIALS per region] [--firmware stock|dicepod|both]
"""

import argparse
import contextlib
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _sub in ("tests", "tests/portable", "tools", "host", "firmware"):
    if str(ROOT / _sub) not in sys.path:
        sys.path.insert(0, str(ROOT / _sub))

REGIONS = ("metadata", "segments", "settings")
DEV = "e6614c311b7a2f48"
EVENTS = 400  # journal events written on the host (three segments)
TIMING = None  # the emulated chip's (None: its default; the suite's test sets "ideal")
SETTINGS = b'{"device.bright":180,"device.dim_s":0,"device.off_s":0,"device.volume":1}\n'


# -- the flash ---------------------------------------------------------------------------------


def base_image(folder, firmware="stock", events=EVENTS):
    """A flash image with the firmware, a journal of events free-roll events (games of 150)
    and the settings, two rolls pressed on the Pico after the host wrote them. Return (path,
    journal id, events on it)."""
    from dicepod import journal
    from dicepod.drivers.memstorage import MemoryStorage
    from dicepod_host import pico as pico_module

    storage = MemoryStorage()
    log = journal.Journal(storage, lambda: "00000000000000f4")
    log.recover()
    for n in range(events):
        log.append(n * 10, ("new_game", ("free",)) if n % 150 == 0 else ("roll", (n % 6 + 1,)))
    files = {"journal/%d" % seg: storage.segment(seg) for seg in storage.segments()}
    files["journal/ack"] = storage.side("ack")
    files["settings.json"] = SETTINGS
    path = Path(folder) / ("base-%s.img" % firmware)
    pico_module.build_flash(path, files=files, firmware=firmware)
    with pico_module.Pico(flash=str(path), firmware=firmware, device_id=DEV, timing=TIMING) as pico:
        pico.run_until_frame(max_ms=15_000)
        for _ in range(2):
            pico.tap("OK")
        pico.run_ms(500)
    lines = journal_lines(pico_module.read_littlefs(path.read_bytes()))
    return path, log.id, len(lines)


def journal_lines(files, jid=None):
    """The event lines of a flash's {path: bytes}, of journal jid only when given."""
    names = sorted(int(k[8:]) for k in files if k.startswith("journal/") and k[8:].isdigit())
    out = []
    for name in names:
        data = files["journal/%d" % name]
        if jid is not None and data.split(b" ", 2)[1:2] != [jid.encode()]:
            continue
        out += [x for x in data.splitlines() if x[:1].isdigit()]
    return out


class _Trace:
    """A littlefs-python context that notes the blocks read."""

    def __init__(self, buffer):
        from littlefs.context import UserContext

        self.inner = UserContext(buffer=bytearray(buffer))
        self.buffer = self.inner.buffer
        self.blocks = set()

    def read(self, cfg, block, off, size):
        self.blocks.add(block)
        return self.inner.read(cfg, block, off, size)

    def prog(self, cfg, block, off, data):
        return self.inner.prog(cfg, block, off, data)

    def erase(self, cfg, block):
        return self.inner.erase(cfg, block)

    def sync(self, cfg):
        return 0


def regions(image):
    """{region: [(start, end) of flash offsets]} a flip in that region picks from."""
    import littlefs

    from dicepod_host import pico as pico_module

    base = pico_module.FS_OFFSET
    size = pico_module.FS_BLOCK
    area = image[base : base + size * pico_module.FS_BLOCKS]
    trace = _Trace(area)
    fs = littlefs.LittleFS(
        context=trace, block_size=size, block_count=pico_module.FS_BLOCKS,
        prog_size=pico_module.FS_PROG, read_size=32, cache_size=size, lookahead_size=32,
        mount=False,
    )  # fmt: skip
    fs.mount()
    for _root, _dirs, _names in fs.walk("/"):
        pass
    metadata = []
    for block in sorted(trace.blocks):  # a mount and a walk read only directory blocks
        data = area[block * size : (block + 1) * size]
        end = len(data.rstrip(b"\xff"))
        if end:
            metadata.append((base + block * size, base + block * size + end))
    files = pico_module.read_littlefs(image)
    segments = []
    for name, data in files.items():
        if name.startswith("journal/") and name[8:].isdigit():
            segments += _spans(image, base, base + len(area), data)
    settings = _spans(image, base, base + len(area), files["settings.json"])
    return {"metadata": metadata, "segments": segments, "settings": settings}


def _spans(image, start, end, data, window=48):
    """Where data's bytes lie in image[start:end]: (start, end) runs found by unique windows
    (a file's blocks are not contiguous; a window over a block boundary is not found)."""
    out = []
    at = 0
    while at < len(data):
        piece = data[at : at + window]
        found = image.find(piece, start, end)
        if found >= 0 and image.find(piece, found + 1, end) < 0:
            out.append((found, found + len(piece)))
            at += len(piece)
        else:
            at += 8
    return out


def pick(rng, spans):
    """A random byte of the spans, uniformly."""
    total = sum(b - a for a, b in spans)
    at = rng.randrange(total)
    for a, b in spans:
        if at < b - a:
            return a + at
        at -= b - a
    raise AssertionError("unreachable")


# -- a screen the device says damage on -----------------------------------------------------


def _title_page(title):
    """The top 8 rows (MONO_VLSB page 0) of a screen titled title, as CPython draws it."""
    from app_board import Board

    from dicepod.ui import draw

    board = Board()
    canvas = board.display
    canvas.fill(0)
    draw.title(canvas, title)
    return bytes(board.display.buffer[:128])


# -- one trial -----------------------------------------------------------------------------


def superblock_magic(image):
    """The flash offset of the "littlefs" magic in the root directory's active block (the
    first commit of the pair's block of the higher revision)."""
    import struct

    from dicepod_host import pico as pico_module

    base, size = pico_module.FS_OFFSET, pico_module.FS_BLOCK
    revs = []
    for block in (0, 1):
        (rev,) = struct.unpack_from("<I", image, base + block * size)
        if rev != 0xFFFFFFFF:
            revs.append((rev, block))
    block = max(revs)[1]
    return image.index(b"littlefs", base + block * size, base + (block + 1) * size)


def trial(rng, base, jid, events, region, folder, firmware="stock", spans=None, at=None):
    """One flip in region of a copy of base (at: the flash offset of the byte to flip, else a
    random one of the region); return the trial's outcome (a dict)."""
    from pico_support import start_logger, stop_logger

    from dicepod_host import pico as pico_module
    from dicepod_host.store import Store
    from dicepod_host.verify import verify_path

    image = Path(folder) / "trial.img"
    shutil.copyfile(base, image)
    data = bytearray(image.read_bytes())
    if at is None:
        at = pick(rng, spans or regions(bytes(data))[region])
    bit = rng.randrange(8)
    data[at] ^= 1 << bit
    image.write_bytes(bytes(data))
    out = {"region": region, "at": at - pico_module.FS_OFFSET, "bit": bit, "frame": False}
    out.update(notice=False, answers=False, repl=False, wiped=False, readable=True)
    db = Path(folder) / "trial.db"
    if db.exists():
        db.unlink()
    notices = {_title_page("Notice"), _title_page("CRASH: restarted")}
    clock = [time.monotonic()]
    with pico_module.Pico(
        flash=str(image), firmware=firmware, device_id=DEV, timing=TIMING
    ) as pico:
        try:
            pico.run_until_frame(max_ms=15_000)
            out["frame"] = True
        except TimeoutError:
            pass
        if out["frame"]:
            before = pico.frame()
            out["notice"] = before[:128] in notices
            pico.tap("OK")
            pico.run_ms(300)
            out["answers"] = pico.frame() != before
            clock.append(time.monotonic())
            with start_logger(pico.usb_port, db) as logger:
                _pump_until_stable(pico, db, jid, events)
                clock.append(time.monotonic())
                stop_logger(logger, timeout=30, pump=lambda: pico.run_ms(100))
                clock.append(time.monotonic())
        else:
            pico.usb_write(b"\r\n")
            pico.run_ms(300)
            out["repl"] = b">>>" in pico.usb_read(0.5)
    try:
        files = pico_module.read_littlefs(image.read_bytes())
        out["wiped"] = not journal_lines(files, jid)
        out["settings_kept"] = files.get("settings.json") == SETTINGS
    except Exception:  # the host's LittleFS cannot mount it either
        out["readable"] = False
    got, marked = set(), set()
    if db.exists():
        store = Store(db)
        stored = [o for o in store.events() if o.get("jid") == jid]
        got = {o["seq"] for o in stored if o["event"][0] != "lost"}
        marks = {tuple(o["event"][1]) for o in stored if o["event"][0] == "lost"}
        breaks = {(b[2], b[3]) for b in store.breaks() if b[1] == jid}
        store.close()
        for first, last in breaks & marks:
            marked.update(range(first, last + 1))
        report = verify_path(db)
        out["verify"] = report.ok
        out["problems"] = [str(p) for p in report.problems][:3]
    else:
        out["verify"] = False
    clock.append(time.monotonic())
    out["wall"] = [round(b - a, 1) for a, b in zip(clock, clock[1:])]
    lost = set(range(1, events + 1)) - got
    out["lost"] = len(lost)
    out["unmarked"] = len(lost - marked)
    return out


def _stored(db, jid):
    """(rows the PC holds for journal jid: events and breaks, what it still waits for: breaks
    no stored lost event of the device's chain names yet, and 1 when the device reported a
    seq above its last event), or (-1, 0) before the database is there."""
    import sqlite3

    try:
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=1)
    except sqlite3.OperationalError:
        return -1, 0
    try:
        events = con.execute("SELECT COUNT(*) FROM events WHERE journal=?", (jid,)).fetchone()
        breaks = con.execute("SELECT first, last FROM breaks WHERE journal=?", (jid,)).fetchall()
        marks = con.execute(
            "SELECT data FROM events WHERE journal=? AND kind='lost'", (jid,)
        ).fetchall()
        top = con.execute("SELECT MAX(seq) FROM events WHERE journal=?", (jid,)).fetchone()
        head = con.execute("SELECT MAX(seq) FROM heads WHERE journal=?", (jid,)).fetchone()
    except sqlite3.OperationalError:
        return -1, 0
    finally:
        con.close()
    named = {tuple(json.loads(x[0])) for x in marks}
    behind = (head[0] or 0) > (top[0] or 0)  # the device reported events not stored yet
    return events[0] + len(breaks), sum(1 for b in breaks if tuple(b) not in named) + behind


def _pump_until_stable(pico, db, jid, events, wall=180):
    """Run the Pico, no faster than the wall clock (as a PC's logger meets it), while
    `dicepod log` back-fills: until its database has not grown for 1 s once it holds as many
    rows as the journal had events and the device's lost event names each break it sent; 6 s
    short of that; 15 s with nothing; or wall seconds."""
    start = time.monotonic()
    last, still, waited = -2, 0, 0
    while time.monotonic() < start + wall:
        pico.run_ms(250, realtime=True)
        now, unnamed = _stored(db, jid)
        still = still + 1 if now == last else 0
        last = now
        if now >= events and unnamed:
            waited += 1
            if waited < 120:
                continue
        if now >= events and still >= 4 or now > 0 and still >= 24:
            return
        if now <= 0 and time.monotonic() > start + 15:
            return


# -- the table -----------------------------------------------------------------------------

HEAD = (
    "| firmware | region | flips tried | boots into dicepod | damage screens | app answers OK "
    "| bare REPL | journal wiped | events lost | lost without a mark | verify passes |"
)


def row(firmware, region, results):
    n = len(results)
    count = lambda key: sum(1 for r in results if r[key])  # noqa: E731
    return "| %s | %s | %d | %d | %d | %d | %d | %d | %d | %d | %d |" % (
        firmware, region, n, count("frame"), count("notice"), count("answers"), count("repl"),
        count("wiped"), sum(r["lost"] for r in results), sum(r["unmarked"] for r in results),
        count("verify"),
    )  # fmt: skip


def run(trials, firmwares, seed=4848, log=print, table=None, only=REGIONS):
    """trials flips per region on each firmware; return the table's lines (table(lines): called
    with them after each firmware too)."""
    lines = [HEAD, "|" + "---|" * 11]
    with tempfile.TemporaryDirectory(prefix="dicepod-flips-") as folder:
        for firmware in firmwares:
            base, jid, events = base_image(folder, firmware)
            spans = regions(base.read_bytes())
            for region in only:
                rng = random.Random("%d %s" % (seed, region))
                results = []
                for i in range(trials):
                    started = time.monotonic()
                    result = trial(rng, base, jid, events, region, folder, firmware, spans[region])
                    results.append(result)
                    took = time.monotonic() - started
                    what = json.dumps(result)
                    log("%s %s %d: %s (%.0f s)" % (firmware, region, i + 1, what, took))
                lines.append(row(firmware, region, results))
            if table is not None:
                table(lines)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trials", nargs="?", type=int, default=10)
    parser.add_argument("--firmware", default="both", choices=("stock", "dicepod", "both"))
    parser.add_argument("--seed", type=int, default=4848)
    parser.add_argument("--no-record", action="store_true")
    parser.add_argument("--region", action="append", choices=REGIONS, help="(default: all)")
    args = parser.parse_args()
    firmwares = ("dicepod", "stock") if args.firmware == "both" else (args.firmware,)
    from measurements import record

    def table(lines):
        print("\n".join(lines), flush=True)
        if not args.no_record:
            record(
                "bench_flips_pico", lines,
                note="One bit flipped a trial on the emulated Pico; a journal of %d events "
                "(three segments), seed %d. On the stock build the app lives on the file "
                "system: a flip in its package's directory leaves the REPL (and every event "
                "unsent), which dicepod's build, the app in ROMFS, does not." % (EVENTS, args.seed),
            )  # fmt: skip

    with contextlib.suppress(KeyboardInterrupt):
        run(args.trials, firmwares, args.seed, table=table, only=args.region or REGIONS)


if __name__ == "__main__":
    main()
