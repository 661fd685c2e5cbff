"""Rise of the Orks screens: difficulty set-up, Ork waves drawn from the reserves with their
breach hex, the Terminators in Command order with their damage tracks, attacks (HIT/MISS with
the die against the Toughness, cover and Painboy), grit and reactors, supply, the special Orks'
reminders, and the victory rank. Pure."""

from micropython import const

from dicepod.rules import orks as rules
from dicepod.ui import coopstatus, draw, drawn, orkhits, turnorder
from dicepod.ui.coop import ActionScreen
from dicepod.ui.lists import Pick
from dicepod.ui.orkhits import kinds_on_board as _kinds_on_board
from dicepod.ui.screen import Replace

_MODIFIERS = const(("in the open", "cover +1", "Painboy +1", "cover+Painboy"))


# Starting a game: dicepod.ui.turnorder plays the start event, and asks the turn order when
# Command values are equal (OR-6).
_START = (turnorder.novice, turnorder.warrior, turnorder.veteran, turnorder.commander)


def short(name):
    """The first 8 letters of a name."""
    return name[:8]


class OrksScreen(ActionScreen):
    """Title: round, grit, reactors, reserves; then the phase's state; the action bar."""

    def __init__(self, app):
        super().__init__(app)
        self.title = ""
        self.big = ""
        self.lines = []
        self.track = -1  # damage of the current Terminator (drawn as a track), -1 none
        self.result = None

    def build(self, app):
        """Texts and actions for the current state."""
        game = app.session.game
        phase = game.phase
        actions = []
        lines = []
        self.big = ""
        self.track = -1
        self.result = None
        self.title = "R%d G%d Rx%d Ork%d" % (game.round, game.grit, game.reactors, game.on_board)
        if phase == rules.SETUP:
            self.title = "Rise of the Orks"
            lines.append("Difficulty?")
            for d in range(4):
                actions.append((rules.DIFFICULTIES[d], _START[d]))
        elif phase == rules.WAVE:
            lines.append("Wave %d left" % game.wave_left)
            event = app.session.last_event
            if event is not None and event[0] == "add":
                self.big = "%d" % event[1][1]
                lines.append(short(rules.KINDS[event[1][0]]))
                lines.append("to breach")
            lines.append("Reserves %d" % game.reserves.total)
            if game.wave_left:
                # the players may draw the real token and enter it (DK-2)
                real = game.settings.get("orks.real_draws")
                actions.append(("Add Ork", drawn.orks_token if real else _add))
            else:
                if game.wave_warboss:  # the Warpath comes first: the Boyz' hits (OR-15)
                    actions.append(("Warpath: Ork hits", orkhits.hit))
                actions.append(("Terminators", "next"))
        elif phase == rules.TERMINATOR_PHASE:
            t = game.current
            self.big = rules.TERMINATORS[t]
            self.track = game.damage[t]
            lines.append(self.note(app))  # first: the one line short enough for the track
            if game.stood_up:
                lines.append("Heroes All: up!")
            if game.attacks_left:
                actions.append(("Attack", _attack))
            if game.moves_left:
                actions.append(("Move", "move"))
            actions.append(("Next Terminator", "next"))
            if not game.healed:
                actions.append(("Heal 1 (start)", _heal))
            actions.append(("Extra attack", "extra"))  # granted by an ability or card
            if game.moved and not game.supplied and game.supply_tokens:
                actions.append(("Supply token", _supply))  # at the end of a Move (OR-18)
            if game.attacks_left and game.supply_kept:
                # a kept supply card's Toughness (OR-14)
                actions.append(("Card attack", drawn.orks_card_attack))
        elif phase == rules.ORK_PHASE:
            lines.append("Ork Action phase")
            lines.append(self.note(app))
            actions.append(("New round", "next"))
        else:
            if game.result == rules.WON:
                self.result = "VICTORY"
                grit, reactors = game.rank()
                lines.append(grit)
                lines.append(reactors)
            else:
                self.result = "DEFEAT"
                lines.append("No grit left" if game.result == rules.LOST_GRIT else "Reactors lost")
            for d in range(4):
                actions.append((rules.DIFFICULTIES[d], _START[d]))
        bits = game.reminders()
        for bit, text in rules.REMINDERS:
            if bits & bit:
                lines.append(text)
        if rules.SETUP != phase != rules.OVER:
            if phase == rules.ORK_PHASE:  # the Orks act in their turns only (OR-17)
                actions.append(("Ork hits", orkhits.hit))
            actions.append(("Damage", orkhits.damage))
            if phase != rules.TERMINATOR_PHASE:
                actions.append(("Reactor smashed", "smash"))
            actions.append(("Destroyed (card)", _destroy))
            if game.supply_kept:
                actions.append(("Play supply", "play_supply"))
            actions.append(("Terminators", coopstatus.orks_terminators))
            actions.append(("Board/reserves", coopstatus.orks_board))
        self.lines = lines
        return actions

    def note(self, app):
        """What the last event did."""
        event = app.session.last_event
        game = app.session.game
        if event is None:
            return ""
        kind, data = event
        if kind == "attack":  # at most 14 letters: it sits beside the damage track
            return "%s %d %s" % (
                "HIT" if game.last_hit else "MISS",
                data[1],
                rules.KINDS[data[0]][:7],
            )
        if kind == "hit" or kind == "damage":
            t = data[0]
            return "%s dmg %d/5" % (short(rules.TERMINATORS[t]), game.damage[t])
        if kind == "heal":
            return "healed"
        if kind == "supply":
            return "supply: keep 1"
        if kind == "smash":
            return "reactor lost"
        if kind == "destroy":
            return "destroyed " + short(rules.KINDS[data[0]])
        return ""

    def info(self, canvas):
        """Title, the big name or breach hex, the damage track, the lines."""
        draw.title(canvas, self.title)
        y = 11
        if self.result is not None:
            draw.banner(canvas, self.result, 11, 2)
            y = 34
        elif self.big:
            if len(self.big) <= 2:
                draw.big(canvas, self.big, 100, 12, 3)
            else:
                draw.big(canvas, self.big if len(self.big) <= 8 else self.big[:8], 0, 11, 2)
                y = 28
        if self.track >= 0:
            # damage track 0..5: five boxes, filled up to the damage
            for i in range(5):
                x = 88 + i * 8
                if i < self.track:
                    canvas.fill_rect(x, y, 7, 7, 1)
                else:
                    canvas.rect(x, y, 7, 7, 1)
        # the lines in the 6x8 font, whole: 14 letters beside the damage track or breach hex,
        # 21 under them; every phase has at most as many lines as fit above the action bar
        narrow = y + 8 if self.track >= 0 else (37 if 0 < len(self.big) <= 2 else 0)
        for line in self.lines:
            room = 14 if y < narrow else draw.SMALL_COLUMNS
            draw.small(canvas, line if len(line) <= room else line[:room], 0, y)
            y += 8


