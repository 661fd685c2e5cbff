"""Where the emulated Pico's cycles go while it answers presses: PC sampling of the real
firmware (MicroPython v1.28.0 RPI_PICO) during the ticks that handle a button of a mode's
scripted session (played by the finger in lockstep, tests/pico_sessions.py), mapped to C
functions with the firmware's ELF symbols (../shared/rp2/RPI_PICO-v1.28.0.elf, read with nm).
Prints the functions by share of samples, and the share of whole subsystems (the bytecode VM,
the garbage collector, LittleFS, SHA-256, I2C, ...).

    .venv/bin/python tools/profile_pico.py [--modes battle] [--every 200] [--top 40] [--heap KB]
        [--quick]
    .venv/bin/python tools/profile_pico.py --boot 10000|full|0 [--current 100] [--every 200]
    .venv/bin/python tools/profile_pico.py --modes free --shows "OK FreeRoll" \
        --callers qstr_find_strn [--depth 5]
    .venv/bin/python tools/profile_pico.py --modes tests --shows "OK TestsScreen" --allocs \
        [--depth 6]
    .venv/bin/python tools/profile_pico.py --firmware dicepod --python --modes battle \
        --shows "OK BattleScreen" --quick

--heap leaves the app that many KB of heap (a ballast takes the rest, as the suite's heap gate
does: tests/test_pico_sessions.py). --boot profiles the boot instead (power-on to the first
frame) with a journal of that many events, or a full flash, written on the flash first
(tools/bench_journal.py's segments), the last --current of them a game in progress.
--quick plays the suite's shorter sessions (bench_pico --quick's). --shows profiles only the
passes answering the presses bench_pico --list labels that way, to their last display byte;
--callers also lists who calls a C function there (which operation searches the interned
names, say). --allocs counts those ticks' heap allocations instead, exactly (every call of
gc_alloc and the bytes asked for: dicepod_host.pico's allocs), by who asked (a file opened
costs 1,148 bytes, a call with a heap frame its frame...). --firmware dicepod runs dicepod's
build (the package in ROMFS; its own ELF's symbols); there --python also maps each sample to
the Python function running, by the first address on the stack inside the ROMFS partition (a
heuristic, as --callers': the bytecode being run, or a name or constant of the module it
belongs to, which the search of the interned names compares).
"""

import argparse
import bisect
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import pico_sessions as ps  # noqa: E402

from dicepod_host import pico as _pico  # noqa: E402

GROUPS = (
    ("garbage collector", ("gc_",)),
    ("LittleFS / flash", ("lfs_", "lfs2_", "littlefs", "mp_vfs_lfs", "flash_", "rp2_flash")),
    ("SHA-256 / CRC", ("mbedtls_sha256", "sha256", "crc32", "uzlib_crc")),
    ("I2C (waiting on the bus)", ("i2c", "check_single_timeout_us")),
    ("framebuf", ("framebuf", "fill_rect", "mono_", "setpixel", "getpixel")),
    (
        "import / .mpy loader",
        ("mp_raw_code_load", "mp_reader", "load_", "mp_import", "mp_builtin___import__", "qstr_"),
    ),
    ("bytecode VM", ("mp_execute_bytecode",)),
    (
        "attribute / name lookup",
        (
            "mp_map_lookup",
            "mp_load_attr",
            "mp_obj_get_type",
            "mp_load_method",
            "mp_load_global",
            "mp_load_name",
        ),
    ),
    ("memory copy", ("memcpy", "memset", "__aeabi_mem", "memmove")),
)


FIRMWARE = "stock"  # --firmware
Pico = _pico.Pico
# dicepod's build: the ROMFS partition, where the package's bytecode is run in place
ROMFS_ADDRESS = 0x10000000 + _pico.ROMFS_OFFSET


def python_places():
    """[(first address, one past the last, 'module.function')] of the deployed package's code
    in the ROMFS partition (as dicepod_host.pico lays it out), sorted; a module's names and
    constants, before its first function, as 'module (names, constants)'."""
    from mpy_frames import code_places

    from dicepod_host.deploy import romfs_files, romfs_image

    package = romfs_files(_pico.deployed_files())
    image = romfs_image(package)
    places = []
    for path, data in package.items():
        at = image.find(data)
        if at < 0 or not path.endswith(".mpy"):
            continue
        base = ROMFS_ADDRESS + at
        module = path[: -len(".mpy")].replace("/", ".")
        found = code_places(data)
        if found:
            places.append((base, base + found[0][0], module + " (names, constants)"))
        for start, end, name in found:
            places.append((base + start, base + end, module + "." + name))
    places.sort()
    return places


def place_of(places, starts, chain):
    """The Python function of the first address in chain inside the package's code (starts:
    the places' first addresses)."""
    for a in chain:
        i = bisect.bisect_right(starts, a) - 1
        if i >= 0 and a < places[i][1]:
            return places[i][2]
    return "(no Python frame found)"


