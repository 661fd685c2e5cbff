"""Rise of the Orks' read-only status lists (the Terminators, the board and reserves). Pure."""

from dicepod.ui.coop import Status


def orks_terminators(app):
    """Rise of the Orks: the Terminators in turn order, damage and kills, and the supply."""
    from dicepod.rules import orks as rules

    game = app.session.game
    items = []
    for i in range(5):
        t = game.order[i]
        items.append("%-10s %d/5 %3d" % (rules.TERMINATORS[t], game.damage[t], game.kills[t]))
    items.append("Supply deck %d" % game.supply_deck)
    items.append("Supply cards kept %d" % game.supply_kept)
    items.append("Supply tokens %d" % game.supply_tokens)
    return Status("Damage of 5, kills", items)


def orks_board(app):
    """Rise of the Orks: each kind on the board and in the reserves."""
    from dicepod.rules import orks as rules

    game = app.session.game
    items = []
    for k in range(10):
        if game.board[k] or game.reserves.counts[k]:
            items.append("%-10s %2d %2d" % (rules.KINDS[k], game.board[k], game.reserves.counts[k]))
    return Status("On board, in reserve", items)
