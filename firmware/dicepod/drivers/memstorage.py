"""Storage driver in RAM: the journal and the settings of dicepod.drivers.storage's interface
(see that module) in a bytearray and a bytes object, for tests, the emulator and the simulator.
Apart from FileStorage so that the Pico, which uses only files, does not load it."""


class MemoryStorage:
    """Journal and settings in RAM (tests, emulator, simulator before persistence)."""

    def __init__(self, journal=b"", settings=None):
        self.journal = bytearray(journal)
        self.settings = settings

    def append(self, line):
        """Append one journal line."""
        self.journal.extend(line)

    def lines(self, start=0):
        """Yield the journal's lines from byte offset start (the last may lack its newline).

        Line by line, without copying the whole journal (it may hold thousands of events).
        """
        data = self.journal
        while start < len(data):
            end = data.find(b"\n", start)
            if end < 0:
                yield bytes(data[start:])
                return
            yield bytes(data[start : end + 1])
            start = end + 1

    def truncate(self, size):
        """Cut the journal to size bytes."""
        # Slicing, not `del self.journal[size:]`: MicroPython's bytearray has no item deletion.
        self.journal = self.journal[:size]

    def size(self):
        """Return the journal size in bytes."""
        return len(self.journal)

    def load_settings(self):
        """Return the settings bytes or None."""
        return self.settings

    def save_settings(self, data):
        """Replace the settings."""
        self.settings = bytes(data)
