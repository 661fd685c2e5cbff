"""Player-changeable settings: the rules' open points and the values players enter from their
own cards. Pure: runs unchanged on MicroPython and CPython.

Each rules module declares its settings as SETTINGS, a sequence of specs
    (key, default, low, high, label)
with integer values: a tuple of such tuples, or (for a long list) dicepod.rules.specs.Specs,
the same specs as compact text decoded on demand. A default of None means "the rulebook does
not give it: ask the player"; reading such a key before the player has entered it raises
MissingValue naming the key, so a game never invents a number. The settings file's one
reader (load: once at boot, by board.assemble) and one encoding (encode/decode) are here too;
persistence (temp file + rename) is the storage driver's job.
"""

import json


class MissingValue(Exception):
    """A value the game needs and the player has not entered yet (args[0] = key, [1] = label)."""


def spec_keys(specs):
    """Return the keys of specs in order: strings (a tuple of specs), or bytes (Specs: keys()
    decodes nothing, not even the key; Settings.set takes either)."""
    if isinstance(specs, (tuple, list)):
        return [spec[0] for spec in specs]
    return specs.keys()


def spec_index(specs, key):
    """Return the position of key in specs (a tuple of specs, or Specs), or -1."""
    if not isinstance(specs, (tuple, list)):
        return specs.index(key)  # dicepod.rules.specs.Specs
    for i in range(len(specs)):
        if specs[i][0] == key:
            return i
    return -1


class Settings:
    """Values for a set of specs (SETTINGS: a tuple of specs, or Specs); validates every change.
    Values sit in a list by spec position; keys are looked up in the specs."""

    def __init__(self, specs, values=None):
        self.specs = specs
        if isinstance(specs, (tuple, list)):
            slots = self.slots = []  # (a loop, as in spec_keys)
            for spec in specs:
                slots.append(spec[1])
        else:
            self.slots = specs.defaults()  # dicepod.rules.specs.Specs
        if values:
            for key in values:
                if spec_index(specs, key) >= 0:
                    self.set(key, values[key])

    @property
    def values(self):
        """Every value as a new {key: value} dict (None = not entered)."""
        out = {}
        i = 0
        for spec in self.specs:
            out[spec[0]] = self.slots[i]
            i += 1
        return out

    def at(self, index):
        """Return the value of the spec at index; raise MissingValue if it has none."""
        value = self.slots[index]
        if value is None:
            spec = self.specs[index]
            raise MissingValue(spec[0], spec[4])
        return value

    def get(self, key):
        """Return the value of key; raise MissingValue if the player must enter it first.
        (spec_index and at() written out for a tuple of specs: the screens read settings in
        the press that shows a roll, and two calls cost as much as the search.)"""
        specs = self.specs
        if not isinstance(specs, tuple):
            index = spec_index(specs, key)
            if index < 0:
                raise KeyError(key)
            return self.at(index)
        i = 0
        n = len(specs)
        while i < n:  # (not a for loop: its iterator's slots would put the frame on the heap)
            if specs[i][0] == key:
                value = self.slots[i]
                if value is None:
                    raise MissingValue(key, specs[i][4])
                return value
            i += 1
        raise KeyError(key)

    def set(self, key, value):
        """Set key to an int inside its range; raise ValueError otherwise."""
        specs = self.specs
        if isinstance(specs, (tuple, list)):
            index = spec_index(specs, key)
            found = (index, specs[index][2], specs[index][3]) if index >= 0 else None
        else:
            found = specs.limits(key)  # dicepod.rules.specs.Specs: three fields decoded
        if found is None:
            raise ValueError("unknown setting %s" % key)
        index, low, high = found
        if value is not None and (not isinstance(value, int) or not low <= value <= high):
            raise ValueError("%s must be %d..%d" % (key, low, high))
        self.slots[index] = value


# -- the settings file: one JSON line {key: int}, sorted keys, the same bytes everywhere -----


def encode(values):
    """Yield the settings file's bytes for a {key: int} dict (None values left out) in pieces,
    one a setting (`{"key":value`, then `,"key":value`) and `}` with a newline: the drivers
    write them one by one, so a save never asks the heap for the whole file in one block."""
    sep = "{"
    for key in sorted(values):
        if values[key] is not None:
            yield ("%s%s:%s" % (sep, json.dumps(key), json.dumps(values[key]))).encode()
            sep = ","
    yield b"{}\n" if sep == "{" else b"}\n"


def decode(data):
    """Decode the settings file's bytes into a dict; raise ValueError when corrupt."""
    # (A settings file larger than 4 KB or nested never gets here: the storage drivers
    # refuse it before it is parsed, see dicepod.drivers.storage.load_settings.)
    try:
        values = json.loads(data)
    except ValueError:
        raise ValueError("corrupt settings")
    if not isinstance(values, dict):
        raise ValueError("corrupt settings")
    return values


def load(storage, messages):
    """Read the settings file once: the players' {key: int} values ({} when there is none);
    an unreadable or corrupt file gives {} and a line in messages (shown once the app has
    started). Checked against their specs (Settings.set) when used."""
    values = {}
    data = None
    try:
        data = storage.load_settings()
    except OSError:
        messages.append("Settings unreadable: defaults")
    if data is not None:
        try:
            saved = decode(data)
        except ValueError:
            saved = {}
            messages.append("Settings corrupt: defaults")
        for key in saved:
            if isinstance(key, str) and isinstance(saved[key], int):
                values[key] = saved[key]
    return values
