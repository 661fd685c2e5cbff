"""Rise of the Orks: starting a game at a difficulty, and the turn order when Terminators have
equal Command values, chosen by the players (docs/RULES.md OR-6). Pure."""

from dicepod.ui.lists import Pick
from dicepod.ui.screen import Replace


def orks_order(app, difficulty, chosen, nested):
    """Start the game in the order the players choose: one question per group of equal
    Command values, highest Command first; chosen = the Terminators placed so far."""
    from dicepod.rules import orks

    game = app.session.game
    left = [t for t in range(5) if t not in chosen]
    while left:
        best = max([game.command(t) for t in left])
        tied = [t for t in left if game.command(t) == best]
        if len(tied) > 1:
            names = [orks.TERMINATORS[t] for t in tied]

            def then(app, t, chosen=chosen):
                return orks_order(app, difficulty, chosen + (t,), True)

            pick = Pick("Equal: who first?", names, tied, 0, then)
            return Replace(pick) if nested else pick
        chosen += (tied[0],)
        left.remove(tied[0])
    app.session.play(("start", (difficulty,) + chosen))
    return None


def start(app, difficulty):
    """Start the game: the start event (a missing Command value is asked first); on equal
    Command values the players choose the order."""

    game = app.session.game
    for t in range(5):
        game.command(t)  # a missing Command value is asked before anything is played
    for t in range(5):
        game.allowance(t)  # and each Terminator's Moves and Attacks (OR-8)
    try:
        return app.session.play(("start", (difficulty,)))
    except ValueError as exc:
        if exc.args[0] != "choose the order":  # equal Command values
            raise
    return orks_order(app, difficulty, (), False)


def novice(app):
    return start(app, 0)


def warrior(app):
    return start(app, 1)


def veteran(app):
    return start(app, 2)


def commander(app):
    return start(app, 3)
