"""Benchmark on the emulated Pico (host/dicepod_host/pico): MicroPython v1.28.0 RPI_PICO with
dicepod deployed, every figure in emulated time at 125 MHz. Prints, asserts nothing.

- boot: power-on to the last I2C byte of the first frame, with an empty journal, a journal of
  10,000 events and a full flash (segment files built host-side with dicepod.journal on the
  flash image, tools/bench_journal.py BOOTS: games of free roll, the last one in progress);
- per press, per mode, in lockstep (every mode's scripted session,
  tests/portable/app_sessions.py, pressed by a finger tick for tick on tests/pico_lockstep.py's
  loop, with CPython's seeded dice and clock, so every tree plays the same presses on the same
  screens and its frames and journal are checked against CPython's): from the start of the
  loop pass that answers a press to the last I2C byte of its frame: median, p95, p99, max and
  the screen of the max; to the end of its first burst of display bytes (p99, max: the
  "Loading..." band, app.busy, that answers slow work at once); the median of the time the
  display's I2C writes of a press take, and of the rest (the code's part: at 400 kHz a whole
  new screen is ~21 ms of bus, so the bus bounds a session of screen changes); I2C bytes per
  press; gc.mem_free() after boot and its minimum in each mode, after every tick; and the
  names interned in RAM at the end (micropython.qstr_info(): never freed, in pools that
  double);
- per press on the firmware's own main loop and the real clock ("real"): from the pin's first
  edge to the last I2C byte of the frame that answers it. The session's presses are timed by
  the emulated clock, so a change in speed moves some of them onto other screens (auto-roll,
  repeats): compare trees with the lockstep figures;
- with --heap: the smallest heap each mode (and every mode in one session) runs in on the real
  port, bisected: a ballast allocated at main.py start leaves that much to the app
  (tests/pico_lockstep.py); a run passes when its journal and every frame equal CPython's;
- idle: the share of cycles the CPU is awake with no button pressed (menu and a game screen,
  on USB power and on battery);
- ram: the heap each module takes once imported (after a collection) and the interned names'
  share of it, for the modules a boot loads and then each mode's rules and screens with what
  they import (where a mode's RAM goes, tests/test_pico_sessions.py's heap gate);
- romfs: every mode in one session on 64 KB of heap on dicepod's MicroPython (the stock build
  with a ROMFS partition, hardware/micropython; the package in it, run in place from flash),
  checked against CPython's frames and journal; the lowest free heap in each mode.

    .venv/bin/python tools/bench_pico.py [--modes free,tests] [--heap] [--quick]
                                         [--firmware stock|dicepod] [--skip PARTS]

--quick plays the suite's shorter sessions (tests/test_pico_sessions.py). --firmware: the
firmware every other part runs on (stock: MicroPython's RPI_PICO build, the package on the
file system; dicepod: the package in ROMFS, as `dicepod deploy` puts it there).
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import pico_sessions as ps  # noqa: E402

from dicepod_host import pico as _pico  # noqa: E402
from dicepod_host.pico import find_rp2  # noqa: E402

FIRMWARE = "stock"  # --firmware
TIMING = None  # --timing (None: the emulator's default)
FAST_BUS = False  # --fast-bus
ROMFS_HEAP = 64 * 1024  # the romfs part's heap: the goal is that every mode runs in it


def Pico(*args, **kwargs):  # noqa: N802 (the class, on the firmware --firmware chose)
    kwargs.setdefault("timing", TIMING)
    return _pico.Pico(*args, firmware=kwargs.pop("firmware", FIRMWARE), **kwargs)


NAMES = {1: "UP", 2: "DOWN", 4: "OK", 8: "BACK"}
GAP_TICKS_MS = 60  # after the firmware is idle: the buttons driver's release and lock-out
GAP_NS = 5e6  # I2C writes closer than this belong to one frame


def pct(values, p):
    values = sorted(values)
    if not values:
        return 0.0
    k = min(len(values) - 1, max(0, int(round(p / 100.0 * len(values) + 0.5)) - 1))
    return values[k]


def bench_boot():
    # The journal's segment files written on the flash before it boots, by the firmware's
    # own journal code on CPython (tools/bench_journal.py).
    from bench_journal import BOOTS, pico_boot_ms

    title = (
        "boot on the emulated Pico (%s, timing %s): power-on to the last I2C byte of the first"
        " frame, emulated ms (goal <= 1000)" % (FIRMWARE, TIMING or _pico.default_timing())
    )
    print(title)
    lines = [title + ".", "", "| journal | ms | events | segments |", "|---|---|---|---|"]
    for name, events, full, current, saved in BOOTS:
        ms, n, segs = pico_boot_ms(events, full, current, FIRMWARE, saved, timing=TIMING)
        print("  journal %-30s: %7.1f ms (%d events, %d segments)" % (name, ms, n, segs),
              flush=True)  # fmt: skip
        lines.append("| %s | %.1f | %d | %d |" % (name, ms, n, segs))
    return lines


def _burst_end(data):
    """The end (ns) of the first burst of display writes: those less than GAP_NS apart."""
    end = data[0]["t1"]
    for e in data[1:]:
        if e["t0"] - end > GAP_NS:
            break
        end = e["t1"]
    return end


def presses_of(rec, first, end):
    """The finger's presses in ticks [first, end): (tick, mask, hold ticks)."""
    out = []
    i = first
    while i < end:
        mask = rec.pins[i]
        if not mask:
            i += 1
            continue
        j = i
        while j < end and rec.pins[j] == mask:
            j += 1
        out.append((i, mask, j - i))
        i = j
    return out


