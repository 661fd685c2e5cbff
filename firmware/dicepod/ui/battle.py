"""The Battle Game screens: Battle Rolls with six pip dice, set-aside choices named, the exact
bust chance of every keep option before the player pushes their luck (best one marked), BUST
and ALL OUT! as full-width banners, Battle Actions with the heroes' moves, the win and the best
of three. Pure. Layout and dice styles: see the comments at BattleScreen.
"""

from dicepod.rules import battle, odds, scoring
from dicepod.rules.dice import remove
from dicepod.ui import draw
from dicepod.ui.lists import Confirm, ListScreen, Pick
from dicepod.ui.screen import BACK, DOWN, LONG_OK, OK, POP, UP, Reset, Screen, wrap


def player_name(player):
    """'P1' or 'P2' for player 0 or 1."""
    return "P2" if player else "P1"


def _fit(text, width):
    """text if it has at most width characters, else None."""
    return text if len(text) <= width else None


def aside_text(prefix, combos, width=21):
    """prefix + the scoring rolls by name in at most width characters, else how many."""
    n = len(combos)
    return _fit(prefix + scoring.names(combos), width) or "%s%d roll%s" % (
        prefix,
        n,
        "" if n == 1 else "s",
    )


def keep_text(keep, rest):
    """What a keep option does, in words, the dice in the row's order: 'Keep 3 4 5, re-roll 2'
    ('roll' when 'Keep 3 1 2, re-roll 5 2' is too long for 21 columns)."""
    if not keep and len(rest) > 1:
        return "Re-roll all %d dice" % len(rest)
    # each value after a space, formatted at once: fewer new strings, each looked up among
    # the interned names on MicroPython
    rolled = " %d" * len(rest) % tuple(rest)
    if not keep:
        return "Re-roll the" + rolled
    kept = " %d" * len(keep) % tuple(keep)
    return _fit("Keep%s, re-roll%s" % (kept, rolled), 21) or "Keep%s, roll%s" % (kept, rolled)


def bust_text(num, den, first):
    """The chance to bust, in at most 20 characters (the last column: the UP/DOWN mark); on the
    first (least risky) keep, that Stop is one UP away instead of the fraction."""
    pct = draw.percent_tenths(num, den)
    if first:
        return _fit("Bust %s, UP: stop" % pct, 20) or "Bust %s UP: stop" % pct
    return _fit("Bust %s = %d/%d" % (pct, num, den), 20) or "Bust %s %d/%d" % (pct, num, den)


# The "stop rolling" entry of the keep options (compared by identity; a value no other option
# has, since a compiler may make equal constant tuples one object).
_STOP = ((), (0, 0))


def _option(game, option):
    """A DECIDE option made whole: a keep_keys int as (kept, (num, den)), else as it is."""
    return odds.keep_option(game.dice, option) if isinstance(option, int) else option


def _marks(dice, values):
    """Return a list of bools over dice: the first die matching each of values is marked."""
    marks = [False] * len(dice)
    for value in values:
        for i in range(len(dice)):
            if not marks[i] and dice[i] == value:
                marks[i] = True
                break
    return marks


