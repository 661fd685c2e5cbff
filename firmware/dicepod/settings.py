"""Player-changeable settings: the rules' open points and the values players enter from their
own cards. Pure: runs unchanged on MicroPython and CPython.

Each rules module declares its settings as a tuple SETTINGS of specs
    (key, default, low, high, label)
with integer values. A default of None means "the rulebook does not give it: ask the player";
reading such a key before the player has entered it raises MissingValue naming the key, so a
game never invents a number. Persistence (temp file + rename) is the storage driver's job; this
module only encodes to and decodes from bytes.
"""

import json


class MissingValue(Exception):
    """A value the game needs and the player has not entered yet (args[0] = key, [1] = label)."""


class Settings:
    """Values for a set of specs; validates every change."""

    def __init__(self, specs, values=None):
        self.specs = {}
        self.values = {}
        for spec in specs:
            self.specs[spec[0]] = spec
            self.values[spec[0]] = spec[1]
        if values:
            for key in values:
                if key in self.specs:
                    self.set(key, values[key])

    def get(self, key):
        """Return the value of key; raise MissingValue if the player must enter it first."""
        value = self.values[key]
        if value is None:
            raise MissingValue(key, self.specs[key][4])
        return value

    def has(self, key):
        """Return True when key has a value (default or entered)."""
        return self.values.get(key) is not None

    def set(self, key, value):
        """Set key to an int inside its range; raise ValueError otherwise."""
        spec = self.specs.get(key)
        if spec is None:
            raise ValueError("unknown setting %s" % key)
        if value is not None:
            if not isinstance(value, int) or not spec[2] <= value <= spec[3]:
                raise ValueError("%s must be %d..%d" % (key, spec[2], spec[3]))
        self.values[key] = value

    def missing(self, keys=None):
        """Return the keys (of keys, or all) that still need a value from the player."""
        return [k for k in (keys or sorted(self.specs)) if self.values.get(k) is None]

    def to_bytes(self):
        """Encode the values as one JSON line with sorted keys (same bytes on both interpreters)."""
        parts = []
        for key in sorted(self.values):
            parts.append("%s:%s" % (json.dumps(key), json.dumps(self.values[key])))
        return ("{" + ",".join(parts) + "}\n").encode()

    @staticmethod
    def decode(data):
        """Decode bytes from to_bytes into a dict; raise ValueError when corrupt."""
        try:
            values = json.loads(data)
        except ValueError:
            raise ValueError("corrupt settings")
        if not isinstance(values, dict):
            raise ValueError("corrupt settings")
        return values
