"""The Battle Game screens: Battle Rolls with six pip dice, set-aside choices named, the exact
bust chance of every keep option before the player pushes their luck (best one marked), BUST
and ALL OUT! as full-width banners, Battle Actions with the heroes' moves, the win and the best
of three. Pure.

Dice row: solid dice are set aside this turn (in scoring rolls); a thick frame is a die kept
(left unrolled); a dotted frame is a die about to be re-rolled; a caret marks the dice of the
set-aside being chosen.
"""

from dicepod.rules import battle, odds
from dicepod.ui import draw
from dicepod.ui.menu import Confirm, GameMenu, ListScreen
from dicepod.ui.screen import BACK, CANCEL, DOWN, LONG_OK, OK, UP, Reset, Screen


def open(app):  # noqa: A001 (every ui mode module has open(app))
    """Return the Battle Game screen."""
    return BattleScreen(app)


def player_name(player):
    """'P1' or 'P2' for player 0 or 1."""
    return "P%d" % (player + 1)


def short(combo):
    """A short name for a scoring roll: L6, D6, 3x4, 1-2-3."""
    index = battle.kind_index(combo)
    if index == 0:
        return "L6"
    if index == 1:
        return "D6"
    if index == 2:
        return "3x%d" % combo[0]
    return "-".join([str(v) for v in combo])


# The "stop rolling" entry of the keep options (compared by identity).
_STOP = ((), (0, 1))


def _marks(dice, values):
    """Return a list of bools over dice: the first die matching each of values is marked."""
    marks = [False] * len(dice)
    for value in values:
        for i in range(len(dice)):
            if not marks[i] and dice[i] == value:
                marks[i] = True
                break
    return marks


