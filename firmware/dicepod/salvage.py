"""Salvage: a journal read back from the raw flash when the file system has lost it.

A flipped bit in the file system's root directory can make LittleFS fall back to the root as it
was formatted (empty), and a file system that no longer mounts is formatted again at power-on
by MicroPython. Either way the journal's files are gone from the directory, but their bytes are
still in the flash's blocks. When the journal finds no segment at all, it asks this module
(Journal.recover) before it starts a new one: a new journal never replaces one that can still
be read.

How: every line of the journal carries its own checksum, and each event line the chain hash of
the one before it, so lines can be trusted wherever they lie. Pass one reads every block once
and notes the segment headers ("@ ID FIRST ...") and each block's seqs; the journal is the id of
the newest header. Pass two reads the blocks holding that journal's newest segments (as many as
RAM holds, _KEEP), joins a line that runs from one block into the next (LittleFS places a few
pointer words at the start of a file's later blocks), then follows each segment's chain from
its header: the line of each seq whose prev is the hash of the line before. What cannot be
followed is a gap, written as a break line (the events lost, the chain's resume), and each gap
gets its chained ("lost", (first, last)) event after recovery: the PC stores and verify names
it. Only then are the segments written, all at once: LittleFS may reuse any block it believes
free, including one still to be read. Older segments beyond _KEEP are one marked gap.

Pure: no machine; dev is a block device (readblocks(n, buf), ioctl(4) blocks, ioctl(5) block
size: the Pico's rp2.Flash()). Loaded only when the journal is missing, then unloaded.
"""

import gc
import sys

from micropython import const

from dicepod import journal, journalfix

# Segments kept, the newest first: their lines are all in RAM before the first write.
_KEEP = const(6)
# The shortest journal line (see journalfix._MIN_LINE).
_MIN_LINE = const(34)
# Bytes of pointer words a LittleFS block of a file may start with (4 a word; a block's index
# in its file has trailing zeros + 1 of them).
_SKIPS = (0, 4, 8, 12, 16, 20)
# A piece cut at a block's end too short to hold its seq: tried with every block's start.
_SHORT = const(24)


def _good(piece):
    """piece (a memoryview ending in a newline) as bytes when it is a whole line with its
    checksum right, else None (nothing allocated for the many pieces that are not)."""
    n = len(piece)
    if n < _MIN_LINE or piece[n - 10] != 32:  # b" " before the 8 hex digits
        return None
    if journal.crc_tail(piece[: n - 10]) != bytes(piece[n - 10 :]):
        return None
    return bytes(piece)


def _find(data, view, at, end):
    """The line in data[at:end]: as it is, after a file block's pointer words, or a header
    after a directory tag's bytes (a small file lives in its directory's block)."""
    for skip in _SKIPS:
        line = _good(view[at + skip : end])
        if line is not None:
            return line
    at = data.find(b"@ ", at + 1, end)
    return _good(view[at:end]) if at > 0 else None


def lines(data):
    """([(offset, line)] of the checked lines in one block's bytes (a bytearray), where its
    last newline ends)."""
    view = memoryview(data)
    found = []
    at = 0
    for skip in _SKIPS:  # a first line after pointer words (which may hold a newline byte)
        end = data.find(b"\n", skip) + 1
        line = _good(view[skip:end]) if end else None
        if line is not None:
            found.append((skip, line))
            at = end
            break
    while True:
        end = data.find(b"\n", at) + 1
        if not end:
            return found, at
        line = _find(data, view, at, end)
        if line is not None:
            found.append((end - len(line), line))
        at = end


def _add(cands, seq, line):
    """Note a line of seq: one line as it is, copies that differ as a tuple (the heap holds
    a line a seq, not a list each)."""
    got = cands.get(seq)
    if got is None:
        cands[seq] = line
    elif type(got) is bytes:
        if got != line:
            cands[seq] = (got, line)
    elif line not in got:
        cands[seq] = got + (line,)


def _each(got):
    """The lines noted for a seq (see _add), as a tuple."""
    return () if got is None else (got,) if type(got) is bytes else got


def _seq(line):
    """The seq of an event line, the first seq of a break line, -1 for a header."""
    if line[:1] == b"@":
        return -1
    if line[:1] == b"!":
        line = line[2:]
    return journal.seq_of(line)


def _prev(line):
    return line.split(b" ")[3].decode()


def _head(line):
    """A header line's fields (str), or None."""
    try:
        return journalfix.meta_fields(line, 10)
    except ValueError:
        return None


def salvage(log, dev):
    """Rebuild the journal's segments on log's storage from the raw flash dev; return the
    gaps [(first, last)] written as break lines, or None when the flash holds no journal."""
    try:
        return _salvage(log, dev)
    finally:
        sys.modules.pop("dicepod.salvage", None)


