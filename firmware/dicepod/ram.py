"""The RAM policy: which modules stay loaded, which a game's mode loads, which are dropped.

Shell code (imports sys and gc). Only one mode's code is in RAM at a time (docs/ARCHITECTURE.md,
"RAM"): the modules in _KEEP stay for good; every other module under dicepod.rules and dicepod.ui
belongs to a game mode, or is passed through (_PASSING: the menus, settings, history, messages,
dicepod.device) and is dropped from sys.modules when not in use, so its RAM goes.

- load(mode) imports a mode's rules and then its screens, collecting between the big loads
  (a source import needs its largest function whole: one big load after another leaves the heap
  less fragmented), and returns the rules module.
- mode_loaded() names the mode modules loaded now (what a game opened now keeps: the session
  holds it as kept); unload(kept) drops every mode module but those.
- forget(name) drops one module (the main menu under another screen, the crash module).
- keep_passing(True) keeps the passing screens once loaded (the app sets it on a roomy heap):
  opening a menu, a question or the settings again costs no import (the .mpy loader interns
  every name a module holds, each through a linear search of the names interned so far) and
  the return to the game no collection. A mode's code is dropped as before.
- On a roomy heap, dicepod.ram_ahead loads code ahead in the loop's idle passes (a mode's, or
  the passing screens opened most); its state is here (pending, _dropping), so that unload sees
  a load under way. A small heap never imports it.
"""

import gc
import sys

from micropython import const

# MicroPython looks for a file of the same name on the import path before it takes one of
# these built-in modules (a file may extend them), at every import statement: ~1.8 ms on the
# emulated Pico (six stats of the flash), a dozen times a boot. Their u-names are the built-ins
# themselves (no search): registered under the plain names here, before the other modules'
# imports, each of those is a lookup in sys.modules (~0.04 ms). Not machine: on the PC the
# fake board is a machine.py on the import path (host/dicepod_host/fakeboard), and only the
# board needs it.
if sys.implementation.name == "micropython":
    for _name in ("binascii", "hashlib", "json", "os", "select", "time"):
        if _name not in sys.modules:
            try:
                sys.modules[_name] = __import__("u" + _name)
            except ImportError:  # a port without it
                pass

from dicepod.rules import modes  # noqa: E402  (after the built-ins' names)

# Loaded for good: the screen base, drawing and its 6×8 font (nearly every screen draws with
# it: passed through, it was loaded again 9-14 times a session), the list screens and the mode
# list.
_KEEP = const(
    (
        "dicepod.rules.modes",
        "dicepod.ui.screen",
        "dicepod.ui.draw",
        "dicepod.ui.font6",
        "dicepod.ui.lists",
    )
)

# Passed through on the way (the menus, settings, history, messages, help, Free roll's menu and
# fairness test, Rise of the Orks's start, the device settings): never kept with a mode. The
# first five are the ones a player opens first (dicepod.ram_ahead loads them ahead, on a roomy
# heap).
_PASSING = const(
    (
        "dicepod.ui.gamemenu",
        "dicepod.ui.ask",
        "dicepod.ui.menu",
        "dicepod.ui.settings",
        "dicepod.ui.history",
        "dicepod.ui.historypage",
        "dicepod.ui.message",
        "dicepod.ui.help",
        "dicepod.ui.freemenu",
        "dicepod.ui.turnorder",
        "dicepod.device",
    )
)

# The names of every module _KEEP, _PASSING and a mode's code hold begin with one of these.
_OURS = const(("dicepod.rules.", "dicepod.ui.", "dicepod.device"))

# [the passing screens are dropped when not in use (keep_passing), how many of the first five
# dicepod.ram_ahead has loaded ahead] (shared with dicepod.ram_ahead: no new name interned)
_dropping = [True, 0]
# A mode's code loading ahead (dicepod.ram_ahead): [mode, its loads done, the modules it put
# aside, its loads wanted (1: its rules, 2: and its screens, 3: and their AHEAD module),
# ram_ahead.settle]; empty when none is under way.
pending = []


def keep_passing(keep):
    """Keep the passing screens' modules once imported (keep true: a roomy heap), or drop
    them when not in use (the default)."""
    _dropping[0] = not keep
    _dropping[1] = 0


def forget(name):
    """Drop a module from sys.modules and from its package (its RAM goes when unused); a
    passing screen's stays while they are kept (keep_passing)."""
    if name in _PASSING and not _dropping[0]:
        return
    sys.modules.pop(name, None)
    cut = name.rfind(".")
    parent = sys.modules.get(name[:cut])
    child = name[cut + 1 :]  # (one string made: each searches the interned names)
    if parent is not None and hasattr(parent, child):
        try:
            delattr(parent, child)
        except (AttributeError, TypeError):
            pass


def loaded():
    """Return the names of the loaded modules that belong to a mode or are passed through
    (_PASSING, unless they are kept: keep_passing). (The test inline: a function called a
    name was ~1.5 ms of the ~45 modules on the emulated Pico, and the main menu's cursor
    moving on from a mode loading ahead asks twice: ram_ahead.cursor.)"""
    names = []  # (loops, here and below: a comprehension is a function of its own in RAM)
    dropping = _dropping[0]
    for name in sys.modules:
        # most fail the first test (the firmware's own modules, the drivers, the session)
        if name.startswith(_OURS) and name not in _KEEP and (dropping or name not in _PASSING):
            names.append(name)
    return tuple(names)


def mode_loaded():
    """Return the loaded modules of the current mode (passing screens' left out): what a game
    opened now keeps."""
    names = []
    for name in loaded():
        if name not in _PASSING:
            names.append(name)
    return tuple(names)


def load(mode, settle=False):
    """Import mode's rules, then its screens; return the rules module. ValueError for an
    unknown mode, ImportError when its screens are missing. Collects after a fresh load (the
    loader's garbage goes before the game's objects fill the holes); with settle (a new game)
    also between the two loads, whatever was loaded: one big load after another leaves the
    heap less fragmented (a source import needs its largest function whole). Not on a roomy
    heap (keep_passing): there the threshold's collections (a quarter of the free heap) and
    the idle one after the frame take the garbage, and opening a mode skips two or three full
    collections (~20 ms each on the emulated Pico: Battle Game 243 -> 211 ms, Free roll 102
    -> 90 ms, tools/bench_pico.py)."""
    if settle and _dropping[0]:  # (a roomy heap keeps the passing screens: no settling)
        module = modes.module(mode)
        gc.collect()
        __import__("dicepod.ui." + mode, None, None, ("open",))
        gc.collect()
        return module
    screens = "dicepod.ui." + mode
    fresh = screens not in sys.modules
    module = modes.module(mode)
    __import__(screens, None, None, ("open",))
    if fresh and _dropping[0]:
        gc.collect()
    return module


def unload(kept=(), mode=None):
    """Unload every mode module but kept (the current game's: mode_loaded() when opened), and
    collect when one went, on a small heap (see load; a full collection marks the whole live
    heap: ~20 ms on a Pico, a cost for nothing on the many returns to a game that drop no
    code). A load ahead (dicepod.ram_ahead) of mode is finished and kept (a game of mode
    starts: the modules it put aside go with the old game); one of another mode is given up:
    its modules go, the ones it put aside are back."""
    if pending:  # (a roomy heap: it finishes the load ahead of mode, or gives it up)
        kept = pending[4](kept, mode)  # (ram_ahead.settle: no name of its own interned here)
    dropped = False
    for name in loaded():
        if name not in kept:
            forget(name)
            dropped = True
    if dropped and _dropping[0]:  # (a roomy heap: the threshold's or the idle collection)
        gc.collect()