# Layout, chosen so that a roll changes few display pages (the driver sends only the changed
# columns of each 8-row page): the dice are 20 pixels square at rows 5..24, so their pips (rows
# 8..21) fill exactly pages 1 and 2 and their frames, which a roll leaves alone, sit outside
# them; triangles under the dice of the set-aside being chosen at rows 26..29 (page 3); then
# four text lines, one page each (rows 32, 40, 48, 56): the roll line (the set-aside being
# chosen, or the keep option's bust chance), the exact fraction, the rolls set aside this turn,
# the turn line (whose turn, which turn, the score). A roll or re-roll changes the pips, the
# triangles, the roll line and a few columns of the next one; the rest stays as it was.
# Dice: solid = set aside this turn; thick frame = kept (left unrolled); style -1 (this
# screen's own) = about to be re-rolled: thin frame, small pips (the frame it has before and
# after the re-roll); dotted = no longer counts (stopping).
class BattleScreen(Screen):
    """One screen for the whole turn; what UP/DOWN/OK do depends on the phase."""

    game_screen = True

    def __init__(self, app):
        super().__init__()
        self.app = app
        self.cursor = 0
        self.options = []  # CHOOSE: set-aside choices; DECIDE: _STOP + keep options
        # CHOOSE: the set-asides whose keep hint is still to be worked out in idle passes, and
        # the hints worked out, by the setting and the dice left (sorted)
        self.ahead = []
        self.hints = {}
        self.turn = None  # (player, turn, scores) of turn_line, the last line
        self.turn_line = ""
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
        game = app.session.game
        phase = game.phase
        self.cursor = 0
        if phase == battle.CHOOSE:
            self.options = game.choices()
            self.ahead = list(self.options)
            self.hints = {}
        elif phase == battle.DECIDE:
            options = [_STOP]
            if game.dice:
                kept_can_score = game.settings.get(battle.KEPT_CAN_SCORE)
                # each keep as odds.keep_keys' int: made whole (keep_option) when shown;
                # worked out ahead while the roll was shown, if there was time (idle)
                keys = self.hints.get((kept_can_score,) + tuple(sorted(game.dice)))
                if keys is None:
                    keys = odds.keep_keys(game.dice, kept_can_score)
                options.extend(keys)
                self.cursor = 1  # the lowest-risk keep: the hint
            elif game.can_roll_again():
                options.append(((), (0, 1)))  # roll all six again
                self.cursor = 1
            self.options = options
        else:
            self.options = []
        self.build(game)

    def build(self, game):
        """Build the dice row, the marks and the four text lines for the current cursor."""
        phase = game.phase
        player = player_name(game.player)
        other = player_name(1 - game.player)
        # "P1 turn 3" in 11 columns, then the score "3:4" flush right in 5, in one string
        # (each new string is looked up among the interned names on MicroPython)
        left = game.score(0)
        right = game.score(1)
        lines = ["", "", "", ""]
        turn = (game.player, game.turn, left, right)
        if turn != self.turn:  # (made again only when it changes: most presses keep it)
            self.turn = turn
            self.turn_line = "%s turn %-3d%*d:%d" % (
                player,
                game.turn,
                4 - (1 if right < 10 else 2 if right < 100 else 3),
                left,
                right,
            )
        lines[3] = self.turn_line
        free = game.dice
        kept = _marks(free, game.kept)
        styles = [draw.ROLLED] * len(kept)
        for i in range(len(kept)):
            if kept[i]:
                styles[i] = draw.KEPT
        marks = None
        text = aside_text("Aside: ", game.aside) if game.aside else ""
        self.banner = None
        if phase == battle.ROLL:
            free = [0] * 6
            styles = [draw.BLANK] * 6
            lines[0] = "OK: Battle Roll"
            if game.again:
                # ALL OUT!'s extra turn (BG-10): the same player again, said so
                self.banner = "%s AGAIN" % player
                lines[2] = "Extra turn. OK: roll"
            elif game.lost:
                n = len(game.lost)
                lines[2] = "%s bust, lost %d roll%s" % (other, n, "" if n == 1 else "s")
        elif phase == battle.CHOOSE:
            choice = self.options[self.cursor] if self.options else ()
            values = []
            for combo in choice:
                values.extend(combo)
            marks = _marks(free, values)
            count = len(self.options)
            index = "%d/%d" % (self.cursor + 1, count) if count > 1 else ""
            # the choice by name on up to two lines (the second leaves the UP/DOWN mark's
            # column): the first holds the most whole words that fit. (Cut at a space found,
            # not split into words and joined again: every new string is looked up among the
            # interned names on MicroPython, and this runs in the press that rolls.)
            named = scoring.names(choice)
            width = 20 - len(index)
            first = named  # (no slice when it fits: each is a new string)
            rest = ""
            if len(named) > width:
                cut = named.rfind(" ", 0, width + 1)
                first = named[:cut] if cut > 0 else ""
                rest = named[cut + 1 :]
            columns = 16 if not rest and len(first) + len(index) < 16 else 21
            # (a line of at most 16 columns is drawn in the 8×8 font whatever its padding)
            if index or columns > 16:
                first = "%s%*s" % (first, max(0, columns - len(first)), index)
            lines[0] = first
            lines[1] = rest
            lines[2] = text
        elif phase == battle.BUST:
            # what is lost and what happens next (BG-5)
            self.banner = "BUST!"
            lines[2] = aside_text("Lost: ", game.aside) if game.aside else "Nothing set aside"
            lines[3] = "OK: %s's turn" % other
        elif phase == battle.DECIDE:
            option = _option(game, self.options[self.cursor])
            keep = () if option is _STOP or not free else option[0]
            # the kept dice first, where the re-roll will have them: it changes only the dice
            # it rolls
            kept = _marks(free, keep)
            values = []
            rest = []
            for i in range(len(free)):
                (values if kept[i] else rest).append(free[i])
            free = values + rest
            styles = [draw.DIM if option is _STOP else -1] * len(free)
            styles[: len(keep)] = [draw.KEPT] * len(keep)
            lines[2] = text
            if option is _STOP:
                lines[0] = "OK: stop and act"
                if game.extra_turn():
                    lines[1] = "then extra turn"
            elif not free:
                lines[0] = "OK: roll all 6"
            else:
                num, den = option[1]
                lines[0] = keep_text(free[: len(keep)], free[len(keep) :])
                lines[1] = bust_text(num, den, self.cursor == 1)
            if game.all_out:
                # the banner covers the first two lines: what OK does goes below it
                self.banner = "ALL OUT!"
                lines[2] = lines[0]
                if lines[1]:
                    lines[3] = lines[1]
        elif phase == battle.ACTIONS:
            styles = [draw.DIM] * len(free)
            left = game.actions_left  # by the players' table, when it is on (BG-11)
            lines[0] = "%s %sactions:" % (player, "" if left is None else "%d " % left)
            rows = wrap(scoring.names(game.aside), 21)
            if len(rows) > 2:
                rows = [aside_text("", game.aside)]
            lines[1 : 1 + len(rows)] = rows
            lines[1 + len(rows)] = "OK: move heroes"  # over the turn line if need be
        elif phase == battle.OVER:
            free = []  # no dice: the banner at the top
            self.banner = "%s WINS" % player_name(game.winner)
            totals = game.totals()
            lines[0] = "Game %d: %d : %d" % (game.game_number, game.score(0), game.score(1))
            lines[1] = "Total %d : %d" % (totals[0], totals[1])
            if game.series_over():
                winner = game.series_winner()
                lines[2] = "Series: tie" if winner is None else "Series: " + player_name(winner)
            else:
                lines[2] = "OK: next game"
            lines[3] = ""
        # the set-aside dice (solid) first; none before a roll or after the game, and none if
        # there would be more than six (all six again after ALL OUT!: the third line names them)
        values = []
        for combo in game.aside:
            values.extend(combo)
        if phase == battle.ROLL or phase == battle.OVER or len(values) + len(free) > 6:
            values = []
        self.faces = values + list(free)
        self.styles = [draw.ASIDE] * len(values) + styles
        self.carets = [False] * len(values) + (marks or [False] * len(free))
        self.lines = lines
        self.dirty = True

    def idle(self, app, stop):
        """While a roll is shown, the keep hint each set-aside would show next, one set-aside
        a step: the press that sets dice aside then only looks it up."""
        ahead = self.ahead
        if not ahead:
            return False
        game = app.session.game
        if game.phase != battle.CHOOSE:
            self.ahead = []
            return False
        kept_can_score = game.settings.get(battle.KEPT_CAN_SCORE)
        while ahead and not stop():
            values = []
            for combo in ahead.pop():
                values.extend(combo)
            rest = remove(game.dice, values)
            if rest:
                key = (kept_can_score,) + tuple(sorted(rest))
                self.hints[key] = odds.keep_keys(rest, kept_can_score)
        return True

    # -- buttons ------------------------------------------------------------------------------

    def on_button(self, app, button):
        """UP/DOWN choose, OK acts, long OK opens the menu, BACK leaves (the game stays)."""
        game = app.session.game
        phase = game.phase
        if button == LONG_OK:
            from dicepod.ui.gamemenu import GameMenu

            return GameMenu(app, (("Heroes", _heroes),))
        if button == BACK:
            return POP
        if button == UP or button == DOWN:
            if len(self.options) > 1:
                step = 1 if button == DOWN else -1
                self.cursor = (self.cursor + step) % len(self.options)
                self.build(game)
            return None
        if button != OK:
            return None
        # each move by what it is (app.do): a question it asks resumes it, not the cursor
        if phase == battle.ROLL:
            app.do(_roll)
        elif phase == battle.CHOOSE:
            app.do(battle.set_aside(self.options[self.cursor]))
        elif phase == battle.BUST:
            app.do(battle.bust())
        elif phase == battle.DECIDE:
            option = _option(game, self.options[self.cursor])
            if option is _STOP:
                app.do(battle.actions())  # the table's values are asked here (BG-11)
            elif not game.dice:
                app.do(_roll_six)
            else:
                app.do(_reroll, option[0])
        elif phase == battle.ACTIONS:
            return Heroes(app)
        elif phase == battle.OVER:
            if game.series_over():
                return Confirm("New series?", "Start a new best of three?", _new_series)
            # whoever finished setting up first starts, asked every game (BG-2)
            names = [player_name(0) + " set up first", player_name(1) + " set up first"]
            return Pick(
                "Next game", names, (0, 1), 0, lambda app, p: app.session.play(("next_game", (p,)))
            )
        return None

    # -- drawing ------------------------------------------------------------------------------

    def draw(self, canvas):
        """Dice row and marks, then the text lines (a banner over the first ones)."""
        faces = self.faces
        hline = canvas.hline  # (looked up once: the display's classes are walked for it)
        for i in range(len(faces)):
            x = 1 + i * 21
            if self.styles[i] < 0:
                # about to be re-rolled: a thin frame around the small die's pips
                draw.die(canvas, x, 5, 0, draw.BLANK)
                draw.die(canvas, x + 4, 9, faces[i], draw.ROLLED, 12)
                canvas.rect(x + 4, 9, 12, 12, 0)
            else:
                draw.die(canvas, x, 5, faces[i], self.styles[i])
            if self.carets[i]:
                # a small triangle under the die (rows 26..29), pointing at it
                for cell in range(4):
                    hline(x + 9 - cell, 26 + cell, 2 + 2 * cell, 1)
        lines = self.lines
        first = 0  # lines from lines[first] on, lines[i] at row top + step * i
        top = 32
        step = 8
        if self.banner is not None:
            if faces:
                # a banner under the dice, in letters `first` times the font's size: it covers
                # that many lines
                first = 2
                draw.banner(canvas, self.banner, 27, 2)
            else:
                draw.banner(canvas, self.banner, 2, 2)
                top = 26
                step = 9
        for i in range(first, len(lines)):
            # 16 columns of the 8×8 font, longer lines in the 6×8 font (21 columns); the second
            # line leaves the last column to the UP/DOWN mark
            line = lines[i]
            if i >= 2 and self.app.toast is not None:
                break  # a toast's band (rows 55..63) takes the bottom: the third line's
                # letters reach row 55
            if len(line) > (15 if i == 1 else 16):
                draw.small(canvas, line, 0, top + step * i)
            else:
                canvas.text(line, 0, top + step * i, 1)
        if len(self.options) > 1:
            # UP/DOWN hint: a small up/down arrow in the last column of the second line (under
            # the ALL OUT! banner, of the third)
            y = 49 if first else 41
            canvas.vline(124, y, 7, 1)
            canvas.pixel(123, y + 1, 1)
            canvas.pixel(125, y + 1, 1)
            canvas.pixel(123, y + 5, 1)
            canvas.pixel(125, y + 5, 1)


