"""Test helper: legal game logs made by the real journal, protocol and rules modules.

games are lists of events; build() journals them (undo included) and returns the journal bytes
and the device's protocol lines, exactly what a dicepod would send."""

from seeded import Seeded

from dicepod import journal, protocol
from dicepod.drivers.memstorage import MemoryStorage
from dicepod.rules import battle, free

DEV = "d1ce0001"


# What players entered for the values the rulebooks leave to them (the rest: their lowest).
_ENTERED = {"battle.rows": 3}  # and one action a scoring roll (the table, BG-11)
for _kind in ("lucky", "double", "three", "straight"):
    _ENTERED["battle.buys_" + _kind] = 1


def _settings_events(module):
    out = []
    for key, default, low, _high, _label in module.SETTINGS:
        value = _ENTERED.get(key, default if default is not None else low)
        out.append(("set", (key, value)))
    return out


def free_game(seed=1, rolls=20, undo_every=6):
    """A Free roll game: rolls of the set number of dice, an undo now and then."""
    rng = Seeded(seed)
    game = free.Game(None)
    events = [("new_game", ("free",))] + _settings_events(free)
    for event in events:
        game.apply(event)
    for i in range(rolls):
        events.append(free.roll(game, rng.randbelow))
        if undo_every and i % undo_every == undo_every - 1:
            events.append(("undo", ()))
    return events


def battle_game(seed=1, turns=12):
    """A Battle Game: roll, set aside the first legal choice or bust, advance, end turn."""
    rng = Seeded(seed)
    game = battle.Game(None)
    events = [("new_game", ("battle",))] + _settings_events(battle)
    for event in events:
        game.apply(event)

    def play(event):
        game.apply(event)
        events.append(event)

    for _turn in range(turns):
        if game.phase == battle.OVER:
            play(battle.next_game(1 - game.player))
            continue
        play(battle.roll(game, rng.randbelow))
        if game.phase == battle.BUST:
            play(battle.bust())
            continue
        play(battle.set_aside(game.choices()[0]))
        play(battle.actions())
        try:
            play(battle.advance(game.player, rng.randbelow(5), 1))
        except ValueError:
            pass
        play(battle.end_turn())
    return events


def build(games, dev=DEV, ms_step=700):
    """Journal every game's events; return (storage, [protocol line bytes])."""
    storage = MemoryStorage()
    j = journal.Journal(storage)
    j.recover()
    lines = []
    ms = 0
    for events in games:
        for event in events:
            line = j.append(ms, event)
            lines.append(protocol.event_line(dev, line))
            ms += ms_step
    return storage, lines


def standard(dev=DEV):
    """Two free games and two battle games: (storage, protocol lines)."""
    return build([free_game(1), battle_game(2), free_game(3, rolls=8), battle_game(4)], dev)


def tests_game(seed=1, rolls=30):
    """A Tests game: a target number, then rolls of 1-6 dice, changing the TN now and then."""
    from dicepod.rules import tn as rules

    rng = Seeded(seed)
    game = rules.Game(None)
    events = [("new_game", ("tests",))] + _settings_events(rules)
    for event in events:
        game.apply(event)

    def play(event):
        game.apply(event)
        events.append(event)

    for i in range(rolls):
        if i % 10 == 0:
            play(("tn", (2 + rng.randbelow(5),)))
        play(rules.roll(game, 1 + rng.randbelow(6), rng.randbelow))
    return events
