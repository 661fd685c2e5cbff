"""Issue 42's before/after on the emulated Pico: tools/bench_pico.py's lockstep presses, lowest
free heap, heap after boot and boot, run on the tree of the commit before the issue (exported
with git archive into a temporary folder) and on this tree, on both firmwares (stock: the package
on the file system, its code loaded into the heap; dicepod: the package in ROMFS, run from
flash). Writes the section "issue 42 before/after" of docs/MEASUREMENTS.md.

    .venv/bin/python tools/bench_issue42.py [--before 035910e] [--firmware stock,dicepod]
                                            [--fresh] [--only-before]

The emulator is deterministic, so the before commit's printout is kept in the system's temporary
folder and used again (--fresh: measured again); --only-before measures just that.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "host"))

BEFORE = "035910e"  # loads and scans ahead, passing modules (the start)
SKIP = "idle,ram,real,feel,romfs"

# bench_pico's lockstep row: mode, presses, median, p95, p99, max, 1st p99, 1st max, bus, rest,
# the screen of the max (34 columns), I2C B/press, min free, alloc B/press, calls/press, and
# (not before) the presses answered by the Loading... band and the most of those to their work
ROW = re.compile(
    r"^  (\w+)\s+(\d+)" + r"\s+([\d.]+)" * 8 + r"  (.{34}) +(\d+) +(\d+) +(\d+) +(\d+)"
    r"(?: +(\d+) +([\d.]+))?"
)
BOOT = re.compile(r"^  journal (.+?)\s*: +([\d.]+) ms \((.*)\)")
HEAP = re.compile(r"after boot \(App.start\) (\d+)")


def run(tree, firmware):
    """bench_pico --quick on tree (a checkout's folder) and firmware: its printed lines."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(str(tree / p) for p in ("host", "firmware", "tests"))
    if "DICEPOD_RP2" not in env:
        from dicepod_host.pico import find_rp2

        env["DICEPOD_RP2"] = str(find_rp2(required=True))
    # the tree's own dicepod_host, not the one the virtualenv's editable install finds first
    start = (
        "import runpy, sys; sys.meta_path[:] = [f for f in sys.meta_path"
        " if not type(f).__module__.startswith('__editable__')];"
        " sys.argv = ['tools/bench_pico.py'] + sys.argv[1:]; sys.path.insert(0, 'tools');"
        " runpy.run_path('tools/bench_pico.py', run_name='__main__')"
    )
    cmd = [sys.executable, "-c", start, "--quick", "--firmware", firmware, "--skip", SKIP]
    done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit("bench_pico failed in %s:\n%s%s" % (tree, done.stdout, done.stderr))
    out = done.stdout
    print(out, flush=True)
    return out.splitlines()


def parse(lines):
    """{mode: (median, p99, max, screen of the max, min free)}, [(journal, ms, what)], heap
    after boot."""
    modes, boots, heap = {}, [], None
    for line in lines:
        m = ROW.match(line)
        if m:
            g = m.groups()
            band = "%s, %s" % (g[15], g[16]) if g[15] is not None else "-"
            modes[g[0]] = (float(g[2]), float(g[4]), float(g[5]), g[10].strip(), int(g[12]), band)
            continue
        m = BOOT.match(line)
        if m:
            boots.append((m.group(1), float(m.group(2)), m.group(3)))
            continue
        m = HEAP.search(line)
        if m:
            heap = int(m.group(1))
    return modes, boots, heap


def before_lines(commit, firmware, fresh):
    """bench_pico's lines on the tree of commit (exported), kept for the next run."""
    full = subprocess.run(
        ["git", "rev-parse", commit], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    kept = Path(tempfile.gettempdir()) / "dicepod-bench-issue42" / ("%s-%s.txt" % (full, firmware))
    if kept.is_file() and not fresh:
        return kept.read_text().splitlines()
    with tempfile.TemporaryDirectory(prefix="dicepod-before-") as folder:
        lines = run(export(commit, Path(folder)), firmware)
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text("\n".join(lines) + "\n")
    return lines


def export(commit, into):
    """The tree of commit in the folder into, with this checkout's node_modules."""
    archive = subprocess.run(
        ["git", "archive", commit], cwd=ROOT, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    if (ROOT / "node_modules").is_dir():
        (into / "node_modules").symlink_to(ROOT / "node_modules")
    return into


def section(firmware, old, new):
    """The markdown lines of one firmware's before/after."""
    title = {"stock": "stock firmware", "dicepod": "dicepod's MicroPython (ROMFS) firmware"}
    lines = ["### %s" % title[firmware], ""]
    lines.append(
        "| mode | median ms before / after | p99 ms before / after | max ms before / after "
        "| max after at | lowest free B before / after | band presses, done max ms after |"
    )
    lines.append("|---|---|---|---|---|---|---|")
    for mode, (med, p99, top, at, low, band) in new[0].items():
        b = old[0].get(mode)
        if b is None:
            continue
        lines.append(
            "| %s | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %s | %d / %d | %s |"
            % (mode, b[0], med, b[1], p99, b[2], top, at, b[4], low, band)
        )
    lines += ["", "Boot (power-on to the last I2C byte of the first frame), ms before / after:", ""]
    after = {name: (ms, what) for name, ms, what in new[1]}
    for name, ms, what in old[1]:
        now = after.get(name)
        lines.append(
            "- journal %s: %.1f / %s (%s)"
            % (name, ms, "%.1f" % now[0] if now else "not measured", what)
        )
    lines += [
        "",
        "Heap free after boot (App.start), bytes before / after: %s / %s" % (old[2], new[2]),
    ]
    return lines + [""]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", default=BEFORE)
    parser.add_argument("--firmware", default="stock,dicepod")
    parser.add_argument("--fresh", action="store_true", help="measure the before commit again")
    parser.add_argument("--only-before", action="store_true", help="measure just the before")
    args = parser.parse_args(argv)
    started = time.monotonic()
    lines = []
    for firmware in args.firmware.split(","):
        old = parse(before_lines(args.before, firmware, args.fresh))
        if args.only_before:
            continue
        new = parse(run(ROOT, firmware))
        lines += section(firmware, old, new)
    if args.only_before:
        return 0
    from measurements import record

    note = (
        "Before: `%s` (loads and scans ahead, passing modules); after: this tree (dicepod.ram:"
        " every module kept on dicepod's MicroPython, one mode's code at a time on the stock"
        " firmware). `.venv/bin/python tools/bench_issue42.py`: `tools/bench_pico.py --quick"
        " --firmware stock|dicepod --skip %s` on each tree. A press's figure: from the start of"
        " the loop pass that answers it (the first whose frame differs on CPython) to the last"
        " I2C byte of that pass; where the work reads the flash (a mode's code on the stock"
        " firmware, History's journal, an undo's fold) that pass sends the Loading... band and"
        " the work follows in the next pass (band presses: how many; done: the most of those"
        " from the start of the answering pass to the last I2C byte of the next). Lowest free:"
        " gc.mem_free() after every tick, garbage included." % (args.before, SKIP)
    )
    record("issue 42 before/after", lines, note=note)
    print("(%.0f s of wall time)" % (time.monotonic() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
