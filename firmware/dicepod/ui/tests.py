"""The Tests screens (RULES.md section 2): a target number with named modifiers, N dice rolled
with every success lit and the count named, the exact odds, re-rolls, roll-offs, D3 and D3+1.
Pure.

UP/DOWN pick the action on the bottom line, OK does it; long OK opens the menu; long BACK undoes.
Lit (solid) dice are successes; dotted ones failed.
"""

from micropython import const

from dicepod.rules import tn
from dicepod.ui import draw
from dicepod.ui.lists import Pick
from dicepod.ui.screen import BACK, DOWN, LONG_OK, OK, POP, UP, Replace, Screen

# The actions on the bottom line, in order.
_ROLL = const(0)
_DICE = const(1)
_TN = const(2)
_MOD = const(3)
_REROLL_FAILS = const(4)
_REROLL_ONE = const(5)
_RULE = const(6)
_ROLLOFF = const(7)
_D3 = const(8)
_D3P1 = const(9)
_CLEAR = const(10)
_ACTIONS = const(11)

# Modifier sources offered (event names must be ASCII words; the rulebook lets any source):
# sources with different names add up, one name counts once, so the list holds several
# abilities, items and effects (TS-7: +1 from one ability and -1 from another).
SOURCES = (
    "ability1",
    "ability2",
    "ability3",
    "item1",
    "item2",
    "effect1",
    "effect2",
    "cover",
    "range",
    "terrain",
    "card",
    "other",
)
_TN_LABELS = const(("- (no test)", "2+", "3+", "4+", "5+", "6+"))
_TN_VALUES = const((0, 2, 3, 4, 5, 6))


def tn_text(value):
    """'4+' for a TN, '-' for a dash."""
    return "%d+" % value if value else "-"


def signed(value):
    """'+1' / '-2' / '0'."""
    return "+%d" % value if value > 0 else "%d" % value