def report_python(callers, every, top, count):
    by_module = {}
    for (place,), n in callers.items():
        if " (" in place:  # a module's names and constants, or no Python frame
            module = place.split(" (")[0]
        else:
            module = place.rsplit(".", 1)[0]
        by_module[module] = by_module.get(module, 0) + n
    total = sum(callers.values()) or 1
    ms = every / 125e3 / max(1, count)
    print("Python modules (ms a pass):")
    for module, n in sorted(by_module.items(), key=lambda kv: -kv[1])[:top]:
        print("  %6.2f ms %5.1f %%  %s" % (n * ms, 100.0 * n / total, module))
    print("Python functions (ms a pass):")
    for (place,), n in sorted(callers.items(), key=lambda kv: -kv[1])[:top]:
        print("  %6.2f ms %5.1f %%  %s" % (n * ms, 100.0 * n / total, place))


def symbols(elf):
    out = subprocess.run(["nm", "-n", "-C", str(elf)], capture_output=True, text=True).stdout
    addrs, names = [], []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] in "tTwW" and not parts[2].startswith("$"):
            addrs.append(int(parts[0], 16) & ~1)
            names.append(parts[2])
    return addrs, names


def name_of(addrs, names, pc):
    i = bisect.bisect_right(addrs, pc) - 1
    return names[i] if i >= 0 else "?%08x" % pc


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--modes", default="battle")
    parser.add_argument("--every", type=int, default=200)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--heap", type=int, help="KB of heap left to the app (a ballast)")
    parser.add_argument("--boot", help="events in the journal (or 'full'): profile the boot")
    parser.add_argument(
        "--current", type=int, default=100, help="with --boot: events of the game in progress"
    )
    parser.add_argument(
        "--shows",
        help="profile the loop passes that answer presses (bench_pico's lockstep figure), only"
        " those whose 'BUTTON Screen -> Screen' (bench_pico --list) contains this; '' for all",
    )
    parser.add_argument(
        "--callers",
        metavar="FUNCTION",
        help="also list who calls this C function in the profiled passes (return addresses"
        " found on the stack above its samples: a heuristic, a stale one can show up)",
    )
    parser.add_argument("--depth", type=int, default=4, help="with --callers: callers a sample")
    parser.add_argument("--quick", action="store_true", help="the suite's shorter sessions")
    parser.add_argument(
        "--firmware", choices=_pico.FIRMWARES, default="stock", help="the build to profile"
    )
    parser.add_argument(
        "--python",
        action="store_true",
        help="(--firmware dicepod) also the Python functions the samples fall in",
    )
    parser.add_argument(
        "--allocs",
        action="store_true",
        help="instead of PC samples: the heap allocations of those ticks (every gc_alloc, the"
        " bytes asked for), by who asked (--depth return addresses)",
    )
    args = parser.parse_args(argv)
    if args.python and args.firmware != "dicepod":
        parser.error("--python needs --firmware dicepod (the stock build runs bytecode from RAM)")
    global FIRMWARE
    FIRMWARE = args.firmware
    addrs, names = symbols(_pico.firmware_files(args.firmware)[1])
    if args.boot is not None:
        return profile_boot(args, addrs, names)
    modes = [m for m in ps.EVERY_MODE if m in args.modes.split(",")]
    rec = ps.record(modes, resident=args.firmware == "dicepod", **(ps.QUICK if args.quick else {}))
    hist = {}
    heap = args.heap * 1024 if args.heap else None
    first, end = rec.marks[modes[0]][0], rec.marks[modes[-1]][1]
    chosen = answers(rec, first, end, args.shows) if args.shows is not None else None
    until = frame_ends(rec, modes, chosen, heap) if chosen is not None else {}
    lo = hi = 0
    places = python_places() if args.python else None
    starts = [p[0] for p in places] if places is not None else []
    if places is not None:
        lo, hi, args.depth = 0x10000000, 0x30000000, max(args.depth, 16)
    if args.callers and places is None:
        if args.callers not in names:
            print("no C function %r in the firmware's ELF" % args.callers, file=sys.stderr)
            return 2
        at = names.index(args.callers)
        lo, hi = addrs[at], addrs[at + 1]
    callers = {}
    totals = [0, 0]  # (--allocs) calls, bytes
    with Pico(files=ps.lockstep_files(heap=heap), usb="events", firmware=FIRMWARE) as pico:
        player = ps.Player(pico)
        player.boot()
        first, end = rec.marks[modes[0]][0], rec.marks[modes[-1]][1]
        presses = 0
        for i in range(first, end):
            edge = rec.pins[i] and (i == 0 or rec.pins[i - 1] != rec.pins[i])
            if chosen is not None:
                edge = i in chosen
            if edge and args.allocs:
                pico.allocs(True, args.depth)
                player.tick(rec.pins[i])
                calls, size = pico.allocs(False)
                presses += 1
                totals[0] += calls
                totals[1] += size
                for chain, n in pico.alloc_callers.items():
                    key = tuple(name_of(addrs, names, a) for a in chain)
                    callers[key] = callers.get(key, 0) + n
                continue
            if edge:
                if hi:
                    pico.profile_callers(args.every, lo, hi, args.depth, until.get(i, 0))
                else:
                    pico.profile(args.every, until_ns=until.get(i, 0))
                presses += 1
            player.tick(rec.pins[i])
            if edge:
                samples, found = pico.profile_callers(0, lo, hi) if hi else (pico.profile(0), {})
                for pc, n in samples.items():
                    hist[pc] = hist.get(pc, 0) + n
                for chain, n in found.items():
                    if places is not None:
                        key = (place_of(places, starts, chain),)
                    else:
                        key = tuple(name_of(addrs, names, a) for a in chain)
                    callers[key] = callers.get(key, 0) + n
    what = "with a press edge" if chosen is None else (
        "answering %r, to the last display byte" % args.shows)  # fmt: skip
    if args.allocs:
        print(
            "heap allocations in the %d ticks %s (%s; whole ticks: the journal's writes after"
            " the frame too): %d calls, %d bytes, %.0f bytes a tick; by who asked:"
            % (presses, what.split(",")[0], ",".join(modes), totals[0], totals[1],
               totals[1] / max(1, presses))
        )  # fmt: skip
        for chain, n in sorted(callers.items(), key=lambda kv: -kv[1])[: args.top]:
            print("  %7d B  %s" % (n, " <- ".join(chain)))
        return 0
    report(hist, addrs, names, args.every, args.top, presses,
           "the %d ticks %s (%s)" % (presses, what, ",".join(modes)))  # fmt: skip
    if places is not None:
        report_python(callers, args.every, args.top, presses)
    elif hi:
        inside = sum(callers.values()) or 1
        print("callers of %s (%d samples in it):" % (args.callers, inside))
        for chain, n in sorted(callers.items(), key=lambda kv: -kv[1])[: args.top]:
            print("  %5.1f %%  %s" % (100.0 * n / inside, " <- ".join(chain)))
    return 0