class BattleScreen(Screen):
    """One screen for the whole turn; what UP/DOWN/OK do depends on the phase."""

    game_screen = True

    def __init__(self, app):
        super().__init__()
        self.app = app
        self.cursor = 0
        self.options = []  # CHOOSE: set-aside choices; DECIDE: _STOP + keep options
        self.faces = ()
        self.styles = ()
        self.carets = ()
        self.lines = ()
        self.banner = None

    # -- state -> what to show (built once per change) -----------------------------------------

    def on_show(self, app):
        """Shown (again): rebuild from the game."""
        self.on_event(app)

    def on_event(self, app):
        """The game changed: new options, cursor at the default, texts rebuilt."""
        game = app.game
        phase = game.phase
        self.cursor = 0
        if phase == battle.CHOOSE:
            self.options = game.choices()
        elif phase == battle.DECIDE:
            options = [_STOP]
            if game.dice:
                kept_can_score = game.settings.get(battle.KEPT_CAN_SCORE)
                options.extend(odds.keep_options(game.dice, kept_can_score))
                self.cursor = 1  # the lowest-risk keep: the hint
            elif game.can_roll_again():
                options.append(((), (0, 1)))
                self.cursor = 1
            self.options = options
        else:
            self.options = []
        self.build(game)

    def build(self, game):
        """Build the dice row and the text lines for the current cursor."""
        phase = game.phase
        aside = []
        for combo in game.aside:
            aside.extend(combo)
        free = game.dice
        faces = list(aside) + list(free)
        styles = [draw.ASIDE] * len(aside)
        carets = [False] * len(faces)
        kept = _marks(free, game.kept)
        who = "%s turn %d" % (player_name(game.player), game.turn)
        self.banner = None
        lines = []
        if phase == battle.ROLL:
            faces = [0] * 6
            styles = [draw.BLANK] * 6
            lines.append(who)
            lines.append("Score %d : %d" % (game.score(0), game.score(1)))
            if game.lost:
                lines.append("%s lost %d" % (player_name(1 - game.player), len(game.lost)))
            lines.append("OK: Battle Roll")
        elif phase == battle.CHOOSE:
            choice = self.options[self.cursor] if self.options else ()
            values = []
            for combo in choice:
                values.extend(combo)
            chosen = _marks(free, values)
            for i in range(len(free)):
                if chosen[i]:
                    styles.append(draw.ASIDE)
                    carets[len(aside) + i] = True
                else:
                    styles.append(draw.KEPT if kept[i] else draw.ROLLED)
            lines.append("Set aside %d/%d" % (self.cursor + 1, len(self.options)))
            for combo in choice[:3]:
                lines.append(battle.name(combo)[:16])
            if len(choice) > 3:
                lines.append("+%d more" % (len(choice) - 3))
        elif phase == battle.BUST:
            for i in range(len(free)):
                styles.append(draw.KEPT if kept[i] else draw.ROLLED)
            self.banner = "BUST!"
            lost = len(game.aside)
            lines.append("%s loses %d roll%s" % (who[:2], lost, "" if lost == 1 else "s"))
        elif phase == battle.DECIDE:
            option = self.options[self.cursor]
            if option is _STOP or not free:
                keep = ()
            else:
                keep = option[0]
            keeping = _marks(free, keep)
            for i in range(len(free)):
                styles.append(draw.KEPT if keeping[i] else draw.DIM)
            if game.all_out:
                self.banner = "ALL OUT!"
            if option is _STOP:
                lines.append("%d rolls aside" % len(game.aside))
                lines.append("OK: stop, act")
                if game.extra_turn():
                    lines.append("then extra turn")
            elif not free:
                lines.append("OK: roll all six")
            else:
                rolled = len(free) - len(keep)
                if keep:
                    text = "Keep "
                    for value in keep:
                        text += str(value)
                    lines.append("%s roll %d" % (text[:11], rolled))
                else:
                    lines.append("Re-roll %d dice" % rolled)
                num, den = option[1]
                best = " BEST" if self.cursor == 1 else ""
                lines.append("Bust %s%s" % (draw.percent_tenths(num, den), best))
                lines.append("= %d/%d" % (num, den))
        elif phase == battle.ACTIONS:
            styles.extend([draw.DIM] * len(free))
            lines.append("%s actions:" % player_name(game.player))
            text = ""
            for combo in game.aside:
                text += short(combo) + " "
            lines.append(text[:16])
            lines.append("OK: move heroes")
        elif phase == battle.OVER:
            faces = []
            styles = []
            self.banner = "%s WINS" % player_name(game.winner)
            totals = game.totals()
            lines.append("Game %d: %d : %d" % (game.game_number, game.score(0), game.score(1)))
            lines.append("Total %d : %d" % (totals[0], totals[1]))
            if game.series_over():
                winner = game.series_winner()
                lines.append("Series: tie" if winner is None else "Series: " + player_name(winner))
            else:
                lines.append("OK: next game")
        self.faces = faces
        self.styles = styles
        self.carets = carets
        self.lines = lines
        self.dirty = True

    # -- buttons ------------------------------------------------------------------------------

    def on_button(self, app, button):
        """UP/DOWN choose, OK acts, long OK opens the menu, BACK leaves (the game stays)."""
        game = app.game
        phase = game.phase
        if button == LONG_OK:
            return GameMenu(app, (("Heroes", _heroes),))
        if button == CANCEL:
            return BACK
        if button == UP or button == DOWN:
            if len(self.options) > 1:
                step = 1 if button == DOWN else -1
                self.cursor = (self.cursor + step) % len(self.options)
                self.build(game)
            return None
        if button != OK:
            return None
        if phase == battle.ROLL:
            app.play(battle.roll(game, app.randbelow))
        elif phase == battle.CHOOSE:
            app.play(battle.set_aside(self.options[self.cursor]))
        elif phase == battle.BUST:
            app.play(battle.bust())
        elif phase == battle.DECIDE:
            option = self.options[self.cursor]
            if option is _STOP:
                app.play(battle.actions())
            elif not game.dice:
                app.play(battle.roll(game, app.randbelow))
            else:
                app.play(battle.reroll(game, option[0], app.randbelow))
        elif phase == battle.ACTIONS:
            return Heroes(app)
        elif phase == battle.OVER:
            if game.series_over():
                return Confirm("New series?", "Start a new best of three?", _new_series)
            app.play(battle.next_game(1 - game.winner))
        return None

    # -- drawing ------------------------------------------------------------------------------

    def draw(self, canvas):
        """Dice row, then the lines (or a banner over them)."""
        faces = self.faces
        for i in range(len(faces)):
            x = 1 + i * 21
            draw.die(canvas, x, 0, faces[i], self.styles[i])
            if i < len(self.carets) and self.carets[i]:
                canvas.hline(x + 6, 21, 8, 1)
                canvas.hline(x + 8, 22, 4, 1)
        y = 24
        if self.banner is not None:
            if self.banner == "BUST!":
                draw.banner(canvas, self.banner, 23, 3)
                y = 56
            elif not faces:
                draw.banner(canvas, self.banner, 2, 2)
                y = 27
            else:
                draw.banner(canvas, self.banner, 23, 2)
                y = 46
        for line in self.lines:
            if y > 56:
                break
            canvas.text(line, 0, y, 1)
            y += 9
        if len(self.options) > 1:
            # UP/DOWN hint: a small up/down arrow at the bottom right
            canvas.vline(124, 57, 7, 1)
            canvas.pixel(123, 58, 1)
            canvas.pixel(125, 58, 1)
            canvas.pixel(123, 62, 1)
            canvas.pixel(125, 62, 1)


