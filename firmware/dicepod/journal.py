"""The event journal: line format, checksum, hash chain, recovery after power loss, undo.

Pure: no machine, time or random; storage is injected (dicepod.drivers.storage interface).
Runs unchanged on MicroPython and CPython, and gives the same bytes on both.

One journal line per event, ASCII, fields separated by one space:

    SEQ GAME MS PREV EVENT CRC\\n
    17 3 120467 5be0c2a1 ["roll",[3,1,6,6,2,5]] 0d1c9e7a

- SEQ: sequence number, 1, 2, 3, ... over the whole journal (never reset by a new game);
- GAME: game id, 1 for the first `new_game`, +1 for each later one (0 before any game);
- MS: milliseconds since boot when the event happened (from the app's clock);
- PREV: the chain hash of the previous line (GENESIS for the first line);
- EVENT: the event's canonical bytes, `json.dumps([kind, list(data)], separators=(",", ":"))`,
  which never contain a space (kinds and names are restricted to [A-Za-z0-9_.+-]);
- CRC: CRC-32 of the line's body (everything before the last space), 8 lower-case hex digits.

The body is `SEQ GAME MS PREV EVENT`. The chain hash of a line is the first 4 bytes of SHA-256
over its body, as 8 hex digits. Since the body holds PREV, each hash covers the whole journal
before it: an edited, removed, inserted or reordered event breaks the chain at the next line.
The PC recomputes both from the protocol's fields (dicepod.protocol), so it checks the same
bytes the device wrote.

Recovery reads every line and keeps the longest good prefix (checksum right, sequence
continuous, chain intact, game ids consistent); a torn or corrupt tail is cut off, so a power
cut loses at most the event being written.

Undo: `("undo", ())` cancels the last effective event of the current game (not its `new_game`);
an undo with nothing left to cancel is ignored. Events stay append-only; game_events() and
effective() apply the undos.
"""

import binascii
import hashlib
import json

from micropython import const

GENESIS = "00000000"
# Longest event kind or name accepted (keeps lines short and the checks cheap).
_MAX_NAME = const(24)
# Most values in one event's data (six dice, a few modifiers, ...).
_MAX_DATA = const(32)
NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+-"


def _check_name(name):
    if not isinstance(name, str) or not 0 < len(name) <= _MAX_NAME:
        return False
    for ch in name:
        if ch not in NAME_CHARS:
            return False
    return True


def check_event(event):
    """Raise ValueError unless event is (kind, data) with an ASCII kind and int/name data."""
    if not isinstance(event, (tuple, list)) or len(event) != 2:
        raise ValueError("event must be (kind, data)")
    kind, data = event
    if not _check_name(kind):
        raise ValueError("bad event kind")
    if not isinstance(data, (tuple, list)) or len(data) > _MAX_DATA:
        raise ValueError("bad event data")
    for value in data:
        if type(value) is bool:
            raise ValueError("bad event data")
        if isinstance(value, int):
            continue
        if not _check_name(value):
            raise ValueError("bad event data")


def canonical(event):
    """Return the canonical bytes of a checked event (see check_event): the same bytes as
    `json.dumps([kind, list(data)], separators=(",", ":"))`, built by hand because names are
    plain ASCII without anything to escape (about 3x faster than json.dumps on CPython, and no
    encoder on the device)."""
    parts = []
    for value in event[1]:
        parts.append('"%s"' % value if isinstance(value, str) else "%d" % value)
    return ('["%s",[%s]]' % (event[0], ",".join(parts))).encode()


def body_bytes(seq, game, ms, prev, canon):
    """Return a line's body: the bytes the checksum and the chain hash are computed over."""
    return ("%d %d %d %s " % (seq, game, ms, prev)).encode() + canon


def chain_hash(body):
    """Return the chain hash of a line body: 8 hex digits of SHA-256."""
    return binascii.hexlify(hashlib.sha256(body).digest()[:4]).decode()


def checksum(body):
    """Return the CRC-32 of a line body as an int."""
    return binascii.crc32(body) & 0xFFFFFFFF


def encode(seq, game, ms, event, prev):
    """Return the journal line (bytes ending in b"\\n") for one event."""
    body = body_bytes(seq, game, ms, prev, canonical(event))
    return body + (" %08x\n" % checksum(body)).encode()


def _is_hash(text):
    if len(text) != 8:
        return False
    for ch in text:
        if ch not in "0123456789abcdef":
            return False
    return True


def decode(line):
    """Parse one journal line; return ((seq, game, ms, event, prev), body).

    Raise ValueError for a torn line, a wrong checksum or a malformed field.
    """
    if not line.endswith(b"\n"):
        raise ValueError("torn line")
    cut = line.rfind(b" ")
    if cut < 0 or len(line) - cut != 10:
        raise ValueError("no checksum")
    body = line[:cut]
    try:
        crc = int(line[cut + 1 : -1], 16)
    except ValueError:
        raise ValueError("bad checksum field")
    if checksum(body) != crc:
        raise ValueError("checksum mismatch")
    parts = body.split(b" ")
    if len(parts) != 5:
        raise ValueError("wrong number of fields")
    try:
        seq = int(parts[0])
        game = int(parts[1])
        ms = int(parts[2])
        prev = parts[3].decode()
        raw = json.loads(parts[4])
    except ValueError:
        raise ValueError("malformed field")
    if not _is_hash(prev):
        raise ValueError("bad hash field")
    if not isinstance(raw, list) or len(raw) != 2 or not isinstance(raw[1], list):
        raise ValueError("malformed event")
    event = (raw[0], tuple(raw[1]))
    check_event(event)
    return (seq, game, ms, event, prev), body


