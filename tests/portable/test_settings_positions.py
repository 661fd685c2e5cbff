"""The co-op modes read their settings by position (Settings.at with private indexes beside the
compact spec text, so folding builds no key strings). This pins every index to its key: each
setting gets a value its neighbours do not have, and the accessor that reads it must return
that key's value, so a spec line moved or inserted without its index fails here.
Portable: runs under CPython (pytest) and real MicroPython (tests/mp_runner.py)."""

from dicepod.rules import orks, tyranid
from dicepod.settings import Settings


def _named(names, name):
    """The position of name (lower case) in a tuple of names."""
    for i in range(len(names)):
        if names[i].lower() == name:
            return i
    raise AssertionError("no %s" % name)


def _distinct(specs):
    """Settings where each spec holds low + (position mod its range): neighbours differ."""
    settings = Settings(specs)
    i = 0
    for spec in specs:
        span = spec[3] - spec[2] + 1
        settings.set(spec[0], spec[2] + i % span)
        i += 1
    return settings


def test_tyranid_every_setting_read_by_its_own_key():
    settings = _distinct(tyranid.SETTINGS)
    game = tyranid.Game(settings)
    checked = 0
    for spec in tyranid.SETTINGS:
        key = spec[0]
        name = key.split(".")[1]
        want = settings.get(key)
        if name.startswith("actions_"):
            m = _named(tyranid.MARINES, name[8:])
            assert game.actions(m) == want, key
        elif name.startswith("wounded_"):
            m = _named(tyranid.MARINES, name[8:])
            game.status[m] = tyranid.WOUNDED
            assert game.actions(m) == want, key
            game.status[m] = tyranid.HEALTHY
        elif name.startswith("res_"):
            kind = _named(tyranid.KINDS, name[4:])
            assert game.resilience(kind) == want, key
        elif name == "prime_damage" or name == "adrenal_glands":
            total = settings.get("tyranid.prime_damage") + settings.get("tyranid.adrenal_glands")
            assert game.prime_wounds() == total, key
        elif name == "briefing_counted" or name == "advanced":
            game.apply(("start", (1, 0, 0, 1, 2, 3)))
            printed = 24 + settings.get("tyranid.advanced")
            assert game.infestation_total == printed - settings.get("tyranid.briefing_counted")
            game = tyranid.Game(settings)
        elif name == "real_draws":
            assert game.real_draws() == (want == 1), key
        else:
            raise AssertionError("setting %s not pinned" % key)
        checked += 1
    assert checked == len(tyranid.SETTINGS)


def test_orks_every_setting_read_by_its_own_key():
    settings = _distinct(orks.SETTINGS)
    game = orks.Game(settings)
    short = ("boy", "nob", "meganob", "burna", "kommando", "mek", "bigmek", "painboy")
    short += ("weirdboy", "warboss")
    checked = 0
    for spec in orks.SETTINGS:
        key = spec[0]
        group, _, what = key.split(".")[1].partition("_")
        want = settings.get(key)
        if key == "orks.real_draws":
            pass  # read by key (the screens), not by position
        elif group == "command":
            t = _named(orks.TERMINATORS, what)
            assert game.command(t) == want, key
        elif group == "actions":
            t = _named(orks.TERMINATORS, what)
            assert game.allowance(t) == want, key
        elif group == "tough":
            assert game.toughness(short.index(what)) == want, key
        elif group == "damage":
            assert game.ork_damage(short.index(what)) == want, key
        else:
            difficulty = _named(orks.DIFFICULTIES, group)
            if what == "wave":
                game.difficulty = difficulty
                assert game.per_wave() == want, key
            else:
                assert game.horde(difficulty, short.index(what)) == want, key
        checked += 1
    assert checked == len(orks.SETTINGS)


