"""The RAM policy: which of the package's modules stay in RAM. Shell code (imports sys).

dicepod's MicroPython (hardware/micropython) runs the package in place from flash (its ROMFS
partition), where a module's code takes next to no heap: there every screen and every mode's
rules are imported once at start-up (load_all) and stay, so that no press imports code. On the
stock firmware (`dicepod deploy` puts the package on the file system) an import loads the code
into the heap, so a game's mode keeps its code alone there: the shared screens stay once
imported (those a press opens without reading the flash otherwise, at start), and loading a
mode drops the code of the mode loaded before.

- RESIDENT: True where the package runs from flash (every module stays).
- start(): drop any mode's code, before the game in progress loads its own (unless RESIDENT).
- load_all(): import the next of the screens a press opens at once (of every module where
  RESIDENT); the loop calls it once the first frame is out until a press comes.
- load(mode): import mode's rules and screens (another mode's code dropped first, unless
  RESIDENT); return the rules module.
- loaded(mode): True when mode's rules and screens are imported (no code to load).
- release(): drop the loaded mode's code (unless RESIDENT): another mode's settings are shown.
- forget(name): drop one module that is no longer needed (unless RESIDENT).
"""

import sys

from dicepod.rules import modes

# MicroPython looks for a file of the same name on the import path before it takes one of
# these built-in modules at every import statement; registered under their plain names here,
# each import is a lookup in sys.modules.
if sys.implementation.name == "micropython":
    for _name in ("binascii", "hashlib", "json", "os", "select", "time"):
        if _name not in sys.modules:
            try:
                sys.modules[_name] = __import__("u" + _name)
            except ImportError:  # a port without it
                pass

RESIDENT = __file__.startswith("/rom/")

# The screens every mode shares (the rest under dicepod.rules and dicepod.ui is a mode's code).
_SHARED = (
    "dicepod.rules.modes",
    "dicepod.ui.screen",
    "dicepod.ui.draw",
    "dicepod.ui.font6",
    "dicepod.ui.lists",
    "dicepod.ui.menu",
    "dicepod.ui.gamemenu",
    "dicepod.ui.ask",
    "dicepod.ui.settings",
    "dicepod.ui.history",
    "dicepod.ui.historypage",
    "dicepod.ui.message",
    "dicepod.ui.help",
    "dicepod.ui.freemenu",
    "dicepod.ui.turnorder",
    "dicepod.device",
)

# The shared screens a press opens at once (a game's menu, Free roll's, Settings, a question):
# imported at start on every firmware, so that no such press imports code.
_START = ("dicepod.ui.gamemenu", "dicepod.ui.freemenu", "dicepod.ui.settings")

# The mode whose code is loaded (None: none).
_mode = None


def start():
    """Drop any mode's code (unless RESIDENT): the game in progress loads its own."""
    release()


# The modules load_all() has still to import (None: not begun), in the order it takes them.
pending = None


def load_all():
    """Import the next of the screens a press opens at once (where RESIDENT, of every screen
    and every mode's code): one module a call, so that the loop (App.tick, once the first frame
    is out) answers a press between two instead of after them all. Return True while modules
    remain."""
    global pending
    if pending is None:
        pending = []
        pending.extend(_SHARED if RESIDENT else _START)
        if RESIDENT:
            for mode, _title in modes.MODES:
                pending.append(modes.rules_name(mode))
                pending.append("dicepod.ui." + mode)
    if pending:
        __import__(pending.pop(0))
    return bool(pending)


def loaded(mode):
    """True when mode's rules and screens are imported."""
    return modes.rules_name(mode) in sys.modules and "dicepod.ui." + mode in sys.modules


def load(mode):
    """Import mode's rules, then its screens; return the rules module. ValueError for an
    unknown mode, ImportError when its screens are missing."""
    global _mode
    if mode != _mode:
        release()
        _mode = mode
    module = modes.module(mode)
    __import__("dicepod.ui." + mode, None, None, ("open",))
    return module


def release():
    """Drop the loaded mode's code, and any other mode's (unless RESIDENT)."""
    global _mode
    _mode = None
    if RESIDENT:
        return
    dropped = False
    for name in tuple(sys.modules):
        if name.startswith(("dicepod.rules.", "dicepod.ui.")) and name not in _SHARED:
            forget(name)
            dropped = True
    if dropped:
        __import__("gc").collect()  # the code's blocks go before the next mode's load


def forget(name):
    """Drop a module from sys.modules and from its package (unless RESIDENT)."""
    if RESIDENT:
        return
    sys.modules.pop(name, None)
    cut = name.rfind(".")
    parent = sys.modules.get(name[:cut])
    child = name[cut + 1 :]
    if parent is not None and hasattr(parent, child):
        try:
            delattr(parent, child)
        except (AttributeError, TypeError):
            pass