def frame_ends(rec, modes, chosen, heap):
    """{tick: emulated ns of the last display byte of its loop pass}, from a first lockstep run
    (the second one, profiled, repeats it to the nanosecond): a pass's samples then stop where
    bench_pico's figure stops, before the collection after the frame."""
    ends = {}
    with Pico(files=ps.lockstep_files(heap=heap), usb="events", firmware=FIRMWARE) as pico:
        player = ps.Player(pico)
        player.boot()
        first, end = rec.marks[modes[0]][0], rec.marks[modes[-1]][1]
        for i in range(first, end):
            t0 = pico.now_ns
            player.tick(rec.pins[i])
            if i in chosen:
                data = [e for e in pico.events("i2c", since_ns=t0)
                        if e["addr"] == 0x3C and e["data"][:1] == b"\x40"]  # fmt: skip
                if data:
                    ends[i] = data[-1]["t1"]
    return ends


def answers(rec, first, end, shows):
    """The ticks that answer a press (bench_pico's lockstep figure) whose 'BUTTON Screen ->
    Screen' contains shows."""
    from bench_pico import answers_of

    chosen = answers_of(rec, first, end)
    return {k for _tick, _mask, k, label in chosen if k is not None and shows in label}


def profile_boot(args, addrs, names):
    """PC samples from power-on to the first frame, with the journal on the flash."""
    from bench_journal import FULL_BYTES, journal_files

    full = args.boot == "full"
    files, n = journal_files(
        None if full else int(args.boot), FULL_BYTES if full else None, current=args.current
    )
    with Pico(files=files, usb="events", firmware=FIRMWARE) as pico:
        pico.profile(args.every)
        ms = pico.run_until_frame(max_ms=30_000)
        hist = pico.profile(0)
    what = "the boot to the first frame (%.0f ms; %d events, %d segment files)" % (
        ms, n, len([k for k in files if k[8:].isdigit()]))  # fmt: skip
    report(hist, addrs, names, args.every, args.top, 1, what)
    return 0


def report(hist, addrs, names, every, top, count, what):
    by_name = {}
    for pc, n in hist.items():
        fn = name_of(addrs, names, pc)
        by_name[fn] = by_name.get(fn, 0) + n
    total = sum(by_name.values()) or 1
    print(
        "PC samples in %s: %d samples, one per %d cycles (%.0f ms each)"
        % (what, total, every, total * every / 125e3 / max(1, count))
    )
    print("subsystems:")
    for label, prefixes in GROUPS:
        n = sum(v for k, v in by_name.items() if any(p in k for p in prefixes))
        print("  %-26s %5.1f %%" % (label, 100.0 * n / total))
    print("functions:")
    for fn, n in sorted(by_name.items(), key=lambda kv: -kv[1])[:top]:
        print("  %5.1f %%  %s" % (100.0 * n / total, fn))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