def _salvage(log, dev):
    count = dev.ioctl(4, 0)
    buf = bytearray(dev.ioctl(5, 0))
    probe = bytearray(16)
    blank = b"\xff" * 16
    heads = {}  # journal id: {first: header line}
    spans = []  # (block, lowest seq, highest seq) of the blocks holding event or break lines
    for block in range(count):
        dev.readblocks(block, probe)  # an erased block (a new device's every one): skipped
        if probe == blank:
            continue
        dev.readblocks(block, buf)
        found, _end = lines(buf)
        low = high = -1
        for _at, line in found:
            seq = _seq(line)
            if seq < 0:
                parts = _head(line)
                if parts is not None:
                    heads.setdefault(parts[1], {})[int(parts[2])] = line
                continue
            if low < 0 or seq < low:
                low = seq
            if seq > high:
                high = seq
        if high >= 0:
            spans.append((block, low, high))
    if not heads:
        return None
    jid = ""
    newest = -1
    for key, found in heads.items():
        top = max(found)
        if top > newest:
            jid, newest = key, top
    firsts = sorted(heads[jid])
    keep = firsts[-_KEEP:]
    heads = heads[jid]
    low = keep[0]
    # Pass two: the lines of the kept segments, by seq (a seq can have copies, and lines of an
    # older journal); the pieces a block boundary cut.
    cands = {}
    tails = []  # (seq, bytes from a line's start to its block's end)
    starts = []  # (seq of the block's first line, bytes before that line)
    for block, _first, last in spans:
        if last < low:
            continue
        gc.collect()  # the kept lines stay, the pieces go: room in one piece for the next
        dev.readblocks(block, buf)
        found, end = lines(buf)
        for _at, line in found:
            seq = _seq(line)
            if seq >= low:
                _add(cands, seq, line)
        if found and found[0][0] > 0:
            starts.append((_seq(found[0][1]), bytes(buf[: found[0][0]])))
        piece = bytes(buf[end:])
        cut = piece.find(b"\xff")
        if cut >= 0:
            piece = piece[:cut]
        seq = journal.seq_of(piece) if b" " in piece else -1  # (a cut seq: not its number)
        if seq >= low or (piece and seq < 0 and len(piece) < _SHORT):
            tails.append((seq, piece))
    for seq, piece in tails:
        for after, start in starts:
            if after != seq + 1 and seq >= 0:
                continue
            for skip in _SKIPS:
                line = _good(piece + start[skip:])
                if line is not None and journal.seq_of(line) == after - 1:
                    _add(cands, after - 1, line)
                    break
    del tails, starts
    gc.collect()
    # Follow each kept segment's chain; the gaps become break lines.
    gaps = []
    out = []
    games = {}  # (segment, game) -> offset of its new_game line in the rebuilt segment
    if firsts[0] < low:  # older segments beyond what RAM holds: one gap
        head = heads[firsts[0]]
        gaps.append((firsts[0], low - 1))
        out.append((firsts[0], [head, journal._gap(firsts[0], low - 1, _prev(heads[low]))]))
    for i, first in enumerate(keep):
        fields = _head(heads[first])
        if fields is None:
            continue
        following = keep[i + 1] if i + 1 < len(keep) else 0
        seg_key = int(fields[5])
        if (seg_key, int(fields[3])) in games:
            fields[6] = "%d" % games[(seg_key, int(fields[3]))]
        body = " ".join(fields[:9]).encode()
        parts = [body + journal.crc_tail(body)]
        size = len(parts[0])
        prev = fields[4]
        seq = first
        while not following or seq < following:
            line = None
            for candidate in _each(cands.get(seq)):
                if candidate[:1] == b"!" or _prev(candidate) == prev:
                    line = candidate
                    break
            if line is None:  # a gap: up to the next seq found (or the next segment)
                resume = 0
                for key in cands:
                    if key > seq and (not following or key < following):
                        if not resume or key < resume:
                            resume = key
                if not resume:
                    if following:
                        gaps.append((seq, following - 1))
                        parts.append(journal._gap(seq, following - 1, _prev(heads[following])))
                    break
                line = cands[resume]
                if type(line) is not bytes:
                    line = line[0]
                gaps.append((seq, resume - 1))
                gap = journal._gap(seq, resume - 1, line)
                parts.append(gap)
                size += len(gap)
                seq = resume
                if line[:1] != b"!":
                    prev = _prev(line)
                    continue
            if line[:1] == b"!":
                _first, seq, prev = journalfix.decode_break(line)
                seq += 1
            else:
                body = line[: len(line) - 10]
                if b'["new_game"' in body:
                    games[(first, int(body.split(b" ", 2)[1]))] = size
                prev = journal.chain_hash(body)
                seq += 1
            parts.append(line)
            size += len(line)
        out.append((first, parts))
    del cands
    gc.collect()
    for first, data in out:
        log.storage.write(first, data)
    return gaps


def notices(gaps):
    """The screen's lines after a salvage."""
    lost = 0
    for first, last in gaps:
        lost += last - first + 1
    return ["Flash damaged:", "journal read back", "%d event(s) lost" % lost]
