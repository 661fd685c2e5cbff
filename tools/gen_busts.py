"""Write firmware/dicepod/rules/busts.py: the Battle Game's bust counts as tables, which
dicepod.rules.odds looks up instead of counting (a keep hint weighs up to 63 choices of dice to
keep, and counting them all on a Pico took longer than the press that shows the hint may).

    .venv/bin/python tools/gen_busts.py           (writes the module)
    .venv/bin/python tools/gen_busts.py --check   (exit 1 if the module is not what it writes)

A bust count depends on the kept dice only through "loose" (the kept dice count towards a
scoring roll: the setting kept_can_score, or nothing kept), and each face 1..5's kept count
up to 2. A kept 6, or three of a kind kept, makes a loose roll safe (odds checks that before
looking up); otherwise more than two of a face act as two: that face can make no triple with
rolled dice that two kept would not, and it is present for the straights either way. Such a
state is its code, the base-3 number of the kept counts of faces 1..5 (face 1 the lowest
digit), and m, the dice re-rolled: m is at most 6 less the code's digits (the dice kept are at
least as many). The module holds two tables of little-endian uint16:
- ROWS, 243 of them: where each code's counts start in COUNTS (in entries);
- COUNTS: for each loose (0, then 1; 322 entries each) the codes in order, each the counts of
  m = 1, 2, ... up to its most (each at most 6**6 = 46656).
So the count of (loose, code, m) is entry loose * 322 + ROWS[code] + m - 1 of COUNTS: 1,774
bytes in all, where a table of every code and m would be 5,832 (heap on the stock build,
which loads the module into RAM). tests/portable/test_odds.py checks every reachable state
against rolls counted one by one.
"""

import sys
from math import factorial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "firmware" / "dicepod" / "rules" / "busts.py"
PER_LOOSE = 322  # the states of one loose: codes with their m


def bust_count(m, kept, loose):
    """How many of the 6**m ordered rolls of m dice bust next to kept counts kept[1..5] (no 6
    kept, none over 2), loose as above: over the multisets that can bust (no 6, at most 2 - kept
    of each face), each weighted by its orderings m! / (c1! .. c5!)."""
    total = 0
    limits = [2 - kept[f] for f in range(1, 6)]

    def walk(face, left, rolled):
        nonlocal total
        if face == 6:
            if left:
                return
            present = [False] + [bool(rolled[f] or kept[f]) for f in range(1, 6)]
            for a in (1, 2, 3):
                run = (a, a + 1, a + 2)
                if all(present[f] for f in run) and (loose or any(rolled[f] for f in run)):
                    return  # a straight that uses a rolled die (or any, when loose)
            ways = factorial(m)
            for f in range(1, 6):
                ways //= factorial(rolled[f])
            total += ways
            return
        for c in range(min(limits[face - 1], left) + 1):
            rolled[face] = c
            walk(face + 1, left - c, rolled)
        rolled[face] = 0

    walk(1, m, [0] * 6)
    return total


def _digits(code):
    """The kept counts [_, k1..k5] of a code."""
    kept = [0] * 6
    for f in range(1, 6):
        kept[f] = code % 3
        code //= 3
    return kept


def tables():
    """(ROWS, COUNTS) as bytes, as described above."""
    rows = bytearray()
    counts = bytearray()
    at = 0
    for code in range(243):
        rows += at.to_bytes(2, "little")
        at += max(0, 6 - sum(_digits(code)))
    assert at == PER_LOOSE
    for loose in (0, 1):
        for code in range(243):
            kept = _digits(code)
            for m in range(1, 7 - sum(kept)):
                counts += bust_count(m, kept, loose).to_bytes(2, "little")
    return bytes(rows), bytes(counts)


def _literal(name, data):
    lines = ["%s = (" % name]
    for i in range(0, len(data), 22):
        lines.append("    b'%s'" % "".join("\\x%02x" % b for b in data[i : i + 22]))
    return lines + [")"]


def source():
    """The module's text."""
    rows, counts = tables()
    lines = [
        '"""The Battle Game\'s bust counts, looked up by dicepod.rules.odds (see there): ROWS,',
        "where each kept code's counts start in COUNTS. Written by tools/gen_busts.py (its",
        "docstring says the layout): do not edit; run it again. Pure data: runs unchanged on",
        'MicroPython and CPython."""',
        "",
        "from micropython import const",
        "",
        "PER_LOOSE = const(%d)  # COUNTS' entries for each value of loose" % PER_LOOSE,
        "",
        "# fmt: off",
    ]
    lines += _literal("ROWS", rows) + _literal("COUNTS", counts)
    lines += ["# fmt: on", ""]
    return "\n".join(lines)


def main(argv):
    text = source()
    if "--check" in argv:
        if TARGET.read_text() != text:
            print("%s is stale: run tools/gen_busts.py" % TARGET.relative_to(ROOT))
            return 1
        return 0
    TARGET.write_text(text)
    rows, counts = tables()
    print("wrote %s (%d bytes of tables)" % (TARGET.relative_to(ROOT), len(rows) + len(counts)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