def answers_of(rec, first, end):
    """The presses in ticks [first, end) with the tick that answers each, the first whose
    frame differs on CPython (None: the press changed no frame): (tick, mask, answer, "BUTTON
    Screen -> Screen" or None)."""
    out = []
    presses = presses_of(rec, first, end)
    for n, (tick, mask, _hold) in enumerate(presses):
        until = presses[n + 1][0] if n + 1 < len(presses) else end
        k = next((j for j in range(tick, until) if rec.frames[j + 1] != rec.frames[j]), None)
        if k is None:
            out.append((tick, mask, None, None))
        else:
            shows = "%s %s -> %s" % (NAMES[mask], rec.screens[k], rec.screens[k + 1])
            out.append((tick, mask, k, shows))
    return out


def bench_presses(rec, modes):
    print(
        "per press, on the firmware's own loop and real clock: the pin's first edge -> the last"
        " I2C byte of its frame (emulated ms; not like for like between trees: a timing change"
        " moves presses onto other screens)"
    )
    print(
        "  %-8s %6s %7s %7s %7s %7s  %-34s %9s"
        % (
            "mode",
            "presses",
            "median",
            "p95",
            "p99",
            "max",
            "max at (pressed on -> shows)",
            "I2C B/press",
        )
    )
    files = ps.seeded_main_files()
    if FAST_BUS:  # Settings → Device → Display bus → 1 MHz (over the controllers' rating)
        files["settings.json"] = b'{"device.fastbus":1}\n'
    with Pico(files=files, usb="events") as pico:
        pico.run_until_frame(max_ms=20_000)
        pico.run_ms(300)
        for mode in modes:
            first, end = rec.marks[mode]
            lat = []
            nbytes = []
            no_frame = 0
            worst = (0, "")
            for tick, mask, hold in presses_of(rec, first, end):
                down, up = pico.press(NAMES[mask], hold_ms=hold * ps.TICK_MS, bounce=True)
                pico.run_ms((up - pico.now_ns) / 1e6 + 1)
                # the next press only once the firmware is back in its loop, asleep (a press
                # while it is busy longer than the hold is lost, as on the real port)
                pico.run_until_idle(after_ns=up, max_ms=30_000)
                pico.run_ms(GAP_TICKS_MS)
                writes = [e for e in pico.events("i2c", since_ns=down) if e["addr"] == 0x3C]
                nbytes.append(sum(len(e["data"]) for e in writes))
                data = [e for e in writes if e["data"][:1] == b"\x40"]
                if not data:
                    no_frame += 1
                    continue
                ms = (_burst_end(data) - down) / 1e6
                lat.append(ms)
                if ms > worst[0]:
                    before = rec.screens[tick]
                    after = rec.screens[tick + 1]
                    worst = (ms, "%s %s -> %s" % (NAMES[mask], before, after))
            print(
                "  %-8s %6d %7.1f %7.1f %7.1f %7.1f  %-34s %9.0f%s"
                % (
                    mode,
                    len(lat),
                    statistics.median(lat) if lat else 0,
                    pct(lat, 95),
                    pct(lat, 99),
                    worst[0],
                    worst[1][:34],
                    statistics.mean(nbytes) if nbytes else 0,
                    "  (%d presses without a redraw)" % no_frame if no_frame else "",
                ),
                flush=True,
            )
        # did the free-running device play the same game? (its clock is real: MS differs)
        journal, _ = ps.journal_of(pico)
        same = _events(journal) == _events(rec.journal[: rec.sizes[rec.marks[modes[-1]][1]]])
        print("  the same events as CPython's journal (the MS field aside): %s" % same)


