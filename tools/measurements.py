"""docs/MEASUREMENTS.md, the one place the project's measured figures live.

Each benchmark owns one section (`## name`) and rewrites only it, stamped with the commit the
figures were measured at (`-dirty` when the tree had uncommitted changes), so a figure can
always be traced to the code it came from. Comments and the README point here instead of
quoting numbers.

    from measurements import record
    record("bench_odds", ["| states | ms/state |", "|---|---|", "| 1,584 | 0.41 |"])
"""

import datetime
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATH = ROOT / "docs" / "MEASUREMENTS.md"

HEADER = """# Measurements

Written by the benchmarks (`./dev bench`, or one `tools/bench_*.py`); each section is replaced
whole by the benchmark named in its title and says the commit it was measured at. Do not edit
by hand: run the benchmark again.
"""


def commit() -> str:
    """The short commit of the tree the figures were measured on, `-dirty` if it had changes."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", "firmware", "host"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("-dirty" if dirty else "")


def record(section: str, lines: list[str], note: str = "") -> Path:
    """Replace (or add) the section `## section` of docs/MEASUREMENTS.md with lines, stamped
    with the commit and the date; sections stay in alphabetical order."""
    text = PATH.read_text() if PATH.exists() else HEADER
    head, _, body = text.partition("\n## ")
    sections = {}
    if body:
        for chunk in re.split(r"\n## ", "## " + body):
            chunk = chunk.removeprefix("## ")
            name, _, rest = chunk.partition("\n")
            sections[name.strip()] = rest.strip("\n")
    stamp = "Measured at `%s` on %s." % (commit(), datetime.date.today().isoformat())
    block = [stamp]
    if note:
        block += ["", note]
    block += [""] + list(lines)
    sections[section] = "\n".join(block)
    out = head.rstrip("\n") + "\n"
    for name in sorted(sections):
        out += "\n## %s\n\n%s\n" % (name, sections[name])
    PATH.parent.mkdir(parents=True, exist_ok=True)
    PATH.write_text(out)
    return PATH
