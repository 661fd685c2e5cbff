"""Storage driver in RAM: the journal segments, side files and settings of
dicepod.drivers.storage's interface (see that module), for tests, the emulator and the
simulator. Apart from FileStorage so that the Pico, which uses only files, does not load it.

capacity (bytes) makes a small flash: free() counts down from it and a write that does not fit
raises OSError 28 (ENOSPC) and writes nothing, as LittleFS does."""


class MemoryStorage:
    """Journal and settings in RAM (tests, emulator, simulator before persistence). A segment
    is a list of its lines: a long journal needs no single growing buffer (which fragments a
    small MicroPython heap)."""

    def __init__(self, journal=b"", settings=None, capacity=None):
        self.segs = {}  # segment name -> list of lines (bytes)
        self.sizes = {}  # segment name -> bytes
        self.settings = settings
        self.capacity = capacity
        if journal:  # an older firmware's single journal: segment 1
            self.write(1, journal)

    def used(self):
        """Return the bytes held (segments and side files)."""
        n = 0
        for seg in self.sizes:
            n += self.sizes[seg]
        return n

    def _room(self, extra):
        if self.capacity is not None and self.used() + extra > self.capacity:
            raise OSError(28)

    def segments(self):
        """Return the segment names, ascending (side files, named by strings, left out)."""
        return sorted([seg for seg in self.segs if type(seg) is int])

    def lines(self, seg, start=0):
        """Yield segment seg's lines from byte offset start (the last may lack its newline)."""
        offset = 0
        for line in self.segs.get(seg, ()):
            if offset >= start:
                yield line
            elif offset + len(line) > start:  # from inside a row, as a file reads from there
                yield line[start - offset :]
            offset += len(line)

    def append(self, seg, line):
        """Append one line to segment seg (a torn last line is completed by it, as in a
        file)."""
        self._room(len(line))
        rows = self.segs.get(seg)
        if rows is None:
            rows = self.segs[seg] = []
            self.sizes[seg] = 0
        self.sizes[seg] += len(line)
        line = bytes(line)
        if rows and not rows[-1].endswith(b"\n"):
            line = rows.pop() + line
        start = 0
        while start < len(line):
            end = line.find(b"\n", start)
            end = len(line) if end < 0 else end + 1
            rows.append(line[start:end] if start or end < len(line) else line)
            start = end

    def write(self, seg, data):
        """Create or replace segment seg (data: bytes, or a list of bytes pieces)."""
        if type(data) is list:
            data = b"".join(data)
        self._room(len(data) - self.size(seg))
        self.segs[seg] = []
        self.sizes[seg] = 0
        self.append(seg, data)

    def remove(self, seg):
        """Delete segment seg."""
        self.segs.pop(seg, None)
        self.sizes.pop(seg, None)

    def size(self, seg):
        """Return segment seg's size in bytes."""
        return self.sizes.get(seg, 0)

    def segment(self, seg):
        """Return segment seg's bytes in one piece (History reads them so)."""
        return b"".join(self.segs.get(seg, ()))

    def read_into(self, seg, buf):
        """Copy segment seg into buf; return its size (0: missing; -1: larger than buf). A line
        at a time (no copy of the whole segment on the heap beside buf)."""
        size = self.size(seg)
        if size > len(buf):
            return -1
        at = 0
        for line in self.segs.get(seg, ()):
            buf[at : at + len(line)] = line
            at += len(line)
        return at

    def free(self, total=False):
        """Return the bytes left under the capacity (total: (those, the capacity); None:
        no capacity)."""
        if self.capacity is None:
            return None
        left = self.capacity - self.used()
        return (left, self.capacity) if total else left

    def side(self, name):
        """Return a side file's bytes or None (for tests)."""
        return self.segment(name) if name in self.segs else None

    def data(self):
        """Return every segment's bytes in order, concatenated (for tests)."""
        return b"".join([self.segment(seg) for seg in self.segments()])

    def load_settings(self):
        """Return the settings bytes or None (larger than 4 KB or nested: refused as corrupt,
        as FileStorage does)."""
        data = self.settings
        if data and (len(data) > 4096 or data.count(b"{") > 1 or b"[" in data):
            return b"{"
        return data

    def save_settings(self, data):
        """Replace the settings (bytes, or pieces of bytes)."""
        self.settings = data if isinstance(data, bytes) else b"".join(data)