HOLD_MS = 600  # a press held this long is a hold: decided at this mark, not at the release
GESTURES = ("UP/DOWN", "OK tap", "BACK tap", "hold")


def _gesture(mask, hold_ticks):
    if hold_ticks * ps.TICK_MS >= HOLD_MS:
        return "hold"
    return {1: "UP/DOWN", 2: "UP/DOWN", 4: "OK tap", 8: "BACK tap"}[mask]


def bench_feel(rec, modes, seed=44, listed=False):
    """What a finger feels, per mode and gesture, on the firmware's own loop and real clock
    with seeded fingers: each tap held 60-160 ms, each hold 610-700 ms, contact bounce on both
    edges, and 0-40 ms of random phase against the loop before each press. Returns the lines
    for docs/MEASUREMENTS.md; listed also prints every press (ms from its deciding edge, the
    display bytes after it, what the script's press showed)."""
    import random

    rnd = random.Random(seed)
    title = (
        "what a finger feels, on the firmware's own loop (%s, timing %s): emulated ms from the"
        " deciding edge (the press for UP/DOWN, the release for an OK or BACK tap, the %d ms"
        " mark for a hold) to the last I2C byte of its frame, flash busy time included; and"
        " from finger-down" % (FIRMWARE, TIMING or _pico.default_timing(), HOLD_MS)
    )
    if FAST_BUS:
        title += "; the display bus at 1 MHz (the device.fastbus setting)"
    print(title)
    head = "| mode | gesture | n | median | p95 | p99 | max | down median | down max | flash ms |"
    lines = [title + ".", "", head, "|---|---|---|---|---|---|---|---|---|---|"]
    print("  " + head)
    every = {g: [] for g in GESTURES}
    script = []  # per mode: the presses that drew (or did not) as the script's, of all
    files = ps.seeded_main_files()
    if FAST_BUS:  # Settings → Device → Display bus → 1 MHz (over the controllers' rating)
        files["settings.json"] = b'{"device.fastbus":1}\n'
    with Pico(files=files, usb="events") as pico:
        pico.run_until_frame(max_ms=20_000)
        pico.run_ms(300)
        for mode in modes:
            first, end = rec.marks[mode]
            got = {g: ([], [], []) for g in GESTURES}  # (from the edge, from down, flash ms)
            presses = presses_of(rec, first, end)
            answers = answers_of(rec, first, end)
            same = 0  # presses that drew where the script's did (on CPython), or did not
            for (_tick, mask, hold), (_t, _m, answer, shows) in zip(presses, answers):
                gesture = _gesture(mask, hold)
                hold_ms = rnd.uniform(610, 700) if gesture == "hold" else rnd.uniform(60, 160)
                pico.run_ms(rnd.uniform(0, 40))
                down, up = pico.press(NAMES[mask], hold_ms=hold_ms, bounce=True)
                release = down + hold_ms * 1e6
                edge = {"UP/DOWN": down, "hold": down + HOLD_MS * 1e6}.get(gesture, release)
                pico.run_ms((up - pico.now_ns) / 1e6 + 1)
                pico.run_until_idle(after_ns=up, max_ms=30_000)
                pico.run_ms(GAP_TICKS_MS)
                data = [
                    e
                    for e in pico.events("i2c", since_ns=edge)
                    if e["addr"] == 0x3C and e["data"][:1] == b"\x40" and e["t0"] >= edge
                ]
                same += bool(data) == (answer is not None)
                if not data:
                    continue
                last = _burst_end(data)
                flashed = pico.events("flash", since_ns=edge)
                busy = sum(e.get("busy_ns", 0) for e in flashed if e["t"] <= last)
                got[gesture][0].append((last - edge) / 1e6)
                got[gesture][1].append((last - down) / 1e6)
                got[gesture][2].append(busy / 1e6)
                if listed:
                    print(
                        "    %-8s %-8s %6.1f ms %5d B  at %5.1f s  %s"
                        % (
                            mode,
                            gesture,
                            (last - edge) / 1e6,
                            sum(len(e["data"]) for e in data),
                            edge / 1e9,
                            shows,
                        )
                    )
            for gesture in GESTURES:
                lat, from_down, flash = got[gesture]
                if not lat:
                    continue
                every[gesture].extend(zip(lat, from_down, flash))
                row = _feel_row(mode, gesture, lat, from_down, flash)
                lines.append(row)
                print("  " + row, flush=True)
            script.append("%s %d of %d" % (mode, same, len(presses)))
    for gesture in GESTURES:
        if every[gesture]:
            lat, from_down, flash = (list(x) for x in zip(*every[gesture]))
            row = _feel_row("**all**", gesture, lat, from_down, flash)
            lines.append(row)
            print("  " + row, flush=True)
    # The fingers keep the script's timing, but the device keeps its own (an auto-roll, the
    # fairness test), so a press can land on another screen than the script's: n counts the
    # presses that drew anything, and this how many drew (or did not) as on CPython.
    on = "presses that drew, or drew nothing, as the script's did: " + ", ".join(script)
    print("  " + on)
    lines.extend(["", on + "."])
    return lines


