"""The USB line protocol between a dicepod and the PC. Pure: used by the device (drivers/usb.py)
and by the PC (dicepod_host), on MicroPython and CPython alike.

Device -> PC: JSON Lines, one object per line, keys always in this order (written by hand:
MicroPython dicts are unordered, and the checksum covers the bytes):

    {"v":2,"type":"event","dev":"e6614c311b7a2f35","jid":"9f0c2a4d7e1b3c55","seq":17,
     "game":3,"ms":120467,"event":["roll",[3,1,6,6,2,5]],"prev":"5be0c2a1","crc":"1f0b9c2e"}

    v      protocol version (VERSION; version 1 lines, without jid, are still read)
    dev    the device id (hex from the Pico's unique id)
    jid    the journal's identity (dicepod.journal: random, made when the journal was created;
           a wiped or re-flashed device has a new one). Events are unique on (dev, jid, seq)
    seq    journal sequence number (1, 2, ... over the journal)
    game   game id (+1 at each new_game)
    ms     milliseconds since boot when the event happened
    event  [kind, data]: the event's canonical form, dice values included
    prev   chain hash of the previous event (dicepod.journal: 8 hex digits of SHA-256 over the
           previous journal line's body, which holds its own prev: a chain)
    crc    CRC-32 of this line's bytes before `,"crc":` (8 hex digits)

Other device lines (no crc; they carry no game data):

    {"v":2,"type":"hello","dev":D,"jid":J,"fw":"1.28.0","seq":N,"head":H,"ms":M}  hello
    {"v":2,"type":"pong","dev":D,"jid":J,"seq":N,"ms":M,"token":T}        answer to ping
    {"v":1,"type":"time","dev":D,"ms":M,"epoch":E}                         answer to time
    {"v":2,"type":"end","dev":D,"jid":J,"seq":N}    a back-fill (since) has been sent up to N
    {"v":2,"type":"break","dev":D,"jid":J,"from":F,"to":T,"prev":P}  events F..T were lost
                          to flash damage; the chain resumes at T+1, whose prev is P
    {"v":1,"type":"repl","dev":D,"seq":N}           the app stops for the REPL (see below)
    {"v":1,"type":"error","dev":D,"error":"unknown command"}               anything else

PC -> device: a small fixed set of ASCII lines. Nothing received is ever executed; anything
else (or a line longer than MAX_COMMAND) gets an error line and is otherwise ignored.

    hello | identify      who are you, what is your last seq and chain head
    since N               send every journal event with seq > N, then an end line
    ping [T]              liveness; T an int echoed back (0 when absent)
    time E                the PC's Unix time in seconds, for wall-clock times of events
    ack N                 the PC has stored events 1..N of the journal hello named (the
                          device may delete them when its flash is full)
    repl                  hand the USB line over to MicroPython's REPL (for `dicepod deploy`):
                          the app answers with a repl line once the journal is safe, stops,
                          and Ctrl-C works again
"""

import binascii
import json

from micropython import const

from dicepod import journal

VERSION = 2
# Longest command line the device accepts (bytes, without the line end).
MAX_COMMAND = 64
# Longest device line the PC accepts (an event with 32 values is about 300 bytes).
MAX_LINE = 1024
_HEX = const("0123456789abcdef")
_COMMANDS = const(("hello", "identify", "since", "ping", "time", "ack", "repl"))


def _crc(prefix):
    return binascii.crc32(prefix) & 0xFFFFFFFF


def _finish(prefix):
    return prefix + (',"crc":"%08x"}\n' % _crc(prefix)).encode()


def _head(kind, dev, jid):
    """The start of a line: version 2 with a journal id, version 1 without."""
    if jid:
        return '{"v":2,"type":"%s","dev":"%s","jid":"%s"' % (kind, dev, jid)
    return '{"v":1,"type":"%s","dev":"%s"' % (kind, dev)


def _event_prefix(dev, seq, game, ms, canon, prev, jid=""):
    return (
        (
            _head("event", dev, jid) + ',"seq":%d,"game":%d,"ms":%d,"event":' % (seq, game, ms)
        ).encode()
        + canon
        + (',"prev":"%s"' % prev).encode()
    )


def encode_event(dev, seq, game, ms, event, prev, jid=""):
    """Return the protocol line (bytes) for one event (jid "": a version 1 line)."""
    return _finish(_event_prefix(dev, seq, game, ms, journal.canonical(event), prev, jid))


