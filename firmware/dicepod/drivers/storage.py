"""Storage driver: the event journal (append-only lines) and the settings file.

Shell code (file I/O). Two implementations with one interface:
- FileStorage: files on the Pico's LittleFS (or any directory); settings are written to a
  temporary file and renamed over the old one (a rename is LittleFS's only atomic replace).
- MemoryStorage (dicepod.drivers.memstorage): the same in RAM, for tests, the emulator and the
  simulator; a module of its own, so the Pico does not hold its code in RAM.

Interface:
    append(line)            append one complete journal line (bytes ending in b"\\n"), durably
    lines(start=0)          iterate the journal's lines as bytes from byte offset start (a line
                            boundary); a torn last line comes without its b"\\n"
    truncate(size)          cut the journal to size bytes (recovery drops a torn tail with it)
    size()                  the journal's size in bytes
    load_settings()         the settings bytes, or None when there is no settings file
    save_settings(data)     replace the settings atomically
"""

import os

JOURNAL = "journal.log"
SETTINGS = "settings.json"


class FileStorage:
    """Journal and settings as files in a directory (the Pico's flash root by default)."""

    def __init__(self, root=""):
        self.root = root
        self.journal_path = self._path(JOURNAL)
        self.settings_path = self._path(SETTINGS)

    def _path(self, name):
        return self.root.rstrip("/") + "/" + name if self.root else name

    def append(self, line):
        """Append one journal line and flush it to flash."""
        with open(self.journal_path, "ab") as f:
            f.write(line)
            f.flush()

    def lines(self, start=0):
        """Yield the journal's lines from byte offset start, streaming (no whole-file read)."""
        try:
            f = open(self.journal_path, "rb")
        except OSError:
            return
        with f:
            if start:
                f.seek(start)
            while True:
                line = f.readline()
                if not line:
                    return
                yield line

    def size(self):
        """Return the journal size in bytes (0 when there is none)."""
        try:
            return os.stat(self.journal_path)[6]
        except OSError:
            return 0

    def truncate(self, size):
        """Cut the journal to size bytes: copy the kept prefix to a temp file, then rename."""
        tmp = self.journal_path + ".tmp"
        with open(self.journal_path, "rb") as src, open(tmp, "wb") as dst:
            left = size
            while left > 0:
                chunk = src.read(min(512, left))
                if not chunk:
                    break
                dst.write(chunk)
                left -= len(chunk)
        os.rename(tmp, self.journal_path)

    def load_settings(self):
        """Return the settings bytes, or None when there is no settings file."""
        try:
            with open(self.settings_path, "rb") as f:
                return f.read()
        except OSError:
            return None

    def save_settings(self, data):
        """Write the settings to a temporary file, then rename it over the old one."""
        tmp = self.settings_path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.rename(tmp, self.settings_path)
