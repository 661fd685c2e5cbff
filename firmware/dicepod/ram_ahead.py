"""The RAM policy on a roomy heap: code loaded ahead, in the loop's idle passes. Shell code.

Imported by the app's first idle pass, and only where App.start found a roomy heap (128 KB or
more free: a Pico's; dicepod.ram.keep_passing), so that a small heap does not hold this code.

- start(mode, count): start loading mode's code ahead: its rules, then (count 2) its screens.
  The player is asked whether to end the game in progress for a game of mode, and reads the
  question for longer than the loads take; or the Settings list's cursor rests on mode's row
  (cursor: count 1, its settings are in its rules). The old mode's modules are put aside (out of
  sys.modules, so that the new mode loads its own copy of a module both use), not dropped:
  dicepod.ram.unload puts them back (the question was declined, the cursor moved on), or lets
  them go for mode (a game of mode starts, or its settings open: settle).
- step(): one load a pass (~40-110 ms each on the emulated Pico): the rules, the screens,
  and the module named by the screens' AHEAD, if they have one (a passing module they import
  later: Rise of the Orks's start, its first question 53 -> 33 ms; Free roll's menu). A game
  that starts before that last load leaves it to the idle passes after its frame (settle).
  With none under way, the next of the passing screens opened most (a game's menu, a
  question, the main menu, the settings, the history: _WARM, the first of dicepod.ram's
  passing screens), so that even their first open imports nothing (a game's menu opened in
  67 ms, a question in 68 ms; History 100 -> 86 ms).
"""

import sys

from micropython import const

from dicepod import ram
from dicepod.rules import modes

# The passing screens opened most, the first five of dicepod.ram's (a game's menu, a question,
# the main menu, the settings, the history), in that order.
_WARM = const(
    (
        "dicepod.ui.gamemenu",
        "dicepod.ui.ask",
        "dicepod.ui.menu",
        "dicepod.ui.settings",
        "dicepod.ui.history",
    )
)

# History's scan made ahead (history()): [the journal the main menu's cursor on History's row
# asks it of, dicepod.scan_ahead once imported]; empty: none asked.
_scan = []

# The module a game's screens name as AHEAD, when their game started before it was loaded
# ahead (settle): loaded in the idle passes after the game's first frame, not in its press.
_later = []


def start(mode, count=2):
    """Start loading mode's code ahead (count 1: its rules alone); one load at a time."""
    if not ram._dropping[0] and not ram.pending:
        ram.pending.extend((mode, 0, {}, count, settle))


def cursor(mode, current, kept, count=1):
    """The Settings list's cursor is on mode's row (None: on none; current: the game in
    progress's mode, kept: its modules): its rules load ahead, so that its settings open
    without the import (the Battle Game's from a Rise of the Orks game: 131 -> 47 ms on the
    emulated Pico); or (count 2) the main menu's, with no game in progress: its rules and
    screens. A load ahead of another mode is given up (its old modules are back)."""
    pending = ram.pending
    if pending and pending[0] != mode:
        ram.unload(kept)
    if mode is not None and mode != current:
        start(mode, count)


def history(journal):
    """The main menu's cursor is on History (journal: the session's) or not (None): History's
    scan of the journal is made ahead (dicepod.scan_ahead, imported by the next idle pass), a
    segment a pass once nothing else is loading (step). Given up or handed over, the scan
    goes, and its module with it (the RAM is as it was)."""
    if journal is not None:
        if _scan:
            _scan[0] = journal
        else:
            _scan.append(journal)
    elif _scan:
        del _scan[:]
        ram.forget("dicepod.scan_ahead")


def scanned(journal):
    """True when History's scan of journal was made ahead and still holds."""
    return len(_scan) > 1 and _scan[1].scanned(journal)


def scan(journal):
    """Hand over History's scan of journal made ahead (dicepod.scan_ahead.take), or None.
    History opens: the cursor has left its row."""
    made = _scan[1].take(journal) if len(_scan) > 1 else None
    history(None)
    return made


def step():
    """Do one load of the mode started ahead, or of the next passing screen opened most not
    loaded yet, or one segment of History's scan ahead. True when a mode's load or the scan was
    done (the app collects in a later idle pass), False for other work, None for none."""
    pending = ram.pending
    if not pending or pending[1] >= pending[3]:
        if _later:  # a game's screens' AHEAD, left by settle
            name = _later.pop()
            if name not in sys.modules:
                __import__(name)
                return False
        dropping = ram._dropping
        while not dropping[0] and dropping[1] < len(_WARM):
            name = _WARM[dropping[1]]
            dropping[1] += 1
            if name not in sys.modules:
                # (False: no idle collection after it, App.tick. Its little garbage can
                # wait; a collection here left the next allocations searching the holes it
                # made: the main menu's idle passes 1.4 -> 2.1 % of cycles awake)
                __import__(name)
                return False
        if _scan:  # History's scan ahead (history)
            if len(_scan) == 1:
                _scan.append(__import__("dicepod.scan_ahead", None, None, ("step",)))
                return False
            return _scan[1].step(_scan[0])
        return None
    mode = pending[0]
    done = pending[1]
    if not done:
        aside = pending[2]
        for name in ram.mode_loaded():
            aside[name] = sys.modules[name]
            ram.forget(name)
        modes.module(mode)
    elif done == 1:
        screens = __import__("dicepod.ui." + mode, None, None, ("open",))
        if hasattr(screens, "AHEAD"):
            pending[3] += 1  # (one more load: the passing module they import later)
    else:
        __import__(sys.modules["dicepod.ui." + mode].AHEAD)
    pending[1] += 1
    return True


def settle(kept, mode):
    """For dicepod.ram.unload with a load ahead under way: one of mode is finished and kept
    (its modules returned, to be kept: the ones it put aside go with the old game); one of
    another mode is given up (its modules go, the ones it put aside are back; kept
    returned)."""
    pending = ram.pending
    if pending[0] == mode:
        while pending[1] < 2 and pending[1] < pending[3]:
            step()
        if pending[1] < pending[3]:  # the screens' AHEAD: in the idle passes after the frame
            _later.append(sys.modules["dicepod.ui." + mode].AHEAD)
        del pending[:]
        return ram.mode_loaded()
    aside = pending[2]
    del pending[:]
    for name in ram.mode_loaded():
        ram.forget(name)
    for name in aside:
        sys.modules[name] = aside[name]
        cut = name.rfind(".")
        setattr(sys.modules[name[:cut]], name[cut + 1 :], aside[name])
    return kept