# -- actions -----------------------------------------------------------------------------------


# Every ui mode module has open(app) -> its screen: the class itself.
open = OrksScreen  # noqa: A001


def _add(app):
    app.session.play(rules.add_ork(app.session.game, app.randbelow))


def _heal(app):
    app.session.play(("heal", (app.session.game.current,)))


def _supply(app):
    app.session.play(("supply", (app.session.game.current,)))


def _attack(app):
    labels, values = _kinds_on_board(app.session.game)
    if not values:
        raise ValueError("no Orks")
    return Pick("Attack", labels, values, 0, _attack_where)


def _attack_where(app, kind, tough=0):
    if not tough:
        app.session.game.toughness(kind)  # ask for a missing Toughness before anything is rolled
    labels = list(_MODIFIERS)
    values = [0, 1, 2, 3]
    if not app.session.game.board[rules.PAINBOY] or kind == rules.PAINBOY:
        labels = labels[:2]
        values = values[:2]

    def roll(app, value):
        event = rules.attack(kind, app.randbelow, value & 1, value >> 1)
        app.session.play((event[0], event[1] + (tough,)) if tough else event)

    return Replace(Pick(short(rules.KINDS[kind]) + " in", labels, values, 0, roll))


def _destroy(app):
    labels, values = _kinds_on_board(app.session.game)
    return Pick("Destroyed", labels, values, 0, _do_destroy)


def _do_destroy(app, kind):
    app.session.play(("destroy", (kind,)))
