"""The measuring half of app_replay.py (loaded only with `report`): replays the stream while
printing the live heap after boot, at each MARK (a tick index) and after the session, and the
bytes allocated per button event (gc.mem_alloc deltas, collected before each: mean, median and
most). Portable (MicroPython; CPython has no gc.mem_alloc and prints zeros).
"""

import array
import gc

# Per-press allocation histogram: buckets of this many bytes (the last one holds the rest).
_BUCKET = 32
_BUCKETS = 256


def _alloc():
    return gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0


def run(app, buttons, marks=""):
    """Replay buttons (an iterable of tick bytes) through the started app and print the
    report, after the line "ticks T events E"."""
    marks = tuple(int(m) for m in marks.split(",")) if marks else ()
    if hasattr(gc, "threshold"):
        # The app collects every few KB; a collection inside a press would hide part of what
        # the press allocated from the mem_alloc delta. The 190 KB run needs none.
        gc.threshold(-1)
    gc.collect()
    boot = _alloc()
    keys = app.board.buttons
    histogram = array.array("I", bytes(4 * _BUCKETS))
    presses = total = most = 0
    at_marks = []
    tick = 0
    for code in buttons:
        keys.next = code
        if code:
            gc.collect()
            before = _alloc()
            app.tick(20)
            used = _alloc() - before
            presses += 1
            total += used
            if used > most:
                most = used
            histogram[max(0, min(used // _BUCKET, _BUCKETS - 1))] += 1
        else:
            app.tick(20)
        tick += 1
        if tick in marks:
            gc.collect()
            at_marks.append(_alloc())
    keys.next = 0
    app.tick(20)
    gc.collect()
    end = _alloc()
    print("ticks %d events %d" % (app.session.ms // 20 - 1, app.session.journal.seq))
    print("heap after boot %d" % boot)
    for i in range(len(at_marks)):
        print("heap at mark %d %d" % (i + 1, at_marks[i]))
    print("heap after session %d" % end)
    if presses:
        seen = 0
        median = 0
        for bucket in range(_BUCKETS):
            seen += histogram[bucket]
            if seen * 2 >= presses:
                median = bucket * _BUCKET
                break
        print(
            "allocated per button event: mean %d median %d-%d most %d over %d presses"
            % (total // presses, median, median + _BUCKET - 1, most, presses)
        )
