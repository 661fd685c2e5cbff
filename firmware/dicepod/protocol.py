"""The USB line protocol between a dicepod and the PC, and the device's half of it: writing its
lines, reading the PC's commands (drivers/usb.py). Pure: MicroPython and CPython alike. The
PC's half (reading and checking these lines, chain hashes, writing commands) is
dicepod.protocol_pc, which the device never imports.

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

VERSION = 2
# Longest command line the device accepts (bytes, without the line end).
MAX_COMMAND = 64
COMMANDS = ("hello", "identify", "since", "ping", "time", "ack", "repl")


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
    if name not in COMMANDS:
        raise ValueError("unknown command")
    arg = _uint(parts[1]) if len(parts) == 2 else None
    if name in ("hello", "repl") and arg is not None:
        raise ValueError("%s takes no argument" % name)
    if name in ("since", "time", "ack") and arg is None:
        raise ValueError("%s needs a number" % name)
    return name, arg
