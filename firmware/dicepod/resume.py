"""Resume the game in progress from a checkpoint: the game saved whole in a quiet while (the
side file "game"), or sooner once so many events came since that a power-on's fold would grow
long (dicepod.app's _OVERDUE_EVENTS: after a moment with no finger on a button), so that a
power-on folds only the events after it, not the whole game, and boots in a time flat in the
game's length.

The journal stays the truth: a checkpoint is used only when it names the journal, the game,
the undos and the line after it as they are on the flash (its seq and the chain hash that
line follows), and its own checksum is right; anything else, a torn write included, is passed
over and the game is folded from its first event. An undo made after the checkpoint folds
from the start (it may reach behind it), and so does the first undo after a power-on
(Session.undo has no game one event behind then).

Its state is the game's attributes that differ from a new game's of the same rules, as JSON:
numbers, strings, True/False/None and lists as they are; a tuple as {"t": [...]}, a bytearray
as {"a": "hex"}, bytes as {"y": "hex"}; an object the rules made (a Bag, a Deck, the
Settings) as {"o": {...}} of its own attributes, into the new game's object of that name. A
value of any other kind, or a state that does not read back to itself, makes no checkpoint.

On both builds. Where the code loads into the heap (the stock build) Session.refold imports
this module only when a checkpoint is on the flash, and the first quiet while with a game
imports it for good (a few KB, and its names take the interned names' seventh pool:
tests/test_pico_sessions.py).
"""

import binascii
import json

from micropython import const

from dicepod import ram
from dicepod.journal import crc_tail, decode
from dicepod.settings import Settings

NAME = "game"  # the side file
EVERY = const(40)  # a checkpoint is due this many of the game's events after the last (and
# is written after a quiet while without a press, App.tick)


def _enc(value):
    t = type(value)
    if t is tuple:
        return {"t": [_enc(v) for v in value]}
    if t is list:
        return [_enc(v) for v in value]
    if t is bytearray:
        return {"a": binascii.hexlify(value).decode()}
    if t is bytes:
        return {"y": binascii.hexlify(value).decode()}
    if value is None or t is bool or t is int or t is str:
        return value
    raise ValueError("cannot save %s" % t.__name__)


def decoded(data):
    if type(data) is list:
        return [decoded(v) for v in data]
    if type(data) is dict:
        if "t" in data:
            return tuple([decoded(v) for v in data["t"]])
        if "a" in data:
            return bytearray(binascii.unhexlify(data["a"]))
        return bytes(binascii.unhexlify(data["y"]))
    return data


def pack(obj, fresh):
    """The attributes of obj that differ from fresh's (an object of the same class, as made
    new), as JSON values (see the module docstring)."""
    out = {}
    for key in obj.__dict__:
        value = obj.__dict__[key]
        was = fresh.__dict__.get(key)
        if value is was:
            continue
        if hasattr(value, "__dict__") and type(was) is type(value):
            inner = pack(value, was)
            if inner:
                out[key] = {"o": inner}
        elif not (type(was) is type(value) and was == value):
            out[key] = _enc(value)
    return out


def restore(obj, data):
    """Set obj's attributes from pack()'s data (obj: an object of the same class, new)."""
    for key in data:
        value = data[key]
        if type(value) is dict and "o" in value:
            restore(getattr(obj, key), value["o"])
        else:
            setattr(obj, key, decoded(value))


def _new(game):
    return type(game)(Settings(game.settings.specs))


def write(session, latched=None):
    """Write the checkpoint of session's game when one is due (EVERY events since the last,
    every line on the flash); return False when none was written (none due, no game, a state
    it cannot save, a flash that could not take it, or a press latched() has, asked before the
    flash is written: a press waits for no erase)."""
    game = session.game
    journal = session.journal
    if game is None or session.pending or journal.pending or not journal.seg:
        return False
    if session.unsaved() < EVERY:
        return False
    length = journal.game_length
    try:
        fresh = _new(game)  # (pack reads it, never changes it)
        state = pack(game, fresh)
        copy = _new(game)
        restore(copy, state)
        if pack(copy, fresh) != state:  # it must read back to itself
            return False
        text = json.dumps(
            {"k": session.last_kind, "e": _enc(session.last_event), "g": state}
        ).encode()
        head = (
            "%s %d %d %s %d %d %d %d %d %d %s\n"
            % (
                journal.id,
                journal.seq,
                journal.game,
                journal.prev,
                journal.seg,
                journal.seg_size,
                length,
                journal.game_undos,
                session.moves,
                session.trailing,
                session.mode,
            )
        ).encode()
        body = head + text
        if latched is not None and latched():
            return False
        # (short of memory or of flash, there is no checkpoint: the game is folded from its
        # first event, or from the last checkpoint, which the side file's checksum vouches for)
        journal.storage.write(NAME, [body, crc_tail(body)])
    except (ValueError, TypeError, AttributeError, MemoryError, OSError):
        return False
    session.saved = (journal.game, journal.game_undos, length)
    return True


def load(session):
    """The game in progress from the checkpoint when it agrees with the journal (see the
    module docstring): (mode, game, its events after the checkpoint, moves, trailing, last
    kind, last event) for Session.refold to go on from; None: fold the game from its first
    event."""
    journal = session.journal
    try:
        data = b"".join(journal.storage.lines(NAME))
        cut = data.rfind(b" ")
        if cut < 0 or crc_tail(data[:cut]) != data[cut:]:
            return None
        end = data.find(b"\n")
        fields = data[:end].decode().split(" ")
        seq = int(fields[1])
        seg = int(fields[4])
        offset = int(fields[5])
        length = int(fields[6])
        if (
            fields[0] != journal.id
            or int(fields[2]) != journal.game
            or int(fields[7]) != journal.game_undos
            or length > journal.game_length
            or seq > journal.seq
        ):
            return None
        prev = fields[3]
        if seq == journal.seq:
            if prev != journal.prev:
                return None
        else:  # the line after it follows it on the flash
            for line in journal.storage.lines(seg, offset):
                after = decode(line)[0]  # (seq, game, ms, event, prev)
                if after[0] != seq + 1 or after[4] != prev:
                    return None
                break
            else:
                return None
        saved = json.loads(data[end + 1 : cut])
        module = ram.load(fields[10])  # its screens' code too
        game = module.Game(Settings(module.SETTINGS))
        restore(game, saved["g"])
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError, ImportError):
        return None
    session.saved = (journal.game, journal.game_undos, length)
    # (the journal's own reading of the game's lines: damaged ones left out)
    events = journal._game_entries(journal.game_length - length, seg, offset)
    return (
        fields[10],
        game,
        events,
        int(fields[8]),
        int(fields[9]),
        saved["k"],
        decoded(saved["e"]),
    )
