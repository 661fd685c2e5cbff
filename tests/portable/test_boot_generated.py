"""Whatever the journal and the settings file hold, the device boots to a usable screen (issue
43, point 2). Generated: seeded random sequences of legal and illegal events and settings
(missing entries, out-of-range values, wrong types, a damaged file, a question pending), written
as a device writes them (journal.Journal, the settings file's bytes), then booted with
dicepod.app.boot: no exception out of it, no crash screen, and the buttons then lead to the
main menu. CASES is bounded for the suite; DICEPOD_BOOT_CASES asks for a longer run (e.g.
`DICEPOD_BOOT_CASES=500 pytest tests/portable/test_boot_generated.py`). Portable: CPython
and real MicroPython."""

import os

from app_board import BACK, DOWN, OK, Board, LineStorage, press, top
from seeded import Seeded

from dicepod import journal

CASES = int(os.getenv("DICEPOD_BOOT_CASES") or 12)
MODES = (("battle", "battle"), ("orks", "orks"), ("tyranid", "tyranid"), ("tests", "tn"))


def _settings_bytes(rng, module):
    """A settings file as a device may hold it: real keys with values in range, out of range,
    of the wrong type, or the bytes cut short."""
    specs = list(module.SETTINGS)
    parts = []
    for _ in range(rng.randbelow(6)):
        spec = specs[rng.randbelow(len(specs))]
        pick = rng.randbelow(5)
        if pick == 0:
            value = "null"
        elif pick == 1:
            value = str(spec[3] + 1 + rng.randbelow(50))  # out of range
        elif pick == 2:
            value = '"x"'
        else:
            value = str(spec[2] + rng.randbelow(spec[3] - spec[2] + 1))
        parts.append('"%s": %s' % (spec[0], value))
    data = ("{" + ", ".join(parts) + "}\n").encode()
    if rng.randbelow(6) == 0:
        data = data[: rng.randbelow(len(data) + 1)]  # a write cut short
    return data


def _event(rng, module, game):
    """A legal move of the game's own commands when one comes to hand, else an event that
    may be illegal: a known kind with random data, or a setting out of range."""
    pick = rng.randbelow(4)
    specs = list(module.SETTINGS)
    if pick == 0:
        spec = specs[rng.randbelow(len(specs))]
        value = (None, spec[2] - 1, spec[3] + 1, spec[2], spec[3])[rng.randbelow(5)]
        return ("set", (spec[0], value))
    if pick == 1:
        kinds = ("start", "next", "move", "attack", "roll", "actions", "advance", "end_turn")
        kind = kinds[rng.randbelow(len(kinds))]
        return (kind, tuple(rng.randbelow(7) for _ in range(rng.randbelow(7))))
    from dicepod.rules import battle, orks, tyranid

    if module is battle:
        return battle.roll(game, rng.randbelow) if game.phase == battle.ROLL else battle.bust()
    if module is orks:
        return ("start", (rng.randbelow(4),)) if game.phase == orks.SETUP else ("next", ())
    if module is tyranid:
        if game.phase == tyranid.SETUP:
            return ("start", (1 + rng.randbelow(3), 0, 0, 1, 2, 3))
        return tyranid.place(game, rng.randbelow) if game.phase == tyranid.PLACING else ("next", ())
    return ("roll", tuple(1 + rng.randbelow(6) for _ in range(1 + rng.randbelow(4))))


def _written(seed):
    """A storage as a device leaves it after a random game and random settings."""
    rng = Seeded(seed)
    mode, name = MODES[rng.randbelow(len(MODES))]
    module = __import__("dicepod.rules." + name, None, None, ("Game",))
    storage = LineStorage()
    storage.save_settings(_settings_bytes(rng, module))
    log = journal.Journal(storage, lambda: "00000000000000b0")
    log.recover()
    log.append(0, ("new_game", (mode,)))
    game = module.Game(None)
    for i in range(rng.randbelow(25)):
        event = _event(rng, module, game)
        try:
            game.apply(event)
        except Exception:  # (an illegal event: a device never writes one, a bad flash may)
            if rng.randbelow(3):
                continue
        try:
            log.append(10 * i, event)
        except ValueError:  # the journal itself refuses it: no device writes it
            pass
    return storage


def _boots(seed):
    from dicepod.app import boot

    storage = _written(seed)
    app = boot(Board(storage=storage, seed=seed, strict=False))
    assert app.stack and top(app) != "CrashScreen", (seed, top(app), app.stack[-1].__dict__)
    app.redraw()
    for button in (DOWN, OK, BACK, BACK, BACK, BACK):
        press(app, button)
        while top(app) == "AskValue":  # a question pending: answered or left
            press(app, BACK)
    assert top(app) != "CrashScreen", (seed, app.stack[-1].__dict__)
    guard = 0
    while len(app.stack) > 1 and guard < 10:
        press(app, BACK)
        guard += 1
    assert top(app) == "MainMenu", (seed, top(app))


def test_any_journal_and_settings_boot_to_a_usable_screen():
    import gc

    for seed in range(1, CASES + 1):
        gc.collect()  # the last case's app is garbage: a Pico-sized heap holds one
        _boots(seed)
