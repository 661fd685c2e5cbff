"""The PC's half of the USB protocol: read and check the device's lines, chain hashes, write
the PC's commands (dicepod.protocol has the protocol's description and the device's half).

Pure, and portable like the rest of the core (the tests run it under MicroPython too), but the
device never imports it: on a Pico a module's code is loaded into RAM, and these checks are
only the PC's. `dicepod deploy` leaves it off the device (PC_ONLY in dicepod_host.deploy).
"""

import json

from micropython import const

from dicepod import journal
from dicepod.protocol import COMMANDS, VERSION, _crc, _event_prefix, _finish

# Longest device line the PC accepts: room for the longest event with a margin.
MAX_LINE = 1024
# Bounds of the numbers a device sends, far above anything a device lives to count: a journal's
# seqs, the milliseconds since boot, a ping token and a Unix time.
MAX_SEQ = 4294967295
MAX_MS = 4398046511104
MAX_NUMBER = 1099511627776
# The longest firmware version a hello line carries.
_MAX_FW = const(32)
_HEX = const("0123456789abcdef")


def encode_event(dev, seq, game, ms, event, prev, jid=""):
    """Return the protocol line (bytes) for one event (jid "": a version 1 line)."""
    return _finish(_event_prefix(dev, seq, game, ms, journal.canonical(event), prev, jid))


def command(name, arg=None):
    """Return a PC command line: command("hello"), command("since", 17), command("ping", 3)."""
    if name not in COMMANDS:
        raise ValueError("unknown command")
    if arg is None:
        return (name + "\n").encode()
    if not isinstance(arg, int) or type(arg) is bool or arg < 0:
        raise ValueError("bad argument")
    return ("%s %d\n" % (name, arg)).encode()


def _is_hash(value):
    if not isinstance(value, str) or len(value) != 8:
        return False
    for ch in value:
        if ch not in _HEX:
            return False
    return True


def _is_int(value):
    return isinstance(value, int) and type(value) is not bool


def _bounded(obj, key, low, high):
    """Raise ValueError unless obj[key] is an int in low..high."""
    value = obj.get(key)
    if not _is_int(value) or not low <= value <= high:
        raise ValueError("bad %s" % key)


def _is_dev(value):
    if not isinstance(value, str) or not 0 < len(value) <= 32:
        return False
    for ch in value:
        if ch not in journal.NAME_CHARS:
            return False
    return True


def parse(line):
    """Parse one device line (bytes or str, line end optional) into a dict; raise ValueError.

    An event dict has "event" as a (kind, data tuple) pair and its checksum checked.
    """
    if isinstance(line, str):
        line = line.encode()
    if len(line) > MAX_LINE:
        raise ValueError("line too long")
    line = line.strip()
    if not line.startswith(b"{") or not line.endswith(b"}"):
        raise ValueError("not a protocol line")
    try:
        obj = json.loads(line)
    except (ValueError, UnicodeError):
        raise ValueError("malformed JSON")
    if not isinstance(obj, dict):
        raise ValueError("not a protocol line")
    version = obj.get("v")
    if version not in (1, VERSION) or type(version) is bool:
        raise ValueError("unsupported version")
    if not _is_dev(obj.get("dev")):
        raise ValueError("bad device id")
    if version == 1:
        if "jid" in obj:
            raise ValueError("unexpected keys")
    elif not _is_jid(obj.get("jid")):
        raise ValueError("bad journal id")
    kind = obj.get("type")
    if kind == "event":
        return check_event_dict(obj)
    # Every number is bounded and every field checked: the logger acknowledges and loops by
    # these lines, so one forged or garbled line must not reach it.
    if kind in ("hello", "pong", "end", "repl"):
        _bounded(obj, "seq", 0, MAX_SEQ)
        if kind == "hello":
            fw = obj.get("fw")
            if not isinstance(fw, str) or len(fw) > _MAX_FW or fw.strip(journal.NAME_CHARS):
                raise ValueError("bad fw")
            if not _is_hash(obj.get("head")):
                raise ValueError("bad head")
        if kind in ("hello", "pong"):
            _bounded(obj, "ms", 0, MAX_MS)
        if kind == "pong":
            _bounded(obj, "token", 0, MAX_NUMBER)
    elif kind == "break":
        _bounded(obj, "from", 1, MAX_SEQ)
        _bounded(obj, "to", 0, MAX_SEQ)  # (to = from - 1: damage that cost no event)
        if obj["to"] < obj["from"] - 1 or not _is_hash(obj.get("prev")):
            raise ValueError("bad break")
    elif kind == "time":
        _bounded(obj, "ms", 0, MAX_MS)
        _bounded(obj, "epoch", 0, MAX_NUMBER)
    elif kind == "error":
        message = obj.get("error")
        if not isinstance(message, str) or len(message) > 64:
            raise ValueError("bad error")
    else:
        raise ValueError("unknown line type")
    obj["jid"] = obj.get("jid", "")
    return obj


def _is_jid(value):
    if not isinstance(value, str) or len(value) != 16:
        return False
    return _is_hash(value[:8]) and _is_hash(value[8:])


def check_event_dict(obj):
    """Check a decoded event line (a dict, "event" as [kind, data]); return it with "event" as
    a (kind, data tuple) pair. Raise ValueError for a bad field or a wrong checksum."""
    for key in ("seq", "game", "ms"):
        value = obj.get(key)
        if not _is_int(value) or value < 0:
            raise ValueError("bad %s" % key)
    if obj["seq"] < 1:
        raise ValueError("bad seq")
    raw = obj.get("event")
    if not isinstance(raw, list) or len(raw) != 2 or not isinstance(raw[1], list):
        raise ValueError("malformed event")
    event = (raw[0], tuple(raw[1]))
    journal.check_event(event)
    if not _is_hash(obj.get("prev")) or not _is_hash(obj.get("crc")):
        raise ValueError("bad hash field")
    jid = obj.get("jid", "")
    if len(obj) != (10 if jid else 9) or (jid and not _is_jid(jid)):
        raise ValueError("unexpected keys")
    canon = journal.canonical(event)
    prefix = _event_prefix(obj["dev"], obj["seq"], obj["game"], obj["ms"], canon, obj["prev"], jid)
    if "%08x" % _crc(prefix) != obj["crc"]:
        raise ValueError("checksum mismatch")
    obj["event"] = event
    obj["jid"] = jid
    obj["canon"] = canon  # the event's canonical bytes, kept for chain_hash
    return obj


def chain_hash(obj):
    """Return the chain hash of a parsed event (what the next event's prev must be)."""
    canon = obj.get("canon") or journal.canonical(obj["event"])
    body = journal.body_bytes(obj["seq"], obj["game"], obj["ms"], obj["prev"], canon)
    return journal.chain_hash(body)
