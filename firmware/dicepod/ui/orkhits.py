"""Rise of the Orks: what the Orks do to the Terminators, entered by the players (an Ork's hit,
damage from the special Orks and cards). Pure."""

from dicepod.rules import orks as rules
from dicepod.ui.lists import Pick
from dicepod.ui.screen import Replace


def kinds_on_board(game):
    """The kinds on the board: labels "Boy (3)" and their kind ids."""
    labels = []
    values = []
    for k in range(10):
        if game.board[k]:
            labels.append("%s (%d)" % (rules.KINDS[k], game.board[k]))
            values.append(k)
    return labels, values


def _standing(game):
    labels = []
    values = []
    for t in range(5):
        if game.damage[t] < 5:
            labels.append("%s %d/5" % (rules.TERMINATORS[t], game.damage[t]))
            values.append(t)
    return labels, values


def hit(app):
    """Which standing Terminator an Ork hits, then which kind (on the board: OR-16)."""
    labels, values = _standing(app.session.game)
    return Pick("Ork hits", labels, values, 0, _hit_by)


def _hit_by(app, t):
    def hit(app, kind):  # which Ork kind hits Terminator t (its damage from the settings)
        app.session.game.ork_damage(kind)
        app.session.play(("hit", (t, kind)))

    labels, values = kinds_on_board(app.session.game)  # only a kind on the board hits (OR-16)
    return Replace(Pick("Hit by", labels, values, 0, hit))


def damage(app):
    """Damage dealt to a standing Terminator (Weirdboy, Big Mek, Mek, cards)."""
    labels, values = _standing(app.session.game)
    return Pick("Damage to", labels, values, 0, _damage_amount)


def _damage_amount(app, t):
    def deal(app, n):  # how much damage (1..5)
        app.session.play(("damage", (t, n)))

    return Replace(Pick("Damage", ["1", "2", "3", "4", "5"], [1, 2, 3, 4, 5], 0, deal))