def _new_series(app):
    return Reset(app.new_game("battle"))


def _heroes(app):
    return Heroes(app)


class Heroes(ListScreen):
    """Battle Actions: each hero's advance for the player whose turn it is; OK on a hero moves
    it (UP advance, DOWN retreat), 'End turn' ends the turn (win check)."""

    game_screen = True

    def __init__(self, app):
        super().__init__("", [])
        self.app = app
        self.on_event(app)

    def on_event(self, app):
        """Rebuild the rows from the game."""
        game = app.game
        player = game.player
        rows = game.rows()
        items = []
        for hero in range(battle.HEROES):
            advance = game.heroes[player][hero]
            mark = " >" if advance >= rows else ""
            items.append("Hero %d: %d%s" % (hero + 1, advance, mark))
        if game.phase == battle.ACTIONS:
            items.append("End turn")
        self.items = items
        self.title = "%s %d:%d across %d" % (
            player_name(player),
            game.score(player),
            game.score(1 - player),
            game.across(player),
        )
        if game.phase != battle.ACTIONS and self.cursor >= len(items):
            self.cursor = 0
        self.dirty = True

    def on_show(self, app):
        """Shown again after a move."""
        self.on_event(app)

    def choose(self, app, index):
        """Move a hero or end the turn."""
        game = app.game
        if index >= battle.HEROES:
            app.play(battle.end_turn())
            return BACK
        if game.phase != battle.ACTIONS:
            app.show_toast("Only in actions")
            return None
        return Move(app, index)


class Move(Screen):
    """Move one hero: UP advances, DOWN retreats (each an event), OK/BACK done. Shows the
    hero's column on the battlefield (both halves)."""

    game_screen = True

    def __init__(self, app, hero):
        super().__init__()
        self.app = app
        self.hero = hero
        self.text = ""
        self.on_event(app)

    def on_event(self, app):
        """Rebuild the text."""
        game = app.game
        self.text = "Hero %d: %d" % (self.hero + 1, game.heroes[game.player][self.hero])
        self.dirty = True

    def on_button(self, app, button):
        """Advance, retreat or done."""
        game = app.game
        if button == UP:
            app.play(battle.advance(game.player, self.hero))
        elif button == DOWN:
            app.play(battle.retreat(game.player, self.hero))
        elif button == OK or button == CANCEL:
            return BACK
        return None

    def draw(self, canvas):
        """The battlefield: 5 columns, 2 halves of `rows` rows; this player's heroes filled,
        the opponent's outlined; the moving hero's column framed."""
        game = self.app.game
        rows = game.rows()
        player = game.player
        draw.title(canvas, self.text)
        total = 2 * rows
        cell = min(10, 52 // total)
        top = 11
        left = 70
        for column in range(battle.HEROES):
            x = left + column * 11
            if column == self.hero:
                canvas.rect(x - 1, top - 1, 11, total * cell + 2, 1)
            mine = game.heroes[player][column]
            theirs = game.heroes[1 - player][column]
            # this player's back row is at the bottom
            y = top + (total - 1 - mine) * cell
            canvas.fill_rect(x + 1, y + 1, 7, cell - 2, 1)
            y = top + theirs * cell
            canvas.rect(x + 1, y + 1, 7, cell - 2, 1)
        canvas.hline(left - 2, top + rows * cell, 56, 1)
        canvas.text("UP:adv", 0, 20, 1)
        canvas.text("DOWN:", 0, 30, 1)
        canvas.text(" retreat", 0, 39, 1)
        canvas.text("OK:done", 0, 52, 1)
