"""Pure game rules: no hardware, time or random imports; randomness arrives as randbelow(n)."""


def apply_checked(game, event):
    """Fold event into game with game._apply(kind, data), turning a malformed event (wrong shape
    or types) into ValueError, and count it in game.events. Shared by the co-op modes' and the
    Tests mode's Game.apply."""
    try:
        kind, data = event
        if not isinstance(data, (tuple, list)):  # a list once decoded from JSON
            raise ValueError("bad event data")
        game._apply(kind, data)
    except (TypeError, IndexError, KeyError):
        raise ValueError("bad event")
    game.events += 1
