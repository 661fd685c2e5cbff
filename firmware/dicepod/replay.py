"""One replay path: how a game's journalled events become its state.

Pure: runs unchanged on MicroPython and CPython. The device's journal and session, and the PC's
verify, results and stats, all take these from here:

- The undo rule, keep(kinds). `("undo", ())` cancels the last effective event of the game
  before it, never the game's `new_game`; an undo with nothing left to cancel is ignored (it
  does not cancel a later event). The journal streams a game from the flash through it (one
  byte an event); journalfix.effective (tools, tests) and the PC's verify.effective_pairs
  apply it to a list.
- APP_EVENTS: the events the app writes for itself (crash records; a quick roll made from a
  game's menu, dicepod.ui.gamemenu; "lost", the journal's chained
  mark of a break: events lost to flash damage, dicepod.journalfix). They are not moves: a fold
  steps over them (an undo cancels them like any event: the session writes one undo per crash
  record after the last move).
- step(game, event): fold one effective event into a rules Game (False for an app event,
  stepped over). An illegal event raises what Game.apply raises, ValueError (MissingValue for
  a value the player has not entered), and leaves the game as it was (the rules' contract,
  tests/portable/test_replay.py): the app keeps its game after an illegal move, the PC names
  the event.
"""

# The app's own events (see the module docstring).
APP_EVENTS = ("crash", "lost", "quick")


def keep(kinds):
    """Apply the undo rule to one game's raw events, given their kinds in order (any iterable);
    return a bytearray, one byte an event: 1 for an effective event, 0 for an undo or an event
    an undo cancelled."""
    marks = bytearray()
    for kind in kinds:
        marks.append(1 if kind == "undo" else 2 if kind == "new_game" else 0)
    # Backwards: an event is cancelled while undos to its right are pending.
    pending = 0
    i = len(marks) - 1
    while i >= 0:
        mark = marks[i]
        if mark == 1:
            pending += 1
            marks[i] = 0
        elif mark == 2:
            marks[i] = 1
        elif pending:
            pending -= 1
        else:
            marks[i] = 1
        i -= 1
    return marks


def step(game, event):
    """Fold one effective event into game (a rules Game): True when folded, False for one of
    the app's own events (stepped over). An illegal event raises (see the module docstring)."""
    if event[0] in APP_EVENTS:
        return False
    game.apply(event)
    return True