def seq_of(line):
    """Return the sequence number at the start of a line without a full parse (or -1)."""
    cut = line.find(b" ")
    try:
        return int(line[:cut])
    except ValueError:
        return -1


def effective(events):
    """Return the effective events of one game's raw event list (undo applied)."""
    out = []
    for event in events:
        if event[0] == "undo":
            if out and not (len(out) == 1 and out[0][0] == "new_game"):
                out.pop()
        else:
            out.append(event)
    return out


def read_lines(storage, start=0):
    """Iterate (offset, line) over the storage's journal from byte offset start."""
    if start:
        try:
            lines = storage.lines(start)
            offset = start
        except TypeError:  # a storage without lines(start): skip to the offset by counting
            lines = storage.lines()
            offset = 0
    else:
        lines = storage.lines()
        offset = 0
    try:
        for line in lines:
            if offset >= start:
                yield offset, line
            offset += len(line)
    finally:
        close = getattr(lines, "close", None)
        if close:
            close()


def read_entries(storage, since=0, start=0):
    """Iterate (offset, entry, body) for good lines with seq > since, from byte offset start.

    Stops at the first bad line (recovery has cut those; this only guards against a write
    racing a read).
    """
    lines = read_lines(storage, start)
    try:
        for offset, line in lines:
            if seq_of(line) <= since:
                continue
            try:
                entry, body = decode(line)
            except ValueError:
                return
            yield offset, entry, body
    finally:
        lines.close()  # MicroPython closes a file only when told (or at garbage collection)


class Journal:
    """The append-only event journal on a storage (see the module docstring)."""

    def __init__(self, storage):
        self.storage = storage
        self.seq = 0  # sequence number of the last line
        self.game = 0  # id of the current game (0: none yet)
        self.prev = GENESIS  # chain hash of the last line
        self.size = 0  # bytes of good journal
        self.game_start = 0  # byte offset of the current game's first line
        self.game_undos = 0  # undo events in the current game (0: no undo pass needed)
        self.game_length = 0  # raw events (lines) in the current game
        self.dropped = 0  # bytes cut off by the last recover()

    def recover(self):
        """Read the journal, cut a torn or corrupt tail, restore the state; return line count."""
        self.seq = 0
        self.game = 0
        self.prev = GENESIS
        self.game_start = 0
        self.game_undos = 0
        self.game_length = 0
        offset = 0
        count = 0
        lines = read_lines(self.storage)
        for line_offset, line in lines:
            try:
                entry, body = decode(line)
            except ValueError:
                break
            seq, game, _ms, event, prev = entry
            kind = event[0]
            expected_game = self.game + 1 if kind == "new_game" else self.game
            if seq != self.seq + 1 or prev != self.prev or game != expected_game:
                break
            self.seq = seq
            self.prev = chain_hash(body)
            if kind == "new_game":
                self.game = game
                self.game_start = line_offset
                self.game_undos = 0
                self.game_length = 0
            elif kind == "undo":
                self.game_undos += 1
            self.game_length += 1
            offset = line_offset + len(line)
            count += 1
        lines.close()  # before truncate: the file must not stay open
        total = self.storage.size()
        self.dropped = total - offset
        if offset < total:
            self.storage.truncate(offset)
        self.size = offset
        return count

    def append(self, ms, event):
        """Write one event (after check_event) as a journal line; return the line bytes."""
        check_event(event)
        kind = event[0]
        seq = self.seq + 1
        game = self.game + 1 if kind == "new_game" else self.game
        body = body_bytes(seq, game, ms, self.prev, canonical(event))
        line = body + (" %08x\n" % checksum(body)).encode()
        self.storage.append(line)
        # State changes only once the line is written: a failed write leaves it as it was.
        if kind == "new_game":
            self.game = game
            self.game_start = self.size
            self.game_undos = 0
            self.game_length = 0
        elif kind == "undo":
            self.game_undos += 1
        self.game_length += 1
        self.seq = seq
        self.prev = chain_hash(body)
        self.size += len(line)
        return line

    def _game_entries(self, limit):
        """Iterate the current game's events (raw, at most limit of them)."""
        n = 0
        entries = read_entries(self.storage, 0, self.game_start)
        try:
            for _offset, entry, _body in entries:
                if n >= limit:
                    return
                if entry[1] != self.game:
                    continue
                n += 1
                yield entry[3]
        finally:
            entries.close()

    def game_events(self):
        """Iterate the current game's effective events (undo applied), streamed from storage.

        RAM: one byte per raw event of the current game, and only when it has an undo.
        """
        limit = self.game_length  # a snapshot: events appended meanwhile are not included
        if not self.game_undos:
            for event in self._game_entries(limit):
                yield event
            return
        # Pass 1: mark undos (1) and new_game (2). Pass 2 (backwards over the marks): an event
        # is cancelled while undos are pending to its right. Pass 3: stream the survivors.
        marks = bytearray()
        for event in self._game_entries(limit):
            kind = event[0]
            marks.append(1 if kind == "undo" else 2 if kind == "new_game" else 0)
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
        i = 0
        for event in self._game_entries(len(marks)):
            if marks[i]:
                yield event
            i += 1
