"""The event journal: line format, checksum, hash chain, segments, recovery, damage, undo.

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

Segments. The journal is a row of small files (segments), each named by the seq of its first
event; a new one starts when the current one reaches _SEG_BYTES. A segment begins with a
header line, its checkpoint (written whole, by a rename):

    @ ID FIRST GAME PREV GSEG GOFF GLEN GUNDO CRC

ID is the journal's identity (16 hex digits, random, made when the journal is created: a wiped
or re-flashed device starts a journal of another id); FIRST the seq of the segment's first
event (its name); GAME and PREV the game id and chain hash before it; GSEG/GOFF the segment and
byte offset of the current game's new_game line (0 0: none known); GLEN/GUNDO that game's
events and undos so far. Recovery reads the last segment's header and lines only (bounded,
whatever the history; the side file "ack" names it, written as each segment starts, so boot
lists no directory either: a hint, checked, the listing when it is missing or old); a
back-fill from seq N opens the segment holding N+1 by its name.

Damage. Recovery checks every line of the last segment (checksum, sequence, chain, game ids).
A torn last line (a power cut while writing) is cut silently. Damaged lines with good lines
after them are replaced by a break line, and the good lines are kept:

    ! FROM TO PREV CRC

(events FROM..TO were lost; the chain resumes at the next line, whose prev is PREV.) Damaged
bytes are kept aside (storage file "damaged", the last 4 KB) for the PC, and
`notices` says what happened. A damaged end with no good line after it is cut, kept aside and
noticed too. Readers skip a line they cannot decode (a line of an older segment is checked only
when read); when the game's fold at start meets one, that segment is mended the same way
(journalfix.check, with a notice: Session.start).

Lost files. When the file system holds no journal at all but a block of the raw flash starts
with a segment's header (a flipped bit in the root directory made LittleFS fall back to the
root as formatted, or a file system that no longer mounted was formatted again at power-on),
dicepod.salvage reads the journal back from the blocks, marks what it could not read as breaks
with their chained lost events, and the notices say so: a new journal never silently replaces
one that can still be read.

Full flash. Before a segment is started, the oldest segments are deleted while less than
_RESERVE bytes are free: the PC's acknowledged ones (acknowledge()) silently, then unacknowledged
finished games with a notice; the segments of the game in progress are never deleted. A write
that fails (no space) deletes and retries once in a fresh segment, then raises OSError.

Undo: `("undo", ())` cancels the last effective event of the current game (not its `new_game`);
an undo with nothing left to cancel is ignored. Events stay append-only; game_events() applies
the undos (the rule is dicepod.replay's, the one the PC's verify uses).
"""

import binascii
import hashlib
import json

from micropython import const

from dicepod.replay import keep

GENESIS = "00000000"
# Longest event kind or name accepted (keeps lines short and the checks cheap).
_MAX_NAME = const(24)
# Most values in one event's data (six dice, a few modifiers, ...).
_MAX_DATA = const(32)
NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+-"


