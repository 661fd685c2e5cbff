"""Setting specs as compact text (see dicepod.settings). Pure: runs unchanged on MicroPython
and CPython. A rules module with many settings declares SETTINGS = Specs(text) instead of a
tuple of specs: same reading, far less heap."""


def _spec(line):
    """Decode one Specs line (bytes) into (key, default, low, high, label)."""
    key, default, low, high, label = line.split(b" ", 4)
    default = None if default == b"-" else int(default)
    return (key.decode(), default, int(low), int(high), label.decode())


class Specs:
    """Setting specs as text, one a line: `key default low high label` (default `-` = None,
    ask the player); every line ends with a newline. Reads like a tuple of 5-tuples (iterate,
    index, len), each spec decoded when asked for; keys() and limits() decode less. The text
    is bytes, not a str, because MicroPython indexes bytes directly and a str by walking it.
    The text may come in parts (Specs(part, part, ...), each of whole lines), so that no one
    constant needs a large block of the heap."""

    # [parts, part, offset, index] of the line of the last key found (a cache shared by every
    # Specs): a fold and a new game set the keys in spec order, so each is found on the line
    # after it without a search of the text.
    next = [(), 0, 0, 0]

    def __init__(self, *parts):
        self.parts = parts
        # every spec's default, decoded once here, where a new game would want them twice
        out = self._defaults = []
        for text in parts:
            start = 0
            while start < len(text):
                at = text.find(b" ", start) + 1
                end = text.find(b" ", at)
                out.append(None if text.startswith(b"-", at) else int(text[at:end]))
                start = text.find(b"\n", end) + 1

    def __len__(self):
        return len(self._defaults)

    def __iter__(self):
        for text in self.parts:
            start = 0
            end = text.find(b"\n")
            while end >= 0:
                yield _spec(text[start:end])
                start = end + 1
                end = text.find(b"\n", start)

    def __getitem__(self, index):
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("spec index")
        for text in self.parts:
            lines = text.count(b"\n")
            if index < lines:
                start = 0
                for _ in range(index):
                    start = text.find(b"\n", start) + 1
                return _spec(text[start : text.find(b"\n", start)])
            index -= lines

    def defaults(self):
        """Return a new list of every spec's default (None for `-`): a Game's Settings start
        from it on every fold, undo and new game without building the specs."""
        return list(self._defaults)

    def keys(self):
        """Iterate the keys alone, as bytes (no string made per key; limits() and index() take
        a key as bytes too)."""
        for text in self.parts:
            start = 0
            while start < len(text):
                yield text[start : text.find(b" ", start)]
                start = text.find(b"\n", start) + 1

    def limits(self, key):
        """Return (index, low, high) of key's spec, or None (unknown key), decoding those
        fields only: a setting is checked against them on every change and every fold."""
        at = self._line(key)
        if at < 0:
            return None
        text = self.parts[self.next[1]]
        at = text.find(b" ", text.find(b" ", at) + 1) + 1  # past key and default
        mid = text.find(b" ", at)
        low, high = int(text[at:mid]), int(text[mid + 1 : text.find(b" ", mid + 1)])
        return self.next[3], low, high

    def index(self, key):
        """Return the position of key's spec, or -1 (no string is built)."""
        return self.next[3] if self._line(key) >= 0 else -1

    def _line(self, key):
        """Return the offset of key's line in its part of the text, or -1; self.next then
        holds the parts, that part's position, the offset and the spec's index. Looked for
        first where the last key was found (a key's index, then its limits), then on the line
        after it (the keys in spec order), then everywhere."""
        if isinstance(key, str):
            key = key.encode()
        if not isinstance(key, bytes) or not key or b" " in key or b"\n" in key:
            return -1
        parts = self.parts
        hint = self.next
        at = -1
        if hint[0] is parts:
            part = hint[1]
            at = hint[2]
            index = hint[3]
            text = parts[part]
            if not (text.startswith(key, at) and text.startswith(b" ", at + len(key))):
                at = text.find(b"\n", at) + 1
                index += 1
                if at == len(text):  # past the part's last line: the next part's first line
                    part += 1
                    at = 0
                    if part == len(parts):
                        part = index = 0  # (past the last: the first)
                    text = parts[part]
                if not (text.startswith(key, at) and text.startswith(b" ", at + len(key))):
                    at = -1
        if at < 0:
            index = part = 0
            for text in parts:
                at = text.find(key)
                while at >= 0:
                    if (at == 0 or text.startswith(b"\n", at - 1)) and text.startswith(
                        b" ", at + len(key)
                    ):
                        break
                    at = text.find(key, at + 1)
                if at >= 0:
                    index += text.count(b"\n", 0, at)
                    break
                index += text.count(b"\n")
                part += 1
            if at < 0:
                return -1
        hint[0] = parts
        hint[1] = part
        hint[2] = at
        hint[3] = index
        return at