class TestsScreen(Screen):
    """A test: TN, modifiers, dice, successes, odds; roll-offs and D3 too."""

    game_screen = True

    def __init__(self, app):
        super().__init__()
        self.app = app
        self.action = _ROLL
        self.count = 1  # dice to roll next
        self.title = ""
        self.lines = []
        self.label = ""
        self.view = "test"

    def on_show(self, app):
        """Shown (again): rebuild."""
        if not self.title and app.session.game.n_dice:
            self.count = app.session.game.n_dice  # resumed: roll as many as last time
        self.view_from(app)
        self.build(app)

    def on_event(self, app):
        """The game changed: rebuild the texts."""
        game = app.session.game
        if game.n_dice and app.session.last_kind == "roll":
            self.count = game.n_dice
        self.view_from(app)
        self.build(app)

    def view_from(self, app):
        """Show the roll-off or the D3 when that was the last event, else the test."""
        kind = app.session.last_kind
        self.view = "rolloff" if kind == "rolloff" else "d3" if kind in ("d3", "d3p1") else "test"

    def build(self, app):
        """Build the title, the lines and the action label."""
        game = app.session.game
        if game.tn is None:
            self.title = "TN not set"
        elif game.tn == 0:
            self.title = "TN -: no test"
        elif game.modifier:
            self.title = "TN %s %s =%s" % (
                tn_text(game.tn),
                signed(game.modifier),
                tn_text(game.tn_final),
            )
        else:
            self.title = "TN %s" % tn_text(game.tn)
        lines = []
        if self.view == "rolloff":
            players = game.players()
            text = ""
            for p in range(players):
                text += "P%d %d " % (p + 1, game.rolloff_totals[p])
                if p % 2 == 1 or p == players - 1:
                    lines.append(text)
                    text = ""
            if game.rolloff_winner >= 0:
                lines.append("P%d wins (%d)" % (game.rolloff_winner + 1, game.rolloff_throws))
            else:
                lines.append("Tie: throw again")
        elif self.view == "d3":
            lines.append("D3+1" if game.d3_plus else "D3")
            lines.append("from a %d" % game.d3_face)
        elif game.n_dice and game.roll_tn is not None:
            line = "%d of %d hit" % (game.successes, game.n_dice)
            if game.roll_tn != game.tn_final:  # the title gives the next roll's TN (TS-6)
                line = "%d/%d hit at %s" % (game.successes, game.n_dice, tn_text(game.roll_tn))
            lines.append(line)
            _tn, each, dist = game.odds(tn=game.roll_tn)  # the roll's own TN (TS-6)
            nums, den = dist
            at_least = 0
            for k in range(game.successes, len(nums)):
                at_least += nums[k]
            lines.append("each %d/%d" % each)
            lines.append("P>=%d %s" % (game.successes, draw.percent_tenths(at_least, den)))
        self.lines = lines
        self.label = self.action_label(game)
        self.dirty = True

    def action_label(self, game):
        """The bottom line's text for the current action."""
        action = self.action
        if action == _ROLL:
            return "Roll %d di%s" % (self.count, "e" if self.count == 1 else "ce")
        if action == _DICE:
            return "Dice: %d" % self.count
        if action == _TN:
            return "TN: %s" % ("?" if game.tn is None else tn_text(game.tn))
        if action == _MOD:
            return "Modifier %s" % signed(game.modifier)
        if action == _REROLL_FAILS:
            return "Re-roll fails"
        if action == _REROLL_ONE:
            return "Re-roll a die"
        if action == _RULE:
            return "Odds: " + tn.RULE_NAMES[game.rule]
        if action == _ROLLOFF:
            return "Roll-off"
        if action == _D3:
            return "D3"
        if action == _D3P1:
            return "D3+1"
        return "Clear modifiers"

    # -- buttons ------------------------------------------------------------------------------

    def on_button(self, app, button):
        """UP/DOWN: action; OK: do it; long OK: menu; BACK: leave."""
        if button == UP or button == DOWN:
            step = 1 if button == DOWN else -1
            self.action = (self.action + step) % _ACTIONS
            self.label = self.action_label(app.session.game)
            self.dirty = True
            return None
        if button == LONG_OK:
            from dicepod.ui.gamemenu import GameMenu

            return GameMenu(app)
        if button == BACK:
            return POP
        if button != OK:
            return None
        return self.act(app)

    def act(self, app):
        """Do the current action."""
        game = app.session.game
        action = self.action
        rand = app.randbelow
        if action == _ROLL:
            app.session.play(tn.roll(game, self.count, rand))
        elif action == _DICE:
            labels = [str(n) for n in range(1, tn.MAX_DICE + 1)]
            values = list(range(1, tn.MAX_DICE + 1))
            return Pick("Dice to roll", labels, values, self.count - 1, self.set_count)
        elif action == _TN:
            index = _TN_VALUES.index(game.tn) if game.tn in _TN_VALUES else 3
            return Pick("Target number", list(_TN_LABELS), _TN_VALUES, index, _set_tn)
        elif action == _MOD:
            return Pick("Modifier from", list(SOURCES), SOURCES, 0, _pick_value)
        elif action == _REROLL_FAILS:
            events = tn.reroll_failures(game, rand)
            if not events:
                app.show_toast("No failed dice")
            last = len(events) - 1
            for i in range(len(events)):
                app.session.play(events[i], i == last)  # the screen rebuilt once
        elif action == _REROLL_ONE:
            if not game.n_dice:
                raise ValueError("roll first")
            labels = ["Die %d: %d" % (i + 1, game.dice[i]) for i in range(game.n_dice)]
            return Pick("Re-roll die", labels, list(range(game.n_dice)), 0, _reroll)
        elif action == _RULE:
            names = list(tn.RULE_NAMES)
            return Pick("Odds re-roll", names, (0, 1, 2), game.rule, _set_rule)
        elif action == _ROLLOFF:
            app.session.play(tn.roll_off(game, rand))
        elif action == _D3:
            app.session.play(tn.d3(rand))
        elif action == _D3P1:
            app.session.play(tn.d3_plus_1(rand))
        elif action == _CLEAR:
            app.session.play(("clear_mods", ()))
        return None

    def set_count(self, app, value):
        """Pick callback: the number of dice to roll."""
        self.count = value
        self.action = _ROLL
        self.build(app)

    # -- drawing ------------------------------------------------------------------------------

    def draw(self, canvas):
        """Title, dice (or roll-off / D3), lines, and the action line."""
        game = self.app.session.game
        draw.title(canvas, self.title)
        y = 48
        if self.view == "d3":
            draw.big(canvas, str(game.d3), 8, 14, 4)
            canvas.text(self.lines[0], 48, 18, 1)
            canvas.text(self.lines[1], 48, 30, 1)
        elif self.view == "rolloff":
            y = 12
            for line in self.lines:
                canvas.text(line, 0, y, 1)
                y += 9
        else:
            n = game.n_dice
            hit = game.roll_tn  # the TN the dice were rolled at (TS-6)
            if n <= 6:
                for i in range(n):
                    lit = hit and tn.is_success(game.dice[i], hit)
                    style = draw.ASIDE if lit else draw.DIM
                    draw.die(canvas, 1 + i * 21, 11, game.dice[i], style)
                y = 33
            else:
                for i in range(n):
                    lit = hit and tn.is_success(game.dice[i], hit)
                    style = draw.ASIDE if lit else draw.DIM
                    draw.die(canvas, 1 + (i % 9) * 14, 10 + (i // 9) * 12, game.dice[i], style, 11)
                y = 11 + ((n + 8) // 9) * 12
            for line in self.lines:
                if y > 47:
                    break
                canvas.text(line, 0, y, 1)
                y += 8 if n <= 6 else 9
        draw.action_bar(canvas, self.label)


# Every ui mode module has open(app) -> its screen: the class itself.
open = TestsScreen  # noqa: A001


def _set_tn(app, value):
    app.session.play(("tn", (value,)))


def _set_rule(app, value):
    app.session.play(("rule", (value,)))


def _reroll(app, index):
    app.session.play(tn.reroll(app.session.game, index, app.randbelow))


def _pick_value(app, source):
    labels = []
    values = []
    for value in range(-9, 10):
        labels.append("remove" if value == 0 else signed(value))
        values.append(value)
    return Replace(_ModValue(source, labels, values))


class _ModValue(Pick):
    """The value for a modifier source (0 removes it); then back to the test."""

    def __init__(self, source, labels, values):
        super().__init__("%s modifier" % source, labels, values, 10, self.apply)
        self.source = source

    def apply(self, app, value):
        """Journal the modifier (or its removal)."""
        game = app.session.game
        if value == 0:
            if self.source in game.mod_names:
                app.session.play(("unmod", (self.source,)))
        else:
            app.session.play(("mod", (self.source, value)))
        return POP
