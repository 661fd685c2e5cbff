"""What the players drew or chose themselves, entered on the device (docs/RULES.md DK-2, OR-6,
OR-14): the activation card and the counter they drew for Tyranid Attack!, the token from the
Ork reserves, and the Toughness a supply card sets for an attack (the turn order of
Terminators with equal Command values: dicepod.ui.turnorder). Pure."""

from dicepod.ui.lists import Pick
from dicepod.ui.screen import Replace


def _play_first(kind):
    """A Pick's then: play (kind, (the value picked,))."""
    return lambda app, value: app.session.play((kind, (value,)))


def tyranid_card(app):
    """Which activation card the players revealed: one entry per card left in the draw pile
    (the Tyranid screen's reveal plays it)."""
    from dicepod.rules import tyranid
    from dicepod.ui.tyranid import _reveal as reveal

    deck = app.session.game.activation
    labels = []
    values = []
    for card in range(tyranid.TYRANID_CARD + 1):
        for i in range(deck.n_pile):
            if deck.pile[i] == card:
                labels.append("Tyranids" if card == tyranid.TYRANID_CARD else tyranid.MARINES[card])
                values.append(card)
                break
    return Pick("Card revealed", labels, values, 0, reveal)


def tyranid_counter(app):
    """Which counter the players drew from the reinforcements bag."""
    from dicepod.rules import tyranid

    counts = app.session.game.bag.counts
    labels = []
    values = []
    for k in range(3):
        if counts[k]:
            labels.append("%s (%d)" % (tyranid.KINDS[k], counts[k]))
            values.append(k)
    return Pick("Drawn from bag", labels, values, 0, _play_first("place"))


def orks_token(app):
    """Which token the players drew from the reserves; the device rolls its breach hex."""
    from dicepod.rules import orks

    counts = app.session.game.reserves.counts
    labels = []
    values = []
    for k in range(10):
        if counts[k]:
            labels.append("%s (%d)" % (orks.KINDS[k], counts[k]))
            values.append(k)

    def add(app, kind):
        app.session.play(("add", (kind, app.randbelow(6) + 1)))

    return Pick("Drawn token", labels, values, 0, add)


def orks_card_attack(app):
    """Attack a kind on the board at the Toughness a supply card sets (the Orks screen's
    attack_where asks cover and rolls)."""
    from dicepod.ui.orkhits import kinds_on_board as _kinds_on_board
    from dicepod.ui.orks import _attack_where as attack_where

    labels, values = _kinds_on_board(app.session.game)
    if not values:
        raise ValueError("no Orks")

    def then(app, kind):
        def where(app, tough):
            return attack_where(app, kind, tough)

        names = ["Toughness %d" % n for n in range(1, 7)]
        return Replace(Pick("Card sets", names, [1, 2, 3, 4, 5, 6], 1, where))

    return Pick("Card attack", labels, values, 0, then)