def _check_name(name):
    # (strip() leaves nothing when every character is one of NAME_CHARS: one call in C, not a
    # loop over the characters; recovery and the fold check every line they read)
    return isinstance(name, str) and 0 < len(name) <= _MAX_NAME and not name.strip(NAME_CHARS)


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
    plain ASCII without anything to escape (faster than json.dumps, and no encoder on the
    device)."""
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


def crc_tail(body):
    """Return the end of body's line: b" " + 8 hex digits of its CRC-32 + b"\n". Formatted as
    bytes: a str made at run time costs a search of every name interned so far (MicroPython
    looks for an equal one to share), on every line read."""
    return b" %08x\n" % checksum(body)


def checksum(body):
    """Return the CRC-32 of a line body as an int."""
    return binascii.crc32(body) & 0xFFFFFFFF


def _is_hash(text):
    return len(text) == 8 and not text.strip("0123456789abcdef")


def decode(line):
    """Parse one journal line; return ((seq, game, ms, event, prev), body).

    Raise ValueError("bad line") for a torn line, a wrong checksum or a malformed field.
    """
    cut = line.rfind(b" ")
    body = line[:cut]
    # a line ends with " " + 8 hex digits of its body's CRC-32 + "\n" (a torn one does not)
    if cut < 0 or crc_tail(body) != line[cut:]:
        raise ValueError("bad line")
    parts = body.split(b" ")
    try:
        seq, game, ms, prev, raw = parts
        seq = int(seq)
        game = int(game)
        ms = int(ms)
        prev = prev.decode()
        raw = json.loads(raw)
        if not _is_hash(prev) or len(raw) != 2 or not isinstance(raw[1], list):
            raise ValueError("bad line")
        event = (raw[0], tuple(raw[1]))
    except (ValueError, TypeError, KeyError, IndexError):
        raise ValueError("bad line")
    check_event(event)
    return (seq, game, ms, event, prev), body


def game_event(line):
    """Return (game, event) of an event line whose checksum is right: the game's fold reads
    only these two, so this skips what decode() checks beyond the checksum (the names' and
    the chain hash's characters: append() checked the event before writing it) and the
    fields it does not need, for a faster fold (tools/bench_journal.py --pico). Its values are
    ints and strings (the rules check them).
    Raise ValueError("bad line")."""
    cut = line.rfind(b" ")
    body = line[:cut]
    if cut < 0 or crc_tail(body) != line[cut:]:
        raise ValueError("bad line")
    parts = body.split(b" ", 4)
    try:
        raw = json.loads(parts[4])
        data = raw[1]
        if len(raw) != 2 or type(raw[0]) is not str or type(data) is not list:
            raise ValueError("bad line")
        for value in data:
            if type(value) is not int and type(value) is not str:
                raise ValueError("bad line")
        return int(parts[1]), (raw[0], tuple(data))
    except (ValueError, TypeError, KeyError, IndexError):
        raise ValueError("bad line")


def seq_of(line):
    """Return the sequence number at the start of a line without a full parse (or -1)."""
    cut = line.find(b" ")
    try:
        return int(line[:cut])
    except ValueError:
        return -1


def _gap(first, last, resume):
    """A break line for seqs first..last that could not be read; resume: the next line, or the
    prev the chain resumes with."""
    if not isinstance(resume, str):
        resume = resume[: resume.rfind(b" ")].split(b" ")[3].decode()
    body = ("! %d %d %s" % (first, last, resume)).encode()
    return body + crc_tail(body)


# A segment is closed (the next event starts a new one) once it holds this many bytes.
_SEG_BYTES = const(8192)
# Bytes kept free on the flash: below this, the oldest segments go before a new one starts.
_RESERVE = const(24576)


class Journal:
    """The append-only event journal on a storage (see the module docstring)."""

    def __init__(self, storage, new_id=None):
        self.storage = storage
        self.new_id = new_id  # returns 16 hex digits (random) for a new journal's id
        self.id = ""  # the journal's identity ("" until its first segment is written)
        self.acked = 0  # the last seq the PC has acknowledged storing
        self.notices = []  # short lines for the screen: damage found, games deleted, full
        # Set only when it happens (few attributes: what stays in RAM): lost (events lost to
        # damage), dropped (bytes cut off the end), pruned (events deleted for room before
        # the PC had acknowledged them), full (no room left and nothing that may go), bad (an
        # older segment the game's fold found a damaged line in).
        self.seq = 0  # sequence number of the last line
        self.game = 0  # id of the current game (0: none yet)
        self.prev = GENESIS  # chain hash of the last line
        self.seg = 0  # the current (last) segment's name (0: none yet)
        self.seg_size = 0
        self.game_seg = 0  # segment of the current game's first line (0: none known)
        self.game_start = 0  # byte offset of that line in its segment
        self.game_undos = 0  # undo events in the current game (0: no undo pass needed)
        self.game_length = 0  # raw events (lines) in the current game
        # None: each line is written as it is appended; a list: the lines appended since
        # (a move's, held by Session.flush) wait for flush(): one write, and on LittleFS one
        # block erased for all of them, not one for each
        self.pending = None

    # -- recovery ----------------------------------------------------------------------------

    def recover(self):
        """Restore the state from the last segment (its header, then its lines), repairing
        damage there (see the module docstring); return the last seq. Raises only what the
        storage raises for reading; a journal it cannot make sense of starts empty. (The
        code is in dicepod.journalfix, in RAM only while it runs.)"""
        self.notices = []
        # The side file "ack" names the last segment (a hint, checked: journalfix.recover):
        # with it, no directory listing at boot; without it, the listing (an empty one: a new
        # journal, nothing to read).
        segs = ()
        gaps = None
        ack = self.storage.lines("ack")
        for _line in ack:
            break
        else:
            segs = self.storage.segments()
            if not segs:
                # No journal: a new device, or a file system that lost its files (damage).
                # Before a new journal starts, the raw flash is looked at: a block that starts
                # with a segment's header means a journal is there to read back
                # (dicepod.salvage). Two bytes a block: a new device's boot stays as fast.
                raw = getattr(self.storage, "raw", None)
                if raw is None:
                    return 0
                probe = bytearray(2)
                for block in range(raw.ioctl(4, 0)):
                    raw.readblocks(block, probe)
                    if probe == b"@ ":
                        break
                else:
                    return 0
                from dicepod import salvage

                gaps = salvage.salvage(self, raw)
                if gaps is None:
                    return 0
                segs = self.storage.segments()
        ack.close()
        from dicepod import journalfix

        seq = journalfix.recover(self, segs)
        if gaps is not None:
            for first, last in gaps:
                self.append(0, ("lost", (first, last)))
            self.notices[:0] = salvage.notices(gaps)
            seq = self.seq
        return seq

    def _rotate(self, first, force=False):
        """Start segment first (its header written whole): first, room for it (the oldest
        segments deleted while space is short; force: at least one), a new journal's
        identity, the acknowledgement."""
        free = self.storage.free()
        if force or (free is not None and free < _RESERVE):
            from dicepod import journalfix

            journalfix.rotate(self, force)
        if not self.id:  # a new journal: its identity (see journalfix.make_id)
            self.id = self.new_id() if self.new_id else chain_hash(repr(self.seq).encode()) * 2
        # The side file "ack": the PC's acknowledgement (kept for the next boot; see also
        # journalfix.save) and the segment started now, where the next recover() begins.
        try:
            self.storage.write("ack", ("%d %s %d\n" % (self.acked, self.id, first)).encode())
        except OSError:
            pass
        head = (
            "@ %s %d %d %s %d %d %d %d"
            % (
                self.id,
                first,
                self.game,
                self.prev,
                self.game_seg,
                self.game_start,
                self.game_length,
                self.game_undos,
            )
        ).encode()
        head += crc_tail(head)
        self.storage.write(first, head)
        self.seg = first
        self.seg_size = len(head)

    def append(self, ms, event):
        """Write one event (after check_event) as a journal line; return the line bytes.
        Raises OSError when the flash has no room even after deleting what may go."""
        check_event(event)
        kind = event[0]
        seq = self.seq + 1
        game = self.game + 1 if kind == "new_game" else self.game
        body = body_bytes(seq, game, ms, self.prev, canonical(event))
        line = body + crc_tail(body)
        if not self.seg_size or self.seg_size + len(line) > _SEG_BYTES:
            self.flush()  # the held lines belong to the segment before
            self._rotate(seq)
        held = self.pending
        if held is not None and not getattr(self, "full", False):
            # (room enough: the reserve is free and the segment holds the line)
            held.append(line)
        else:
            self.flush()
            try:
                self.storage.append(self.seg, line)
            except OSError:
                # No room (or a failed write, perhaps torn): delete what may go, then write
                # it once more at the start of a fresh segment (the torn bytes stay behind).
                from dicepod import journalfix

                journalfix.retry(self, seq, line)
        # State changes only once the line is written: a failed write leaves it as it was.
        if kind == "new_game":
            self.game_seg = self.seg
            self.game_start = self.seg_size
            self.game_undos = 0
            self.game_length = 0
        elif kind == "undo":
            self.game_undos += 1
        self.game = game
        self.game_length += 1
        self.seq = seq
        self.prev = chain_hash(body)
        self.seg_size += len(line)
        return line

    def flush(self):
        """Write the lines held in pending (they follow the current segment's last line).
        Should the write fail (LittleFS then writes none of it), the state is read back from
        the flash and the lines are appended again one by one, room made as append() makes
        it: the same lines, the ones the USB link was handed."""
        held = self.pending
        if held:
            self.pending = []
            try:
                self.storage.append(self.seg, held[0] if len(held) == 1 else b"".join(held))
            except OSError:
                self.pending = None
                self.recover()
                for line in held:
                    fields = decode(line)[0]
                    self.append(fields[2], fields[3])
                self.pending = []

    # -- reading -------------------------------------------------------------------------------

    def lines(self, since, seg, start=0, check=False):
        """Iterate (seg, offset, line) over the event and break lines from segment seg at
        byte offset start (see journalfix.find for the segment holding a seq), skipping lines of
        seq <= since (and a line a failed write left twice). Headers are left out; break
        lines and damaged lines come as they are (check: a run of damaged lines comes as a
        break line instead, before the next good line, and the segment is noted in bad for
        journalfix.check to mend). The next segment is the one named by the last seq + 1 (or
        the last seq, when a failed write left its line behind too): no directory listing
        while it runs, nothing but a few ints held between lines (the game's fold loads a
        mode's code while this runs). A segment missing before the last one (damage) is
        found by a listing and its events come as a break line: a gap is sent as a gap."""
        name = seg
        last = since
        damaged = False  # (check) damaged lines since the last good one
        while name:
            top = 0
            offset = start
            start = 0
            lines = self.storage.lines(name, offset)
            try:
                # (every line of a fold passes here: its first byte read as an int, its seq in
                # place, no max(): fewer objects and calls a line)
                for line in lines:
                    at = offset
                    offset += len(line)
                    tag = line[0] if line else 0
                    if tag == 64:  # "@", a header
                        continue
                    if tag == 33:  # "!", a break line "! FROM TO PREV CRC": lost up to TO
                        parts = line.split(b" ")
                        if len(parts) == 5 and parts[2].isdigit():
                            seq = int(parts[2])
                            if seq > top:
                                top = seq
                        yield name, at, line
                        continue
                    try:
                        seq = int(line[: line.find(b" ")])
                    except ValueError:
                        seq = -1
                    if check and seq >= 0 and crc_tail(line[: line.rfind(b" ")]) != line[-10:]:
                        seq = -1
                    second = None  # the second of two lines a flipped newline ran together
                    if seq < 0:  # damaged
                        if not check:
                            yield name, at, line
                            damaged = True
                            continue
                        if name != self.seg:
                            self.bad = name
                        from dicepod import journalfix  # (a dotted name is one more interned)

                        pair = journalfix.split(None, line, 0, 0, None)
                        if not isinstance(pair, tuple):
                            damaged = True
                            continue
                        # two good lines with the first one's newline flipped: both come,
                        # as the mend will split them (no event is lost, no break sent)
                        line, second = pair
                        seq = int(line[: line.find(b" ")])
                    while True:
                        if seq > last:
                            if damaged and seq > last + 1:
                                # (placed to end where this line starts: a reader that stops
                                # after it goes on here, not inside this line)
                                gap = _gap(last + 1, seq - 1, line)
                                yield name, at - len(gap), gap
                            damaged = False
                            last = seq
                            if seq > top:
                                top = seq
                            yield name, at, line
                        if second is None:
                            break
                        at += len(line)
                        line = second
                        second = None
                        seq = int(line[: line.find(b" ")])
            finally:
                close = getattr(lines, "close", None)
                if close:
                    close()
            following = 0
            for candidate in (top + 1, top):
                if candidate > name and not following:
                    probe = self.storage.lines(candidate)
                    for _line in probe:
                        following = candidate
                        break
                    close = getattr(probe, "close", None)
                    if close:
                        close()
            if not following and self.seg and name < self.seg:
                for first in self.storage.segments():  # a missing segment: the next one there is
                    if first > name:
                        following = first
                        break
                # (top 0: resumed at the segment's end, its last seq unknown: no gap claimed)
                if following and top and following - 1 > max(top, last):
                    from dicepod import journalfix

                    head = journalfix.header(self, following)
                    journalfix.unload()
                    if head is not None:
                        yield name, offset, _gap(max(top, last) + 1, following - 1, head[4])
                        last = following - 1
            name = following

    def _game_entries(self, limit, seg=0, start=0):
        """Iterate the current game's events (raw, at most limit of them) from its first line,
        or from byte offset start of segment seg (dicepod.resume: after a checkpoint)."""
        if not seg:
            seg = self.game_seg
            start = self.game_start
        if not seg or limit <= 0:
            return
        n = 0
        current = self.game
        for name, _offset, line in self.lines(0, seg, start):
            try:
                game, event = game_event(line)
            except ValueError:
                if name != self.seg and line[:1] != b"!":
                    self.bad = name  # damage in an older segment (journalfix.check mends it)
                continue
            if game != current:
                continue
            yield event
            n += 1
            if n >= limit:
                return

    def game_events(self):
        """Return an iterator over the current game's effective events (undo applied),
        streamed from storage. Without an undo, the raw events' own generator (one generator
        less a line).

        RAM: one byte per raw event of the current game, and only when it has an undo.
        """
        limit = self.game_length  # a snapshot: events appended meanwhile are not included
        if not self.game_undos:
            return self._game_entries(limit)
        return self._effective(limit)

    def _effective(self, limit):
        # Pass 1: the undo rule over the raw events' kinds (dicepod.replay: one byte an
        # event); pass 2: stream the survivors.
        marks = keep(event[0] for event in self._game_entries(limit))
        i = 0
        for event in self._game_entries(len(marks)):
            if marks[i]:
                yield event
            i += 1
