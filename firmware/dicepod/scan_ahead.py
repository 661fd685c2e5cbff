"""History's scan of the journal made ahead, while the main menu's cursor rests on History's row.
Shell code (the RAM and time policy on a roomy heap, beside dicepod.ram_ahead, which imports
this the first time the cursor rests there and steps it in the loop's idle passes).

History opens with a scan of the journal's last segments (dicepod.ui.history.scan: each read
from the flash, its lines looked at; 84 ms of the press on the emulated Pico after every mode's
session). Made ahead a segment a pass, History opens in one frame with no busy band. The scan
holds while the journal is as it was when the scan began (its last line's seq and the last
segment's size); a scan that no longer holds is begun again, or made in the press. Given up
(the cursor left the row) or handed over, this module is dropped, its scan with it.
"""

# [the journal, its seq and last segment's size when the scan began, the scan's steps
# (dicepod.ui.history.steps; None once done), its result (None until done)]; empty: none.
_made = []


def _holds(journal):
    """True when the scan under way or made is of journal as it is now."""
    made = _made
    return (
        bool(made)
        and made[0] is journal
        and made[1] == journal.seq
        and (made[2] == journal.seg_size)
    )


def step(journal):
    """Scan one more segment of journal (begin the scan, or begin it again: the journal
    changed). False: more to do; True: done now (its garbage, the segment buffer, goes in a
    later idle pass: dicepod.app.App.tick); None: nothing to do (done before)."""
    made = _made
    if _holds(journal):
        if made[4] is not None:
            return None
    else:
        steps = __import__("dicepod.ui.history", None, None, ("steps",)).steps
        made[:] = [journal, journal.seq, journal.seg_size, steps(journal), None]
    result = next(made[3])
    if result is None:
        return False
    made[3] = None
    made[4] = result
    return True


def scanned(journal):
    """True when the scan of journal is done and holds (History opens without the band)."""
    return _holds(journal) and _made[4] is not None


def take(journal):
    """Hand over the scan of journal (dicepod.ui.history.scan's result; the segments not
    scanned yet are scanned now), or None when none holds. The scan goes either way."""
    made = None
    if _holds(journal):
        made = _made[4]
        if made is None:
            for made in _made[3]:  # noqa: B007  (the last step is the result)
                pass
    del _made[:]
    return made