# Every ui mode module has open(app) -> its screen: the class itself.
open = BattleScreen  # noqa: A001


def _new_series(app):
    return Reset(app.new_game("battle"))


def _heroes(app):
    return Heroes(app)


class Heroes(ListScreen):
    """Battle Actions: each hero's advance, the player whose turn it is first, then the
    opponent's (an attack can push an enemy hero back: BG-12); OK on a hero moves it (UP
    advance, DOWN retreat), 'End turn' ends the turn (win check)."""

    game_screen = True

    # Each hero's row as last built (side * HEROES + hero) and what it showed (its advance * 2
    # + across): the list is built whenever it is shown, and a row is formatted again only
    # when its hero moved (MicroPython searches the interned names for every new string).
    # (Named with names interned already.)
    lines = [""] * (2 * battle.HEROES)
    values = [-1] * (2 * battle.HEROES)

    def __init__(self, app):
        super().__init__("", [])  # (the rows are built when it is shown: on_show)
        self.app = app

    def on_event(self, app):
        """Rebuild the rows from the game."""
        game = app.session.game
        player = game.player
        rows = game.rows()
        items = []
        lines = Heroes.lines
        values = Heroes.values
        for side in (player, 1 - player):
            for hero in range(battle.HEROES):
                advance = game.heroes[side][hero]
                across = 1 if advance >= rows else 0
                slot = side * battle.HEROES + hero
                shown = advance * 2 + across
                if values[slot] != shown:
                    values[slot] = shown
                    lines[slot] = "%s hero %d: %d%s" % (
                        player_name(side),
                        hero + 1,
                        advance,
                        " across" if across else "",
                    )
                items.append(lines[slot])
        if game.phase == battle.ACTIONS:
            items.append("End turn")
        self.items = items
        # the win needs 3 heroes in the other half and the higher score (BG-15)
        self.title = "%s %d:%d, %d of 3 across" % (
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
        game = app.session.game
        if index >= 2 * battle.HEROES:
            # (this list is not told: it goes, and the Battle screen under it is rebuilt)
            app.session.play(battle.end_turn(), False)
            return POP
        if game.phase != battle.ACTIONS:
            app.show_toast("Only in actions")
            return None
        side = game.player if index < battle.HEROES else 1 - game.player
        return Move(app, side, index % battle.HEROES)


class Move(Screen):
    """Move one hero of either side: UP advances, DOWN retreats (each an event), OK/BACK done.
    Shows the hero's column on the battlefield (both halves, the moving side's at the bottom)."""

    game_screen = True

    def __init__(self, app, side, hero):
        super().__init__()
        self.app = app
        self.player = side  # the side whose hero moves
        self.hero = hero
        self.text = ""
        self.on_event(app)

    def on_event(self, app):
        """Rebuild the text."""
        game = app.session.game
        side = self.player
        self.text = "%s hero %d: %d ahead" % (
            player_name(side),
            self.hero + 1,
            game.heroes[side][self.hero],
        )
        self.dirty = True

    def on_button(self, app, button):
        """Advance, retreat or done."""
        if button == UP:
            app.session.play(battle.advance(self.player, self.hero))
        elif button == DOWN:
            app.session.play(battle.retreat(self.player, self.hero))
        elif button == OK or button == BACK:
            return POP
        return None

    def draw(self, canvas):
        """The battlefield: 5 columns, 2 halves of `rows` rows; the moving side's heroes
        filled, the other side's outlined; the moving hero's column framed."""
        game = self.app.session.game
        rows = game.rows()
        player = self.player
        draw.title(canvas, self.text)
        total = 2 * rows
        cell = min(10, 52 // total)
        top = 11
        left = 70
        rect = canvas.rect  # (looked up once: the display's classes are walked for them)
        fill_rect = canvas.fill_rect
        mine = game.heroes[player]
        theirs = game.heroes[1 - player]
        for column in range(battle.HEROES):
            x = left + column * 11
            if column == self.hero:
                rect(x - 1, top - 1, 11, total * cell + 2, 1)
            # this player's back row is at the bottom
            y = top + (total - 1 - mine[column]) * cell
            fill_rect(x + 1, y + 1, 7, cell - 2, 1)
            y = top + theirs[column] * cell
            rect(x + 1, y + 1, 7, cell - 2, 1)
        canvas.hline(left - 2, top + rows * cell, 56, 1)
        draw.small(canvas, "UP: advance", 0, 20)
        draw.small(canvas, "DOWN:", 0, 30)
        draw.small(canvas, "retreat", 6, 39)
        draw.small(canvas, "OK: done", 0, 52)


def _roll(app):
    """A Battle Roll of all six dice (the board's rows per half asked first, BG-13)."""
    game = app.session.game
    game.rows()
    app.session.play(battle.roll(game, app.randbelow))


def _roll_six(app):
    """ALL OUT!'s "roll all six again" (what is set aside stays)."""
    app.session.play(battle.roll(app.session.game, app.randbelow))


def _reroll(app, keep):
    """Roll again every free die but the kept ones."""
    app.session.play(battle.reroll(app.session.game, keep, app.randbelow))
