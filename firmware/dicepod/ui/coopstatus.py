"""The co-op games' read-only status lists (Rise of the Orks' Terminators, board and reserves;
Tyranid Attack!'s team and bag): a passing module, imported when one is opened (an action
named "dicepod.ui.coopstatus.<name>", see dicepod.ui.coop.ActionScreen). Pure."""

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


def tyranid_team(app):
    """Tyranid Attack!: the team, each Marine's side and special cards."""
    from dicepod.rules import tyranid as rules

    game = app.session.game
    items = []
    for m in range(5):
        if game.in_play[m]:
            items.append(
                "%-8s %-7s %d"
                % (
                    rules.MARINES[m],
                    ("healthy", "wounded", "out")[game.status[m]],
                    game.specials[m],
                )
            )
    return Status("Side, special cards", items)


def tyranid_bag(app):
    """Tyranid Attack!: the reinforcements bag and the board, by kind."""
    from dicepod.rules import tyranid as rules

    game = app.session.game
    items = []
    for k in range(3):
        items.append("%-11s bag %2d" % (rules.KINDS[k], game.bag.counts[k]))
    for k in range(3):
        items.append("%-11s board %2d" % (rules.KINDS[k], game.board[k]))
    return Status("Bag %d" % game.bag.total, items)