def event_line(dev, journal_line, jid=""):
    """Return the protocol line for a journal line (device side: no JSON parsing).

    Raise ValueError for a line that is not a complete journal line.
    """
    cut = journal_line.rfind(b" ")
    if cut < 0 or not journal_line.endswith(b"\n"):
        raise ValueError("not a journal line")
    parts = journal_line[:cut].split(b" ")
    if len(parts) != 5:
        raise ValueError("not a journal line")
    return _finish(
        _event_prefix(
            dev, int(parts[0]), int(parts[1]), int(parts[2]), parts[4], parts[3].decode(), jid
        )
    )


def hello_line(dev, fw, seq, head, ms, jid=""):
    """Return the answer to hello."""
    return (
        _head("hello", dev, jid)
        + ',"fw":"%s","seq":%d,"head":"%s","ms":%d}\n' % (fw, seq, head, ms)
    ).encode()


def pong_line(dev, seq, ms, token, jid=""):
    """Return the answer to ping."""
    return (_head("pong", dev, jid) + ',"seq":%d,"ms":%d,"token":%d}\n' % (seq, ms, token)).encode()


def time_line(dev, ms, epoch):
    """Return the answer to time."""
    return (_head("time", dev, "") + ',"ms":%d,"epoch":%d}\n' % (ms, epoch)).encode()


def end_line(dev, seq, jid=""):
    """Return the line closing a back-fill."""
    return (_head("end", dev, jid) + ',"seq":%d}\n' % seq).encode()


def break_line(dev, jid, journal_line):
    """Return the protocol line for a journal break line (dicepod.journal.break_line).
    Raise ValueError for a damaged one."""
    from dicepod import journalfix  # loaded only when there is a break to send

    try:
        first, last, prev = journalfix.decode_break(journal_line)
    finally:
        journalfix.unload()
    return (
        _head("break", dev, jid) + ',"from":%d,"to":%d,"prev":"%s"}\n' % (first, last, prev)
    ).encode()


def repl_line(dev, seq):
    """Return the line the app sends before it hands the USB line to the REPL."""
    return (_head("repl", dev, "") + ',"seq":%d}\n' % seq).encode()


def error_line(dev, message):
    """Return an error line (message: short ASCII without quotes)."""
    return (_head("error", dev, "") + ',"error":"%s"}\n' % message).encode()


# --- PC -> device commands --------------------------------------------------------------------


def command(name, arg=None):
    """Return a PC command line: command("hello"), command("since", 17), command("ping", 3)."""
    if name not in _COMMANDS:
        raise ValueError("unknown command")
    if arg is None:
        return (name + "\n").encode()
    if not isinstance(arg, int) or type(arg) is bool or arg < 0:
        raise ValueError("bad argument")
    return ("%s %d\n" % (name, arg)).encode()


def _uint(text):
    if not text or len(text) > 12 or not text.isdigit():
        raise ValueError("bad number")
    return int(text)


def parse_command(line):
    """Parse a command line from the PC (bytes, line end optional); return (name, int or None).

    Raise ValueError("short reason") for anything that is not one of the fixed commands.
    Only these few words are recognised: nothing received is ever evaluated.
    """
    if len(line) > MAX_COMMAND:
        raise ValueError("line too long")
    line = line.strip()
    parts = line.split(b" ")
    if len(parts) > 2 or not parts[0]:
        raise ValueError("unknown command")
    try:
        name = parts[0].decode()
    except UnicodeError:
        raise ValueError("unknown command")
    if name == "identify":
        name = "hello"
    if name not in _COMMANDS:
        raise ValueError("unknown command")
    arg = _uint(parts[1]) if len(parts) == 2 else None
    if name in ("hello", "repl") and arg is not None:
        raise ValueError("%s takes no argument" % name)
    if name in ("since", "time", "ack") and arg is None:
        raise ValueError("%s needs a number" % name)
    return name, arg


# --- PC side: parse device lines ----------------------------------------------------------------


def _is_hash(value):
    if not isinstance(value, str) or len(value) != 8:
        return False
    for ch in value:
        if ch not in _HEX:
            return False
    return True


def _is_int(value):
    return isinstance(value, int) and type(value) is not bool


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
    if kind in ("hello", "pong", "end", "repl"):
        if not _is_int(obj.get("seq")) or obj["seq"] < 0:
            raise ValueError("bad seq")
    elif kind == "break":
        for key in ("from", "to"):
            if not _is_int(obj.get(key)) or obj[key] < 1:
                raise ValueError("bad %s" % key)
        if obj["to"] < obj["from"] - 1 or not _is_hash(obj.get("prev")):
            raise ValueError("bad break")
    elif kind not in ("time", "error"):
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