def test_spec_lookups_agree_in_any_order():
    # Specs looks first at the line of the last key found, then at the line after it (folds
    # set keys in spec order), then searches: in order, backwards, the same key twice, by a
    # prefix of a key, the same answers as a search.
    for specs in (tyranid.SETTINGS, orks.SETTINGS):
        decoded = list(specs)
        n = len(decoded)
        order = list(range(n)) + list(range(n - 1, -1, -1)) + [0, 0, n - 1, 0, 2, 1]
        for i in order:
            key, _default, low, high, _label = decoded[i]
            assert specs.index(key) == i, key
            assert specs.limits(key) == (i, low, high), key
            assert specs.index(key[:-1]) == -1, key  # a prefix is no key
            assert specs.limits(key + "x") is None, key


def test_keys_as_bytes_set_what_their_strings_set():
    # A new game sets a long list's keys as bytes (Specs.keys: no string made before its
    # frame); the journal gets them as strings. Either way the same slot, the same checks.
    from dicepod.settings import spec_keys

    for specs in (tyranid.SETTINGS, orks.SETTINGS):
        keys = list(spec_keys(specs))
        assert keys == [spec[0].encode() for spec in specs]
        by_str = _distinct(specs)
        by_bytes = Settings(specs)
        for i in range(len(keys)):
            by_bytes.set(keys[i], by_str.slots[i])
            assert specs.index(keys[i]) == specs.index(keys[i].decode()) == i
            assert specs.limits(keys[i]) == specs.limits(keys[i].decode())
        assert by_str.slots == by_bytes.slots
        for bad in (b"", b"orks. x", b"no.such", 7):
            assert specs.index(bad) == -1


def test_specs_in_parts_read_as_one_text():
    # Rise of the Orks's specs come in parts (each bytes constant a block of its own): they
    # read exactly as the same lines in one text, across every part boundary, either way.
    from dicepod.rules.specs import Specs

    lines = [
        b"k%d %s %d %d Label %d\n" % (i, b"-" if i % 3 else b"%d" % i, i, i + 9, i)
        for i in range(9)
    ]
    whole = Specs(b"".join(lines))
    parted = Specs(b"".join(lines[:1]), b"".join(lines[1:5]), b"".join(lines[5:]))
    assert len(parted) == len(whole) == 9
    assert list(parted) == list(whole) and list(parted.keys()) == list(whole.keys())
    assert parted.defaults() == whole.defaults()
    assert [parted[i] for i in range(-9, 9)] == [whole[i] for i in range(-9, 9)]
    for bad in (9, -10):
        try:
            parted[bad]
        except IndexError:
            pass
        else:
            raise AssertionError("parted[%d] did not raise" % bad)
    order = list(range(9)) + list(range(8, -1, -1)) + [4, 5, 0, 8, 4, 4]
    for specs in (whole, parted, whole, parted):  # (each from where its last search left it)
        for i in order:
            key = "k%d" % i
            assert specs.index(key) == i and specs.limits(key) == (i, i, i + 9), key
        assert specs.index("k9") == -1 and specs.limits("k") is None


def test_the_settings_file_comes_in_pieces_that_join_to_one_json_line():
    # dicepod.settings.encode yields the file piece by piece (a save never holds it whole):
    # joined they are one flat JSON object, keys sorted, None left out, and a newline.
    import json

    from dicepod.settings import decode, encode

    values = {"orks.tough_nob": 3, "battle.table": 0, "free.dice": None, "device.volume": 12}
    pieces = list(encode(values))
    assert len(pieces) == 4 and all(isinstance(p, bytes) for p in pieces)
    data = b"".join(pieces)
    assert data == b'{"battle.table":0,"device.volume":12,"orks.tough_nob":3}\n'
    assert decode(data) == {"battle.table": 0, "device.volume": 12, "orks.tough_nob": 3}
    assert json.loads(data) == decode(data)
    assert b"".join(encode({})) == b"{}\n" and b"".join(encode({"free.dice": None})) == b"{}\n"
