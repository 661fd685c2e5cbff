"""Mending journal damage (see dicepod.journal's docstring, "Damage"): a segment rewritten with
its damaged lines replaced by a break line, a line split again where a newline was damaged,
the damaged bytes kept aside, and the notices for the screen.

Pure, like dicepod.journal, which loads this module only when it finds damage and unloads it
afterwards: a sound journal never has this code in RAM.
"""

import sys

from micropython import const

from dicepod import journal, replay

# Fields of a header line and of a break line (the tag and the checksum included).
_HEAD_FIELDS = const(10)
_BREAK_FIELDS = const(5)
# Bytes kept free on the flash: below this, the oldest segments go (as in dicepod.journal).
_RESERVE = const(24576)
# While one journal is read: [the next event resumes the chain (after a break or a lost
# header), prev of the last event folded (where a break resumes), events lost to damage]. Kept
# here, not on the Journal, whose few attributes are what stays in RAM.
_S = [False, journal.GENESIS, 0]
# The breaks marked while mending, (first, last): each gets its chained ("lost", (first, last))
# event once the journal's state is restored, so the PC's verify trusts the break (and a
# forged one is named).
_MARKS = []
# The shortest event line ("1 0 0 PREV [\"a\",[]] CRC\n"): damaged bytes without the shape of
# lines hold at most this many events a byte, counted up so a lost seq is never reused.
_MIN_LINE = const(34)
# Events a missing segment may have held (its bytes over the shortest line).
_SEG_EVENTS = const(8192 // 34 + 1)

# Damaged bytes kept aside for the PC (the newest; older damage is dropped).
_KEEP_DAMAGED = const(4096)


def _side(storage, name):
    """A journal side file's bytes (b"" when there is none)."""
    return b"".join(list(storage.lines(name)))


def _decodes(line):
    try:
        journal.decode(line)
        return True
    except ValueError:
        return False


def _cut_at(line):
    """Where a line holds two lines (the first one's newline damaged): the offset of the
    damaged byte, or -1. The first line ends with a space and 8 hex digits, the second starts
    with its seq."""
    at = 9
    while True:
        at = line.find(b" ", at) + 9
        if at < 9 or at >= len(line) - 1:
            return -1
        if _hex_bytes(line[at - 8 : at]) and line[at + 1 : at + 2].isdigit():
            return at
        at -= 8


def split(log, line, seg, offset, plan):
    """A damaged line that is two good lines with their newline damaged: fold both into log's
    state, plan the line's repair and return True; else False (nothing changed). With log
    None, only return the two lines (or None): a checked back-fill sends them as they were
    (Journal.lines)."""
    cut = _cut_at(line)
    if cut <= 0:
        return None if log is None else False
    one = line[:cut] + b"\n"
    two = line[cut + 1 :]
    if not _decodes(one) or not _decodes(two):
        return None if log is None else False
    if log is None:
        return one, two
    if take(log, one, seg, offset, 0, False) != 1:
        return False
    if take(log, two, seg, offset + cut + 1, 0, False) != 1:
        return True  # the first one was folded; the second is damage after all
    plan.append((offset, offset + len(line), one + two))
    return True


def mend(log, seg, plan, silent):
    """Rewrite a (small) segment with its damaged ranges replaced (a break line, two lines
    split again, or cut at the end); keep the damaged bytes aside and say so, unless all it
    is is a torn last line."""
    storage = log.storage
    # The mended segment is built in one block of its final size, written as it is (a buffer
    # grown line by line needs a few times the segment, in pieces a fragmented heap may not
    # have). A first pass counts the bytes.
    size = 0
    for start, end, mark in plan:
        size += (len(mark) if mark is not None else 0) - (end - start)
    lines = storage.lines(seg)
    try:
        for line in lines:
            size += len(line)
    finally:
        close = getattr(lines, "close", None)
        if close:
            close()
    data = bytearray(size)
    view = memoryview(data)
    at = 0
    damaged = bytearray()
    offset = 0
    k = 0
    lines = storage.lines(seg)
    try:
        for line in lines:
            while k < len(plan) and offset >= plan[k][1]:
                k += 1
            piece = line
            if k < len(plan) and offset >= plan[k][0]:
                damaged.extend(line)
                piece = None
                if offset + len(line) == plan[k][1] and plan[k][2] is not None:
                    piece = plan[k][2]
            if piece is not None:
                view[at : at + len(piece)] = piece
                at += len(piece)
            offset += len(line)
    finally:
        close = getattr(lines, "close", None)
        if close:
            close()
    view = None
    if at != size:
        data = data[:at]
    storage.write(seg, data)
    log.seg_size = len(data)  # (the last segment's size, when it is the last one mended)
    cut = plan[-1][2] is None
    if cut:
        log.dropped = offset - plan[-1][0]
    if silent:
        return
    old = _side(storage, "damaged")
    try:
        storage.write("damaged", (old + bytes(damaged))[-_KEEP_DAMAGED:])
    except OSError:  # no room for it: the notice still says what happened
        pass
    log.notices.append("Journal damaged:")
    log.notices.append("%d event(s) lost" % _S[2])
    if cut:
        log.notices.append("Damaged end cut")
    log.notices.append("%d bytes kept for PC" % len(damaged))


def check(log, seg):
    """Check segment seg of log's storage (one before the last: recover() checks the last)
    and mend damage in it as recover() does; return the notices (none when it is sound)."""
    try:
        return _check(log, seg) or []  # (None only when it gave way)
    finally:
        unload()


def _check(log, seg, latched=None):
    segs = log.storage.segments()
    if seg not in segs or seg == segs[-1]:
        return []
    i = segs.index(seg)
    other = journal.Journal(log.storage)
    clear(other)
    begin(other, segs, i)
    head = header(other, segs[i + 1])
    if scan(other, seg, segs[i + 1], True, head[4] if head else None, latched) < 0:
        return None  # it gave way: nothing written
    if _S[2]:
        log.lost = getattr(log, "lost", 0) + _S[2]
    chain_marks(log)
    return other.notices


def scrub(log):
    """Check every segment before the last (an idle scrub: journal damage is found before
    the PC asks for it): damage mended and marked as check() does, and a missing segment
    marked as a break at the end of the one before it. Return the notices."""
    try:
        notices = []
        segs = log.storage.segments()
        for i in range(len(segs) - 1):
            notices += _check(log, segs[i]) or []
            notices += _gap_after(log, segs[i], segs[i + 1]) or []
        return notices
    finally:
        unload()


def scrub_next(log, after, latched=None):
    """One step of the idle scrub: check the first segment after segment after (not the
    last: recover() checks that one), mend and mark as scrub() does; return (that segment,
    notices), (0, []) once there is none, (None, []) when latched (the buttons' latched
    presses, asked every few lines while a segment is read) had one: a press waits for no
    more than that."""
    try:
        segs = log.storage.segments()
        for i in range(len(segs) - 1):
            if segs[i] > after:
                notices = _check(log, segs[i], latched)
                if notices is None:
                    return None, []
                more = _gap_after(log, segs[i], segs[i + 1], latched)
                if more is None:  # (what the check mended is said; the step comes again)
                    return None, notices
                return segs[i], notices + more
        return 0, []
    finally:
        unload()


def _gap_after(log, seg, following, latched=None):
    """Mark the seqs between segment seg's last line and segment following (a segment lost
    between them) as a break at the end of seg, chained by a lost event."""
    other = journal.Journal(log.storage)
    clear(other)
    begin(other, [seg], 0)
    if scan(other, seg, following, False, None, latched) < 0:
        return None  # it gave way
    head = header(other, following)
    if head is None or other.seq >= following - 1:
        return []
    first = other.seq + 1
    last = following - 1
    log.storage.append(seg, break_line(first, last, head[4]))
    _MARKS.append((first, last))
    log.lost = getattr(log, "lost", 0) + last - first + 1
    chain_marks(log)
    return ["Journal damaged:", "%d event(s) lost" % (last - first + 1)]


def meta_fields(line, count):
    """Return the fields (str) of a header or break line of count fields; raise ValueError."""
    if not line.endswith(b"\n"):
        raise ValueError("torn line")
    cut = line.rfind(b" ")
    if cut < 0 or len(line) - cut != 10:
        raise ValueError("no checksum")
    if journal.crc_tail(line[:cut]) != line[cut:]:
        raise ValueError("bad checksum")
    parts = line[:-1].decode().split(" ")
    if len(parts) != count:
        raise ValueError("wrong number of fields")
    return parts


def break_line(first, last, prev):
    """Return the break line for lost events first..last (the next line's prev is prev)."""
    return meta_line(("!", "%d" % first, "%d" % last, prev))


def decode_break(line):
    """Return (first, last, prev) of a break line; raise ValueError."""
    parts = meta_fields(line, _BREAK_FIELDS)
    if parts[0] != "!" or not journal._is_hash(parts[3]):
        raise ValueError("not a break line")
    return int(parts[1]), int(parts[2]), parts[3]


def unload():
    """Out of RAM again once the caller is done (dicepod.journal loads this module only to
    recover, mend, prune or give an identity)."""
    sys.modules.pop("dicepod.journalfix", None)
    package = sys.modules.get("dicepod")
    if package is not None and hasattr(package, "journalfix"):
        delattr(package, "journalfix")


def recover(log, segs):
    """Journal.recover()'s work (see there) on the segment names segs (listed once), or,
    when segs is empty, from the segment the side file "ack" names."""
    try:
        return _recover(log, segs)
    finally:
        unload()


def save(log):
    """Write the PC's acknowledgement if it is only in RAM (before the REPL takes over)."""
    if log.acked and log.seg:
        log.storage.write("ack", ("%d %s %d\n" % (log.acked, log.id, log.seg)).encode())
    unload()


def clear(log):
    """The state of an empty journal."""
    log.seq = 0
    log.game = 0
    log.prev = journal.GENESIS
    log.seg = 0
    log.seg_size = 0
    log.game_seg = 0
    log.game_start = 0
    log.game_undos = 0
    log.game_length = 0
    _S[0] = False
    _S[1] = journal.GENESIS
    _S[2] = 0
    del _MARKS[:]


def chain_marks(log):
    """Append the chained ("lost", (first, last)) event of each break marked while mending;
    a full flash leaves a notice instead."""
    while _MARKS:
        first, last = _MARKS.pop(0)
        try:
            log.append(0, ("lost", (first, last)))
        except OSError:
            log.notices.append("Damage mark not saved")


def events_in(piece):
    """Most events a damaged piece of a segment held: a line-shaped one (a digit first, a
    newline last, 5 spaces a line) by its spaces, anything else by its bytes."""
    if piece[:1].isdigit() and piece.endswith(b"\n") and b"\x00" not in piece:
        return max(1, piece.count(b" ") // 5)
    return (len(piece) + _MIN_LINE - 1) // _MIN_LINE


def cut_break(log, count):
    """Mark the next count seqs lost (complete lines cut off the end, or a missing segment)
    and return their break line: the chain resumes with the hash of the break's own body, so
    the seqs are never used again under this journal id."""
    first = log.seq + 1
    last = log.seq + count
    prev = journal.chain_hash(("! %d %d %s" % (first, last, log.prev)).encode())
    log.seq = last
    log.prev = prev
    _S[0] = True
    _S[2] += count
    _MARKS.append((first, last))
    return break_line(first, last, prev)


def _hinted(log):
    """[The segment the side file "ack" names] when its header is sound, else the listing."""
    seg = 0
    try:
        parts = _side(log.storage, "ack").split()
        if len(parts) == 3:
            seg = int(parts[2])
    except ValueError:
        pass
    if seg and header(log, seg) is not None:
        return [seg]
    return log.storage.segments()


def _after(log, seg):
    """True when a segment after seg exists (named by the last seq + 1, or the last seq when
    a failed write left its line behind: see Journal.lines)."""
    for name in (log.seq + 1, log.seq):
        if name > seg:
            lines = log.storage.lines(name)
            for _line in lines:
                lines.close()
                return True
    return False


def _recover(log, segs):
    clear(log)
    log.notices = []
    if not segs:
        segs = _hinted(log)
        if len(segs) == 1:
            _last(log, segs)
            if not _after(log, segs[0]):
                return _done(log, segs)
            notices = log.notices  # the hint was old (a power cut as a segment started)
            clear(log)
            log.notices = notices
            segs = log.storage.segments()
    _last(log, segs)
    _missing(log)
    return _done(log, segs)


def _missing(log):
    """The segment the side file "ack" names is gone (damage): the events it and the lines
    before it held are marked lost at the end of the last segment left."""
    hint = 0
    try:
        parts = _side(log.storage, "ack").split()
        if len(parts) == 3 and parts[1].decode() == log.id:
            hint = int(parts[2])
    except (ValueError, UnicodeError):
        return
    # (a hint of the next seq: a power cut between the side file and the segment's header)
    if not log.seg or hint <= log.seq + 1 or header(log, hint) is not None:
        return
    line = cut_break(log, hint - 1 - log.seq + _SEG_EVENTS)
    log.storage.append(log.seg, line)
    log.seg_size += len(line)
    log.notices.append("Journal damaged:")
    log.notices.append("%d event(s) lost" % _S[2])


def _last(log, segs):
    """Recover the state from the last of segs (an empty one removed: see below)."""
    while segs:
        log.seg = segs[-1]
        begin(log, segs, len(segs) - 1)
        if scan(log, log.seg, 0, True) or log.seg_size or len(segs) == 1:
            break
        # a segment with nothing good in it (a torn rotation): the one before is the last
        log.storage.remove(log.seg)
        segs.pop()
        clear(log)
    if not segs:
        log.seg = 0


def _done(log, segs):
    load_ack(log)
    if segs and not log.id:  # a journal of an older firmware: give it an identity now
        log._rotate(log.seq + 1)
    if _S[2]:
        log.lost = _S[2]
    chain_marks(log)
    return log.seq


def header(log, seg):
    """Return the header fields of segment seg (None when missing or damaged)."""
    lines = log.storage.lines(seg)
    try:
        for line in lines:
            if line[:1] != b"@":
                return None
            try:
                p = meta_fields(line, _HEAD_FIELDS)
                if int(p[2]) != seg or not _id_hex(p[1]) or not journal._is_hash(p[4]):
                    return None
                return p
            except ValueError:
                return None
    finally:
        close = getattr(lines, "close", None)
        if close:
            close()
    return None


def begin(log, segs, i):
    """Set the state to the start of segment segs[i]: its header, or else the end of the
    segment before it (or the journal's start)."""
    seg = segs[i]
    p = header(log, seg)
    if p is not None:
        log.id = p[1]
        log.seq = seg - 1
        log.game = int(p[3])
        log.prev = p[4]
        log.game_seg = int(p[5])
        log.game_start = int(p[6])
        log.game_length = int(p[7])
        log.game_undos = int(p[8])
        _S[0] = False
        return
    if i:
        begin(log, segs, i - 1)
        scan(log, segs[i - 1], seg, False)
    if log.seq != seg - 1:  # events lost before this segment: the chain resumes here
        _S[0] = True
    log.seq = seg - 1


def fits(log, entry, resume):
    """True when an event line continues the state (resume: after damage or a break)."""
    seq, game, _ms, event, prev = entry
    if resume or _S[0]:
        return seq > log.seq and game >= log.game
    expected = log.game + 1 if event[0] == "new_game" else log.game
    return seq == log.seq + 1 and prev == log.prev and game == expected


def advance(log, entry, body, seg, offset):
    seq, game, _ms, event, _prev = entry
    kind = event[0]
    if kind == "new_game":
        log.game_seg = seg
        log.game_start = offset
        log.game_undos = 0
        log.game_length = 0
    elif game != log.game:  # a game whose new_game was lost to damage
        log.game_seg = 0
        log.game_undos = 0
        log.game_length = 0
    elif kind == "undo":
        log.game_undos += 1
    log.game = game
    log.game_length += 1
    log.seq = seq
    log.prev = journal.chain_hash(body)
    _S[0] = False


def fields(line):
    """Return ((seq, game, 0, (kind,), prev), body) of an event line whose checksum is right,
    as journal.decode() does but without parsing the event itself (recovery needs its kind
    only: "new_game", "undo" or "" for any other; the fold decodes it whole): about half the
    time and the garbage of decode() per line on a Pico. Raise ValueError("bad line")."""
    cut = line.rfind(b" ")
    body = line[:cut]
    if cut < 0 or journal.crc_tail(body) != line[cut:]:
        raise ValueError("bad line")
    parts = body.split(b" ")
    if len(parts) != 5 or parts[4][:2] != b'["':
        raise ValueError("bad line")
    raw = parts[4]
    kind = "new_game" if raw[:11] == b'["new_game"' else "undo" if raw[:7] == b'["undo"' else ""
    prev = parts[3].decode()
    if not journal._is_hash(prev):
        raise ValueError("bad line")
    return (int(parts[0]), int(parts[1]), 0, (kind,), prev), body


def take(log, line, seg, offset, stop, resume):
    """Fold one line into the state; return 1 (good), 0 (damaged) or 2 (seq stop on)."""
    tag = line[:1]
    if tag == b"@":
        return 1 if offset == 0 else 0
    try:
        if tag == b"!":
            first, last, prev = decode_break(line)
            if first != log.seq + 1 or last < log.seq:
                return 0
            log.seq = last
            log.prev = prev
            _S[0] = True
            return 1
        entry, body = fields(line)
    except ValueError:
        return 0
    if stop and entry[0] >= stop:
        return 2
    if not fits(log, entry, resume):
        return 0
    _S[1] = entry[4]
    advance(log, entry, body, seg, offset)
    return 1


def scan(log, seg, stop, repair, resume=None, latched=None):
    """Fold segment seg's lines into the state (lines from seq stop on are another
    segment's); with repair, mend damage (see _mend): damage at the end is cut, or, when
    the next segment's header says the chain resumes with prev resume, marked with a break
    line. A line two lines became (a newline flipped) is split again. Return the good
    events read, or -1 when latched (the buttons' latched presses), asked every 8 lines
    before anything is written, had one (nothing written)."""
    count = 0
    offset = 0
    bad = -1  # start of the current run of damaged lines (-1: none)
    plan = []  # (start, end, bytes or None) ranges to replace
    torn = False
    lines = log.storage.lines(seg)
    lost = 0  # most events the current run of damaged lines held
    first_bad = b""
    try:
        for line in lines:
            if latched is not None and not count & 7 and latched():
                return -1
            end = offset + len(line)
            before = log.seq
            got = take(log, line, seg, offset, stop, bad >= 0)
            if got == 2:
                break
            if got == 0 and bad < 0 and split(log, line, seg, offset, plan):
                got = 1
                count += 1
            if got == 1:
                if bad >= 0:
                    if line[:1] != b"!":
                        mark = break_line(before + 1, log.seq - 1, _S[1])
                        _S[2] += log.seq - 1 - before
                        plan.append((bad, offset, mark))
                        if repair and log.seq - 1 >= before + 1:
                            _MARKS.append((before + 1, log.seq - 1))
                    bad = -1
                if line[:1] != b"@" and line[:1] != b"!":
                    count += 1
            else:
                if bad < 0:
                    bad = offset
                    lost = 0
                    first_bad = line
                lost += events_in(line)
            torn = not line.endswith(b"\n")
            offset = end
    finally:
        close = getattr(lines, "close", None)
        if close:
            close()
    if bad >= 0:
        mark = None
        if resume is not None:
            mark = break_line(log.seq + 1, stop - 1, resume)
            _S[2] += stop - 1 - log.seq
            if repair and stop - 1 >= log.seq + 1:
                _MARKS.append((log.seq + 1, stop - 1))
        elif repair and not stop and log.id and not (torn and first_bad == tail(log, first_bad)):
            # complete lines damaged at the end (not one torn write): a marked break (a journal
            # without its identity gets a new one, so its seqs cannot be reused)
            mark = cut_break(log, lost)
        plan.append((bad, offset, mark))
    if repair:
        log.seg_size = offset
        if plan:
            mend(log, seg, plan, torn and len(plan) == 1 and plan[0][2] is None)
    return count


def tail(log, line):
    """line when it is one torn write of the next event (its seq first, no zeroed bytes,
    shorter than a line), else b"" (damage)."""
    seq = b"%d " % (log.seq + 1)
    torn = line.startswith(seq) or seq.startswith(line)  # cut even inside the seq
    if torn and b"\x00" not in line and b"\xff" not in line and len(line) < 400:
        return line
    return b""


def load_ack(log):
    log.acked = 0
    try:
        parts = _side(log.storage, "ack").split()
        if len(parts) >= 2 and parts[1].decode() == log.id:
            log.acked = min(int(parts[0]), log.seq)
    except (ValueError, UnicodeError):
        pass


def find(storage, since):
    """The segment holding seq since + 1 (the first one when it is older; 0: none)."""
    name = 0
    for first in storage.segments():
        if first <= since + 1 or not name:
            name = first
    return name


def retry(log, seq, line):
    """After a failed append: room made (at least one old segment deleted), the line written
    again at the start of a fresh segment; raises OSError when it still does not fit."""
    log._rotate(seq, True)
    log.storage.append(log.seg, line)


def rotate(log, force):
    """Before a new segment: delete the oldest segments while space is short (force: at least
    one)."""
    try:
        room(log, force)
    finally:
        unload()


def room(log, force):
    """Delete the oldest segments while space is short (force: at least one)."""
    free = log.storage.free()
    if free is None and not force:
        return
    segs = log.storage.segments()
    limit = log.game_seg or log.seg
    pruned = log.pruned = getattr(log, "pruned", 0)
    i = 0
    while i + 1 < len(segs) and segs[i] < limit:
        if not force and (free is None or free >= _RESERVE):
            break
        last = segs[i + 1] - 1
        if last > log.acked:
            log.pruned += last - max(segs[i], log.acked + 1) + 1
        log.storage.remove(segs[i])
        i += 1
        force = False
        free = log.storage.free()
    if log.pruned > pruned:
        log.notices.append("Flash full: old games")
        log.notices.append("deleted (%d events)" % (log.pruned - pruned))
    full = free is not None and free < _RESERVE
    if full and not getattr(log, "full", False):
        log.notices.append("Flash nearly full")
    log.full = full


def meta_line(fields):
    """Return a header or break line: the fields joined by spaces, then their CRC-32."""
    body = " ".join(fields).encode()
    return body + journal.crc_tail(body)


def _id_hex(text):
    return len(text) == 16 and journal._is_hash(text[:8]) and journal._is_hash(text[8:])


def encode(seq, game, ms, event, prev):
    """Return the journal line (bytes ending in b"\\n") for one event."""
    body = journal.body_bytes(seq, game, ms, prev, journal.canonical(event))
    return body + journal.crc_tail(body)


def effective(events):
    """Return the effective events of one game's raw event list (undo applied: the rule of
    dicepod.replay)."""
    marks = replay.keep(event[0] for event in events)
    return [event for event, mark in zip(events, marks) if mark]


def read_entries(log, since=0):
    """Iterate (seq, entry, body) for the good event lines with seq > since (damaged lines
    and breaks skipped)."""
    for _seg, _offset, line in log.lines(since, find(log.storage, since)):
        if line[:1] == b"!":
            continue
        try:
            entry, body = journal.decode(line)
        except ValueError:
            continue
        yield entry[0], entry, body


def _hex_bytes(data):
    for b in data:
        if b not in b"0123456789abcdef":
            return False
    return True
