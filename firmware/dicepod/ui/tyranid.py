"""Tyranid Attack! screens: level and team set-up, the activation deck card by card, the
current Marine's actions, attacks (HIT/MISS with the die), the reinforcements bag, wounds and
special cards, the infestation deck count, the level result and the campaign. Pure."""

from dicepod.rules import tyranid as rules
from dicepod.ui import draw, drawn
from dicepod.ui.coop import ActionScreen, Status
from dicepod.ui.lists import Pick
from dicepod.ui.team import Team


class TyranidScreen(ActionScreen):
    """The whole game on one screen: what just happened above, the next action below."""

    def __init__(self, app):
        super().__init__(app)
        self.title = ""
        self.big = ""
        self.lines = []
        self.result = None

    def build(self, app):
        """Texts and actions for the current state."""
        game = app.session.game
        phase = game.phase
        actions = []
        lines = []
        self.big = ""
        self.result = None
        board = _board(game)
        # the players may draw the real cards and counters and enter them (DK-2)
        real = game.phase != rules.SETUP and game.real_draws()
        place = drawn.tyranid_counter if real and game.bag.total else _place
        if phase == rules.SETUP:
            self.title = "Tyranid Attack!"
            lines.append("Choose a level")
            lines.append("and 4 Marines.")
            for level in (1, 2, 3):
                actions.append(("Level %d" % level, _start(level, 0)))
            actions.append(("Campaign", _start(1, 1)))
        elif phase == rules.PLACING:
            self.title = "L%d set-up" % game.level
            if game.level == 2:
                lines.append("Roll the Lictor's")
                lines.append("entry square.")
                actions.append(("Roll Lictor", _lictor))
            else:
                lines.append("%d to draw" % game.setup_left)
                actions.append(("Draw counter", place))
            lines.append(self.note(app))
            lines.append(board)
        elif phase == rules.PLAY:
            # level, round, infestation cards left of the deck (Help says so)
            numbers = (game.level, game.round, game.infestation_left, game.infestation_total)
            self.title = "Level %d Round %d %d/%d" % numbers
            if len(self.title) > 21:
                self.title = "L%d R%d Inf %d/%d" % numbers
            card = game.last_card
            if card == rules.TYRANID_CARD:
                self.big = "TYRANIDS"
                lines.append("Infestation card!")
            elif card >= 0:
                self.big = rules.MARINES[card]
                if game.idle_card:
                    lines.append("out of action")
                elif game.current == card:
                    lines.append("%d actions left" % game.actions_left)
                else:
                    lines.append("turn over")
            else:
                lines.append("Deck %d cards" % game.activation.n_pile)
            lines.append(self.note(app))
            lines.append(board)
            deck_out = game.level == 1 and not game.infestation_out
            if game.infestation_out:
                actions.append(("Exit tile count", _exit))
            elif game.needs_shuffle():
                actions.append(("New round", _shuffle))
            elif game.current >= 0:
                # his whole turn, the round's last card too (TY-4)
                actions.append(("Move", "move"))
                actions.append(("Attack", _attack))
                actions.append(("Other action", "action"))
                if game.level == 1 and not game.console_open:
                    actions.append(("Console", _console))
                actions.append(("End turn", "end_turn"))
            else:
                actions.append(("Reveal card", drawn.tyranid_card if real else _activate))
                if deck_out and not game.infestation_left:
                    # the count says 0, the real deck decides (TY-9): second, so that the
                    # last card revealed is resolved before a tap ends the level
                    actions.append(("Deck ran out", "deck_out"))
                    deck_out = False
            if 0 <= game.last_card < rules.TYRANID_CARD and not game.idle_card:
                actions.append(("Free attack", _free_attack))  # no action spent (TY-5)
            actions.append(("Place Tyranid", place))
            actions.append(("Wound Marine", _wound))
            actions.append(("Special card", _special))
            actions.append(("Team", _team))
            actions.append(("Bag", _bag))
            actions.append(("Destroyed", _destroy))
            actions.append(("Returned", _return))
            actions.append(("+Tyranid card", "add_tyranid_card"))
            if deck_out:
                actions.append(("Deck ran out", "deck_out"))
            if game.level == 1 and not game.infestation_out:
                actions.append(("End: exit count", _exit))
            if game.level > 1 or game.campaign:  # the card's outcome (TY-16)
                actions.append(("Result: win", ("result", (rules.WIN,))))
                actions.append(("Result: loss", ("result", (rules.LOSS,))))
        else:
            self.title = "Level %d over" % game.level
            self.result = rules.RESULTS[game.result].upper()
            if game.campaign_won:
                lines.append("Campaign won!")
            if game.campaign and game.level < 3 and game.result in (2, 3, 4):
                actions.append(("Next level", _next_level))
            for level in (1, 2, 3):
                actions.append(("Level %d" % level, _start(level, 0)))
            actions.append(("Campaign", _start(1, 1)))
        self.lines = lines
        return actions

    def note(self, app):
        """What the last event did, from the journal's last event."""
        event = app.session.last_event
        game = app.session.game
        if event is None:
            return ""
        kind, data = event
        if kind == "place":
            return "Placed " + rules.KINDS[data[0]] if data else "Bag empty"
        if kind == "attack":
            target = rules.KINDS[data[0]]
            return "%s %s %d" % ("HIT" if game.last_hit else "MISS", target[:8], data[1])
        if kind == "lictor":
            return "Lictor on %d" % data[0]
        if kind == "console":
            return "Console %d: %s" % (data[0], "ON" if game.console_open else "no")
        if kind == "wound":
            m = data[0]
            return "%s %s" % (rules.MARINES[m], "OUT" if game.status[m] == 2 else "wounded")
        if kind == "destroy" or kind == "return":
            return "%s %s" % (kind, rules.KINDS[data[0]])
        if kind == "special":
            return "%s special" % rules.MARINES[data[0]]
        return ""

    def info(self, canvas):
        """Title, the revealed card in big letters, the lines."""
        draw.title(canvas, self.title)
        y = 11
        if self.result is not None:
            draw.banner(canvas, self.result[:8], 11, 2 if len(self.result) <= 8 else 1)
            y = 34
        elif self.big:
            big = self.big if len(self.big) <= 8 else self.big[:8]  # (a slice: a new string)
            draw.big(canvas, big, (128 - len(big) * 16) // 2, 11, 2)
            y = 28
        for line in self.lines:
            if y > 46:
                break
            if len(line) > 16:  # the 6×8 font: 21 columns
                draw.small(canvas, line, 0, y)
            else:
                canvas.text(line, 0, y, 1)
            y += 9


# Every ui mode module has open(app) -> its screen: the class itself.
open = TyranidScreen  # noqa: A001


def _board(game):
    """The Tyranids on the board in words ('Board: 6 Termagant'), or by initial when that is
    too long (the Help page says so)."""
    words = []
    for k in range(3):
        if game.board[k]:
            words.append("%d %s" % (game.board[k], rules.KINDS[k]))
    words = ", ".join(words)
    if len(words) <= 14:
        return "Board: " + (words or "none")
    return "Board T%d G%d L%d" % (game.board[0], game.board[1], game.board[2])


# -- actions: function(app) -> transition ------------------------------------------------------


def _start(level, campaign):
    """Start a level (or a campaign): choose the team first (a screen of its own)."""

    def team(app):
        return Team(level, campaign)

    return team


def _play_with(kind):
    """A Pick's then: play (kind, (the value picked,))."""
    return lambda app, value: app.session.play((kind, (value,)))


def _lictor(app):
    app.session.play(rules.lictor_roll(app.randbelow))


def _place(app):
    app.session.play(rules.place(app.session.game, app.randbelow))


def _shuffle(app):
    app.session.play(rules.shuffle(app.session.game, app.randbelow))


def _activate(app):
    return _reveal(app, rules.activate(app.session.game)[1][0])


def _reveal(app, card):
    game = app.session.game
    event = ("activate", (card,))
    if card != rules.TYRANID_CARD and game.status[card] != rules.OUT:
        # ask for the Marine's missing actions before playing: the game folds nothing again
        game.actions(card)
    app.session.play(event)


def _console(app):
    app.session.play(rules.console(app.randbelow))


def _targets(game, attack=True):
    labels = []
    values = []
    for k in range(3):
        if game.board[k]:
            labels.append("%s (%d)" % (rules.KINDS[k], game.board[k]))
            values.append(k)
    if attack and game.level == 3 and not game.prime_destroyed:
        labels.append("Prime %d/%d" % (game.prime_damage, game.prime_wounds()))
        values.append(rules.PRIME)
    return labels, values


def _attack(app, free=False):
    labels, values = _targets(app.session.game)
    if not values:
        raise ValueError("no targets")

    def then(app, target):
        app.session.game.resilience(target)  # ask for a missing resilience before rolling
        app.session.play(rules.attack(target, app.randbelow, free))

    return Pick("Free attack" if free else "Attack", labels, values, 0, then)


def _free_attack(app):
    return _attack(app, True)


def _destroy(app):
    labels, values = _targets(app.session.game, False)
    return Pick("Destroyed", labels, values, 0, _play_with("destroy"))


def _return(app):
    labels, values = _targets(app.session.game, False)
    return Pick("Back to bag", labels, values, 0, _play_with("return"))


def _marines(game, need_special=False):
    labels = []
    values = []
    for m in range(5):
        if game.in_play[m] and game.status[m] != rules.OUT:
            if need_special and not game.specials[m]:
                continue
            labels.append(rules.MARINES[m])
            values.append(m)
    return labels, values


def _wound(app):
    labels, values = _marines(app.session.game)
    return Pick("Wound", labels, values, 0, _play_with("wound"))


def _special(app):
    labels, values = _marines(app.session.game, True)
    if not values:
        raise ValueError("no special cards")
    return Pick("Special card", labels, values, 0, _play_with("special"))


def _team(app):
    """Tyranid Attack!: the team, each Marine's side and special cards."""
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


def _bag(app):
    """Tyranid Attack!: the reinforcements bag and the board, by kind."""
    game = app.session.game
    items = []
    for k in range(3):
        items.append("%-11s bag %2d" % (rules.KINDS[k], game.bag.counts[k]))
    for k in range(3):
        items.append("%-11s board %2d" % (rules.KINDS[k], game.board[k]))
    return Status("Bag %d" % game.bag.total, items)


def _exit(app):
    """How many Marines stand on the exit tile (Level 1's end)."""
    game = app.session.game
    standing = game.marines_standing() if game.console_open else 0
    labels = []
    for n in range(standing + 1):
        labels.append("%d Marines" % n)
    return Pick("On the exit tile", labels, list(range(standing + 1)), standing, _play_with("exit"))


def _next_level(app):
    """The campaign's next level, with its reinforcement if one may come."""
    game = app.session.game
    labels = ["No reinforcement"]
    values = [-1]
    m = game.reserve()  # only the unused Marine, after a loss (TY-14)
    if m >= 0:
        labels.append("+ " + rules.MARINES[m])
        values.append(m)
    return Pick("Next level", labels, values, 0, _do_next)


def _do_next(app, m):
    app.session.play(("next_level", () if m < 0 else (m,)))