def _feel_row(mode, gesture, lat, from_down, flash):
    return "| %s | %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f |" % (
        mode,
        gesture,
        len(lat),
        statistics.median(lat),
        pct(lat, 95),
        pct(lat, 99),
        max(lat),
        statistics.median(from_down),
        max(from_down),
        max(flash),
    )


def _events(journal):
    return [line.split(b" ")[4] for line in journal.splitlines()]


def _bands():
    """The bottom page (rows 56..63) of a frame under the busy band (app.busy), each text."""
    import framebuf

    out = []
    for text in ("Loading...", "Undoing..."):
        buf = bytearray(1024)
        canvas = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
        canvas.fill_rect(0, 55, 128, 9, 1)
        canvas.text(text, (128 - len(text) * 8) // 2, 56, 0)
        out.append(bytes(buf[896:]))
    return out


def bench_lockstep(rec, modes, listing=False):
    """The scripted sessions tick for tick (tests/pico_lockstep.py), so every tree plays the
    same presses on the same screens: per press, the emulated time from the start of the loop
    pass that answers it (the first tick whose frame differs on CPython) to the last I2C byte
    of that pass; the heap allocations of that pass (every call of the firmware's gc_alloc
    and the bytes it asked for, counted by the emulator: Pico.allocs); and gc.mem_free()
    after every tick. A press answered by the busy band (its work, reading the flash, is done
    in the next pass): from the start of the pass that answers it to the last I2C byte of the
    next pass too (done)."""
    bands = _bands()
    print(
        "per press, in lockstep (the same presses every run): the loop pass that answers it,"
        " from its start to the last I2C byte of its frame (emulated ms; goal: median <= 20,"
        " p99 <= 50, max <= 100); 1st: to the end of the first burst of display bytes; band:"
        " the presses answered by the Loading... band (their work, reading the flash, in the"
        " next pass) and done: the most of those to the last I2C byte of that next pass;"
        " bus: the median of the time the display's I2C"
        " writes of a press take (400 kHz: ~22.5 us a byte, a whole new screen ~21 ms), rest:"
        " the median of a press's time less its bus time (the code's part); alloc: the heap"
        " allocations of that pass, bytes and calls (its journal lines, written after the"
        " frame, included)"
    )
    print(
        "  %-8s %6s %7s %7s %7s %7s %7s %7s %6s %6s  %-34s %9s %8s %13s %10s %5s %7s"
        % ("mode", "presses", "median", "p95", "p99", "max", "1st p99", "1st max", "bus",
           "rest", "max at (pressed on -> shows)", "I2C B/press", "min free",
           "alloc B/press", "calls/press", "band", "done")
    )  # fmt: skip
    with Pico(files=ps.lockstep_files(measure=True), usb="events") as pico:
        player = ps.Player(pico)
        player.boot()
        free, start = ps.heap_at_boot(pico)
        boot_free = free
        same = pico.frame() == rec.frames[0]
        for mode in modes:
            first, end = rec.marks[mode]
            if first and pico.frame() != rec.frames[first]:
                same = False
            starts = []
            allocs = []  # (calls, bytes) of each tick
            lowest = None
            pico.allocs()
            for i in range(first, end):
                starts.append(pico.now_ns)
                player.tick(rec.pins[i])
                allocs.append(pico.allocs())
                free, _low = pico.heap()
                lowest = free if lowest is None else min(lowest, free)
            starts.append(pico.now_ns)
            same = same and pico.frame() == rec.frames[end]
            writes = [e for e in pico.events("i2c", since_ns=starts[0]) if e["addr"] == 0x3C]
            lat, firsts, nbytes, no_frame, worst, rows = [], [], [], 0, (0.0, ""), []
            alloc_bytes, alloc_calls, bus, done = [], [], [], []
            for _tick, _mask, k, shows in answers_of(rec, first, end):
                if k is None:
                    no_frame += 1
                    continue
                t0, t1 = starts[k - first], starts[k - first + 1]
                mine = [e for e in writes if t0 <= e["t0"] < t1]
                data = [e for e in mine if e["data"][:1] == b"\x40"]
                if not data:
                    no_frame += 1
                    continue
                ms = (data[-1]["t1"] - t0) / 1e6
                lat.append(ms)
                bus.append(sum(e["t1"] - e["t0"] for e in mine if e["t1"] <= data[-1]["t1"]) / 1e6)
                firsts.append((_burst_end(data) - t0) / 1e6)
                nbytes.append(sum(len(e["data"]) for e in mine))
                alloc_calls.append(allocs[k - first][0])
                alloc_bytes.append(allocs[k - first][1])
                if ms > worst[0]:
                    worst = (ms, shows)
                if rec.frames[k + 1][896:] in bands and k + 1 < end:
                    t2 = starts[k - first + 2]
                    after = [e for e in writes if t1 <= e["t0"] < t2 and e["data"][:1] == b"\x40"]
                    done.append(((after[-1]["t1"] if after else t1) - t0) / 1e6)
                if listing:
                    rows.append((ms, firsts[-1], bus[-1], nbytes[-1], alloc_bytes[-1], shows))
            print(
                "  %-8s %6d %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f %6.1f %6.1f  %-34s %9.0f %8d %13.0f"
                " %10.0f %5d %7.1f%s"
                % (
                    mode,
                    len(lat),
                    statistics.median(lat) if lat else 0,
                    pct(lat, 95),
                    pct(lat, 99),
                    worst[0],
                    pct(firsts, 99),
                    max(firsts, default=0),
                    statistics.median(bus) if bus else 0,
                    statistics.median([a - b for a, b in zip(lat, bus)]) if lat else 0,
                    worst[1][:34],
                    statistics.mean(nbytes) if nbytes else 0,
                    lowest or 0,
                    statistics.mean(alloc_bytes) if alloc_bytes else 0,
                    statistics.mean(alloc_calls) if alloc_calls else 0,
                    len(done),
                    max(done, default=0),
                    "  (%d presses without a redraw)" % no_frame if no_frame else "",
                ),
                flush=True,
            )
            for n, (ms, first_ms, bus_ms, count, alloc, shows) in enumerate(rows):
                print(
                    "    %3d %7.1f %7.1f %6.1f bus %5d B %6d B alloc  %s"
                    % (n + 1, ms, first_ms, bus_ms, count, alloc, shows)
                )
        journal, _ = ps.journal_of(pico)
        same = same and journal == rec.journal[: rec.sizes[rec.marks[modes[-1]][1]]]
        pools, names, text, total = ps.interned(pico)
        print(
            "  heap: gc.mem_free() at main.py start %d, after boot (App.start) %d"
            % (start, boot_free)
        )
        print(
            "  names interned (qstrs, never freed): %d in %d pools, %d bytes (%d of text);"
            " six pools hold %d, seven %d (the seventh one 7.7 KB block)"
            % (names, pools, total, text, ps.NAMES_IN_SIX_POOLS, ps.NAMES_IN_SEVEN_POOLS)
        )
        print("  the same frames and journal as CPython's: %s" % same)
        return start


def runs_in(rec, modes, heap, lowest=None, firmware=None):
    """True when the sessions run with heap bytes left to the app: every frame and the journal
    as CPython's. lowest: a dict given the lowest free heap after each mode's ticks."""
    sessions = [m for m in ps.EVERY_MODE if m in modes]
    first = rec.marks[sessions[0]][0]
    end = rec.marks[sessions[-1]][1]
    files = ps.lockstep_files(heap=heap, measure=lowest is not None)
    with Pico(files=files, usb="events", firmware=firmware or FIRMWARE) as pico:
        player = ps.Player(pico)
        try:
            player.boot()
        except RuntimeError:
            return False
        if lowest is not None:
            ps.heap_at_boot(pico)  # (the host counts the heap after every tick from here)
        if pico.frame() != rec.frames[first]:
            return False
        for i in range(first, end):
            try:
                player.tick(rec.pins[i])
            except RuntimeError:  # stopped (a MemoryError ends main.py)
                return False
            if pico.frame() != rec.frames[i + 1]:
                return False
            if lowest is not None:
                for mode in sessions:
                    if i + 1 == rec.marks[mode][1]:
                        lowest[mode] = pico.heap()[1]
        journal, _ = ps.journal_of(pico)
        return journal == rec.journal[: rec.sizes[end]]


def bench_romfs(options):
    """Every mode in one session on ROMFS_HEAP bytes on dicepod's MicroPython."""
    rec = ps.record(ps.EVERY_MODE, resident=True, **options)
    lowest = {}
    ran = runs_in(rec, ps.EVERY_MODE, ROMFS_HEAP, lowest, firmware="dicepod")
    print(
        "romfs: every mode in one session on %d KB of heap, dicepod's MicroPython (the package "
        "in ROMFS, run from flash; goal: runs): %s" % (ROMFS_HEAP // 1024, "runs" if ran else
        "FAILS")
    )  # fmt: skip
    print("  lowest free after each mode (garbage included): %s" % lowest, flush=True)


def bench_smallest(start, groups, step=1024):
    print(
        "smallest heap left to the app (a ballast at main.py start takes the rest), %d-byte"
        " steps:" % step
    )
    for label, sessions, options in groups:
        rec = ps.record(sessions, resident=FIRMWARE == "dicepod", **options)
        lo, hi = 16 * 1024, start  # a heap that fails / that runs
        if not runs_in(rec, sessions, hi):
            print("  %-10s does not run even with the whole heap" % label)
            continue
        if runs_in(rec, sessions, lo):
            print("  %-10s runs in %d" % (label, lo))
            continue
        while hi - lo > step:
            mid = (lo + hi) // 2 // step * step
            if runs_in(rec, sessions, mid):
                hi = mid
            else:
                lo = mid
        print("  %-10s %d (%.0f KB; fails at %d)" % (label, hi, hi / 1024, lo), flush=True)


def _imports(name):
    """The dicepod modules name imports at its top level (not inside a function: those load
    later), its package included, from the firmware's source."""
    import ast

    parts = name.split(".")
    path = ROOT / "firmware" / Path(*parts)
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    found = [".".join(parts[:-1])] if len(parts) > 1 else []

    def module(dotted):  # "dicepod.ui.draw" when that is a file, else its package
        f = ROOT / "firmware" / Path(*dotted.split("."))
        return dotted if f.is_dir() or f.with_suffix(".py").is_file() else None

    def walk(body):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if isinstance(node, ast.Import):
                found.extend(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    found.append(module(node.module + "." + a.name) or node.module)
            for field in ("body", "orelse", "handlers", "finalbody"):
                walk(getattr(node, field, None) or [])

    walk(ast.parse(path.read_text()).body)
    return [m for m in found if m and m.startswith("dicepod") and module(m)]


def _in_import_order(names, done):
    """names and every dicepod module they import at the top level, not in done, each after
    what it imports (so that each import's heap is its own)."""
    order = []

    def visit(name):
        if name in done:
            return
        done.add(name)
        for dep in _imports(name):
            visit(dep)
        order.append(name)

    for name in names:
        visit(name)
    return order


# The heap the ram part boots in, to list the modules a boot imports.
SMALL_HEAP = 120 * 1024


def bench_ram(modes):
    """The heap each module takes once imported (after a collection), in the boot's set and
    then each mode's (its rules and screens and their imports), on the full heap of a Pico
    whose main.py does nothing; of which the names it interned (never freed: the pools double,
    so one import pays for a new pool)."""
    from dicepod.rules.modes import rules_name

    with Pico(files=ps.lockstep_files(heap=SMALL_HEAP), usb="events") as pico:
        ps.Player(pico).boot()
        booted = pico.exec_raw(
            "import sys\nprint(' '.join(sorted(sys.modules)))", ask_app=False
        ).split()
    done = set()
    groups = [("boot", _in_import_order([m for m in booted if m.startswith("dicepod")], done))]
    for mode in modes:
        if mode == "extras":  # the settings and history screens
            names = ["dicepod.ui.settings", "dicepod.ui.history", "dicepod.ui.historypage"]
        else:  # a mode's rules and its screens
            names = [rules_name(mode), "dicepod.ui." + mode]
        groups.append((mode, _in_import_order(names, done)))
    print("ram: heap taken by each module's import (bytes, after a collection; names: of those, "
          "the interned names' pools and text, never freed), the boot's modules then each "
          "mode's")  # fmt: skip
    with Pico(files={"main.py": b"\n"}) as pico:  # (the app not started)
        free = start = int(pico.exec_raw("import gc\ngc.collect()\nprint(gc.mem_free())"))
        names = ps.interned(pico)[3]
        for group, modules in groups:
            rows = []
            for name in modules:
                now = int(
                    pico.exec_raw("__import__(%r)\ngc.collect()\nprint(gc.mem_free())" % name)
                )
                named = ps.interned(pico)[3]
                rows.append((free - now, named - names, name))
                free, names = now, named
            print("  %-8s %6d B in %d modules (%d B of names)" % (
                group, sum(r[0] for r in rows), len(rows), sum(r[1] for r in rows)))  # fmt: skip
            for taken, named, name in sorted(rows, reverse=True):
                print("    %-28s %6d B  names %5d B" % (name, taken, named))
    print("  heap free after all of them: %d of %d B" % (free, start), flush=True)


def bench_idle():
    print("idle: share of cycles the CPU is awake with no button pressed (10 s emulated)")
    for label, vbus in (("USB power", True), ("battery 3.9 V", False)):
        with Pico(files=ps.seeded_main_files(), usb="events", vbus=vbus, vsys_mv=3900) as pico:
            pico.run_until_frame(max_ms=20_000)
            for screen in ("main menu", "battle game"):
                if screen == "battle game":
                    pico.tap("OK", after_ms=1500)  # the first row: a new Battle Game
                pico.run_ms(2000)
                pico.status()
                a0, s0 = pico.cycles, pico.sleep_cycles
                pico.run_ms(10_000)
                pico.status()
                awake = pico.cycles - a0
                asleep = pico.sleep_cycles - s0
                print(
                    "  %-13s %-12s %5.1f %% awake"
                    % (label, screen, 100.0 * awake / (awake + asleep)),
                    flush=True,
                )


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--modes", default=",".join(ps.EVERY_MODE))
    parser.add_argument("--heap", action="store_true", help="also bisect the smallest heaps")
    parser.add_argument("--quick", action="store_true", help="the suite's shorter sessions")
    parser.add_argument(
        "--skip", default="", help="parts to skip: boot,idle,ram,press,real,feel,romfs"
    )
    parser.add_argument(
        "--firmware",
        choices=_pico.FIRMWARES,
        default="stock",
        help="the firmware the parts but romfs run on (default: stock)",
    )
    parser.add_argument(
        "--timing",
        choices=_pico.TIMINGS,
        default=None,
        help="the emulated chip's timing (default: the emulator's, %s)" % _pico.default_timing(),
    )
    parser.add_argument(
        "--fast-bus",
        action="store_true",
        help="the feel part with the display bus setting at 1 MHz (over the controllers' rating)",
    )
    parser.add_argument(
        "--list",
        action="store_true",
        help="every press of the lockstep pass (ms, 1st, bus ms, bytes, alloc) and of the feel"
        " part (ms from the deciding edge, bytes)",
    )
    args = parser.parse_args(argv)
    global FIRMWARE, TIMING, FAST_BUS
    FIRMWARE = args.firmware
    TIMING = args.timing
    FAST_BUS = args.fast_bus
    if find_rp2() is None:
        print("bench_pico: skipped (no UF2 / boot ROM: set DICEPOD_RP2)")
        return 0
    modes = [m for m in ps.EVERY_MODE if m in args.modes.split(",")]
    options = ps.QUICK if args.quick else {}
    skip = args.skip.split(",")
    started = time.monotonic()
    print(
        "emulated Pico: MicroPython v1.28.0 RPI_PICO (%s), rp2040js 1.4.1, 125 MHz"
        % ("dicepod's build: the package in ROMFS" if FIRMWARE == "dicepod" else "stock")
    )
    rec = ps.record(modes, resident=FIRMWARE == "dicepod", **options)
    if "boot" not in skip:
        lines = bench_boot()
        from measurements import record

        record("bench_pico boot (%s)" % FIRMWARE, lines)
    if "idle" not in skip:
        bench_idle()
    if "ram" not in skip:
        bench_ram(modes)
    start = None
    if "press" not in skip:
        start = bench_lockstep(rec, modes, args.list)
    if "real" not in skip:
        bench_presses(rec, modes)
    if "feel" not in skip:
        lines = bench_feel(rec, modes, listed=args.list)
        if args.modes == parser.get_default("modes"):
            from measurements import record

            sessions = "the suite's shorter sessions" if args.quick else "the full sessions"
            name = "bench_pico feel (%s%s)" % (FIRMWARE, ", 1 MHz bus" if FAST_BUS else "")
            record(name, lines, note="Every mode, %s." % sessions)
    if "romfs" not in skip:
        bench_romfs(options)
    if args.heap:
        if start is None:
            start = 240 * 1024
        groups = [(m, (m,), options) for m in modes]
        groups.append(("every mode", ps.EVERY_MODE, options))
        bench_smallest(start, groups)
    print("(%.0f s of wall time)" % (time.monotonic() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
