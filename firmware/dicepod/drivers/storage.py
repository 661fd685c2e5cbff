"""Storage driver: the event journal (segment files of append-only lines) and the settings.

Shell code (file I/O). Two implementations with one interface:
- FileStorage: files on the Pico's LittleFS (or any directory): the journal's segments in the
  directory journal/, each named by the seq of its first event (dicepod.journal); the settings
  at the root. Whole files are replaced by writing a temporary file and renaming it over the
  old one (a rename is LittleFS's only atomic replace).
- MemoryStorage (dicepod.drivers.memstorage): the same in RAM, for tests, the emulator and the
  simulator; a module of its own, so the Pico does not hold its code in RAM.

Interface:
    segments()              the journal's segment names (ints), ascending
    lines(seg, start=0)     iterate segment seg's lines as bytes from byte offset start (a line
                            boundary); a torn last line comes without its b"\\n"
    append(seg, line)       append one complete line (bytes ending in b"\\n") to seg (which
                            write() made), durably
    write(seg, data)        create or replace segment seg with data (bytes, or a list of bytes
                            pieces), atomically (small: a header, a segment mended after
                            damage or read back by dicepod.salvage)
    remove(seg)             delete segment seg
    free(total=False)       bytes free on the flash (total: (free, its size)), or None when unknown
    raw                     the file system's block device, read when the journal is missing
                            (dicepod.salvage), or None
    (side files of the journal, "ack" and "damaged", are read with lines(name) and written
    with write(name, data); segments() lists only the numbered segments)
    load_settings()         the settings bytes, or None when there is no settings file
    save_settings(data)     replace the settings atomically (data: bytes, or an iterable of
                            bytes pieces)

A journal.log at the root (an older firmware's single-file journal) becomes segment 1.
"""

import os

from micropython import const

DIRECTORY = "journal"  # (an older firmware's journal.log becomes journal/1)
SETTINGS = "settings.json"
_BLOCK = const(128)  # bytes read at a time by lines()


class FileStorage:
    """Journal segments and settings as files in a directory (the Pico's flash root by
    default)."""

    def __init__(self, root="", raw=None):
        self.root = root
        self.raw = raw  # the file system's block device (the Pico's flash), or None
        root = root.rstrip("/") + "/" if root else ""
        self.dir = root + DIRECTORY
        self.settings_path = root + SETTINGS

    def segments(self):
        """Return the segment names, ascending (an old journal.log becomes segment 1)."""
        try:
            names = os.listdir(self.dir)
        except OSError:  # no journal yet, or an older firmware's journal.log
            names = []
            try:
                os.mkdir(self.dir)
                os.rename(self.dir + ".log", self.dir + "/1")
                names = ["1"]
            except OSError:
                pass
        segs = [int(n) for n in names if n.isdigit()]
        segs.sort()
        return segs

    def lines(self, seg, start=0):
        """Yield segment seg's lines (or a side file's) from byte offset start, streaming."""
        try:
            f = open("%s/%s" % (self.dir, seg), "rb")
        except OSError:
            return
        with f:
            if start:
                f.seek(start)
            # Read in blocks and split here: a file on MicroPython's LittleFS is unbuffered,
            # so readline() reads it a byte at a time, each byte a trip through the file
            # system's layers. Small blocks: a large one needs room a fragmented heap may not
            # have (tests/test_app_heap.py).
            rest = b""
            while True:
                data = f.read(_BLOCK)
                if not data:
                    if rest:
                        yield rest  # the last line, torn (no newline)
                    return
                if rest:
                    data = rest + data
                at = 0
                while True:
                    end = data.find(b"\n", at) + 1
                    if not end:
                        break
                    yield data[at:end]
                    at = end
                rest = data[at:] if at else data

    def segment(self, seg):
        """Return segment seg's bytes (or a side file's) in one piece, b"" if it is missing:
        one allocation, where lines() makes one a line (MemoryError where the heap has no
        room for it in one piece)."""
        try:
            f = open("%s/%s" % (self.dir, seg), "rb")
        except OSError:
            return b""
        with f:
            size = f.seek(0, 2)
            f.seek(0)
            return f.read(size)

    def read_into(self, seg, buf):
        """Read segment seg into buf (a bytearray); return its size, 0 if it is missing, -1
        (nothing read) when it is larger than buf. One buffer for every segment read: no
        allocation a segment (each a search of the heap for room, then garbage)."""
        try:
            f = open("%s/%s" % (self.dir, seg), "rb")
        except OSError:
            return 0
        with f:
            size = f.seek(0, 2)
            if size > len(buf):
                return -1
            f.seek(0)
            return f.readinto(buf)

    def append(self, seg, line):
        """Append one line to segment seg (made by write()) and flush it to flash."""
        with open("%s/%d" % (self.dir, seg), "ab") as f:
            f.write(line)
            f.flush()

    def write(self, seg, data):
        """Create or replace segment seg (or a side file, named by a string): a temporary
        file renamed over it."""
        try:
            os.mkdir(self.dir)
        except OSError:  # it exists
            pass
        tmp = self.dir + "/tmp"
        with open(tmp, "wb") as f:
            if type(data) is list:  # pieces: no room needed for them in one piece
                for piece in data:
                    f.write(piece)
            else:
                f.write(data)
        os.rename(tmp, "%s/%s" % (self.dir, seg))

    def remove(self, seg):
        """Delete segment seg."""
        try:
            os.remove("%s/%d" % (self.dir, seg))
        except OSError:
            pass

    def free(self, total=False):
        """Return the bytes free on the file system (total: (free, its size), both from one
        statvfs: on LittleFS each walks every block in use); None when it cannot say."""
        try:
            st = os.statvfs(self.root or "/")
        except (OSError, AttributeError):
            return None
        return (st[0] * st[4], st[0] * st[2]) if total else st[0] * st[4]

    def load_settings(self):
        """Return the settings bytes, or None when there is no settings file. At most 4 KB
        and one byte are read (dicepod.settings refuses a larger file; a huge one would not
        fit a Pico's heap)."""
        try:
            with open(self.settings_path, "rb") as f:
                data = f.read(4097)
        except OSError:
            return None
        # One flat object of names and ints: a larger or nested one is refused before it is
        # parsed, as corrupt.
        return b"{" if len(data) > 4096 or data.count(b"{") > 1 or b"[" in data else data

    def save_settings(self, data):
        """Write the settings (bytes, or pieces of bytes: dicepod.settings.encode) to a
        temporary file, then rename it over the old one."""
        tmp = self.settings_path + ".tmp"
        with open(tmp, "wb") as f:
            for piece in (data,) if isinstance(data, bytes) else data:
                f.write(piece)
        os.rename(tmp, self.settings_path)
