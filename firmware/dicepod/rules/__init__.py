"""Pure game rules: no hardware, time or random imports; randomness arrives as randbelow(n)."""


def apply_checked(game, event, mode):
    """Fold event into game: `set` and `new_game` here (game.settings, the mode name), every other
    kind through game._apply(kind, data); a malformed event (wrong shape or types) becomes
    ValueError, and each event is counted in game.events. Shared by the co-op modes' and the
    Tests mode's Game.apply."""
    try:
        kind, data = event
        if not isinstance(data, (tuple, list)):  # a list once decoded from JSON
            raise ValueError("bad event data")
        if kind == "set":
            if len(data) != 2 or not isinstance(data[1], int):
                raise ValueError("bad setting")
            game.settings.set(data[0], data[1])
        elif kind == "new_game":
            if data and data[0] != mode:
                raise ValueError("not a game of %s" % mode)
        else:
            game._apply(kind, data)
    except (TypeError, IndexError, KeyError):
        raise ValueError("bad event")
    game.events += 1
