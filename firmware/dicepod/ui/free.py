"""Free roll for a class: roll 1-6 dice, the counts of every face (or their percentages) against
the number a fair die is expected to give, the sums of the dice against their exact
distribution, auto-roll 10, 100 or 1000 times (pause, stop, reset), the fairness self-test said
in words, a class mode (the display stays on, the counts in the big font) and a clearly marked
loaded die to show the test catching it. Pure."""

from micropython import const

from dicepod.rules import free
from dicepod.ui import draw
from dicepod.ui.screen import BACK, DOWN, LONG_OK, OK, POP, UP, Screen

# The bars' base line; the face numbers are drawn under it. The status line and the counts,
# which change with every roll, each sit in one display page (8 pixel rows from a multiple of
# 8): across two, each change would go out twice over the bus.
_BAR_BASE = const(55)
_STATUS_Y = const(16)
_COUNTS_Y = const(24)
# Auto-roll: rolls per 20 ms tick for a run of n rolls (a run of 10 or 100 can be watched; 1000
# takes about four seconds).
_AUTO_SLOW = const(1)
_AUTO_FAST = const(5)


# The faces' numbers, made once (str(face) made a new string a face and frame, each a search
# of the names interned so far).
_FACE_NAMES = ("", "1", "2", "3", "4", "5", "6")


class FreeRoll(Screen):
    """OK rolls; UP/DOWN: more or fewer dice; held OK: the menu (fairness test, auto-roll, the
    sums view, reset, undo...). While auto-rolling OK pauses and resumes, BACK stops."""

    game_screen = True

    def __init__(self, app):
        super().__init__()
        self.app = app
        self.status = ""
        self.view = False  # the sums view (else the faces)
        self.left = 0  # rolls still to make in an auto-roll
        self.total = 0
        self.paused = False
        self.percent = False  # the labels over the bars: percentages (else counts)

    def on_event(self, app):
        """The game changed: rebuild the status line."""
        self.update(app)

    def on_show(self, app):
        """Shown (again): rebuild the status line."""
        self.update(app)

    def update(self, app):
        """The status line (21 characters of the 6×8 font at most)."""
        game = app.session.game
        if self.left:
            done = self.total - self.left
            if self.paused:
                text = "Paused %d/%d, OK: go" % (done, self.total)
                if len(text) > draw.SMALL_COLUMNS:
                    text = "Paused %d/%d" % (done, self.total)
            else:
                text = "Auto-roll %d/%d" % (done, self.total)
        elif self.view:
            n = game.settings.get("free.dice")
            if game.sum_dice == n and game.sum_rolls:
                text = "%d rolls of %d dice" % (game.sum_rolls, n)
            else:
                text = "Sums of %d dice" % n if n > 1 else "One die: its faces"
        elif game.last and len(game.last) != game.settings.get("free.dice"):
            text = "Dice a roll: %d" % game.settings.get("free.dice")  # UP/DOWN: shown at once
        elif game.settings.get("free.loaded"):
            text = "Weights %d %d %d %d %d %d" % free.weights(game.settings.get("free.loaded"))
        elif game.rolls:
            text = "%d rolls, %d dice" % (game.rolls, game.dice)
            if len(text) > draw.SMALL_COLUMNS:
                text = "%d dice" % game.dice
        else:
            text = "OK: roll. Hold: menu"
        self.status = text
        self.dirty = True

    def start(self, count):
        """Roll count times, a few a tick (tick())."""
        self.left = count
        self.total = count
        self.paused = False

    def on_button(self, app, button):
        """Roll, change the dice count, open the menu or leave; pause or stop an auto-roll."""
        game = app.session.game
        if self.left:
            if button == OK:
                self.paused = not self.paused
            elif button == BACK:
                self.left = 0
            elif button == LONG_OK:
                self.paused = True
                return menu(app, self)
            self.update(app)
            return None
        if button == OK:
            app.session.play(free.roll(game, app.randbelow))
        elif button == UP or button == DOWN:
            n = game.settings.get("free.dice") + (1 if button == UP else -1)
            if 1 <= n <= 6:
                app.session.change_setting("free.dice", n)
        elif button == LONG_OK:
            return menu(app, self)
        elif button == BACK:
            return POP
        return None

    def tick(self, app, dt_ms):
        """Auto-roll: the next few rolls, each a journalled event like a press of OK. In class
        mode the display stays on (every tick counts as activity)."""
        if app.power is not None and app.session.game.settings.get("free.class"):
            app.power.update(0, True)
        if not self.left or self.paused:
            return None
        batch = _AUTO_FAST if self.total >= 1000 else _AUTO_SLOW
        while batch and self.left:
            self.left -= 1
            batch -= 1
            # the app told once a batch (the last roll's): the status is built once
            app.session.play(free.roll(app.session.game, app.randbelow), not batch or not self.left)
        self.update(app)
        return None

    def draw(self, canvas):
        """The last roll (small dice), the status line, then the faces or the sums."""
        game = self.app.session.game
        last = game.last
        n = game.settings.get("free.dice")
        if last and len(last) == n:
            for i in range(len(last)):
                draw.die(canvas, 1 + i * 13, 0, last[i], draw.ROLLED, 12)
        else:  # nothing rolled yet, or another number of dice chosen since
            for i in range(n):
                draw.die(canvas, 1 + i * 13, 0, 0, draw.BLANK, 12)
        loaded = game.settings.get("free.loaded")
        if loaded:  # marked on every view: these dice are not fair
            draw.small(canvas, "LOADED", draw.RIGHT, 0)
            draw.small(canvas, "%d is x3" % loaded, draw.RIGHT, 8)
        draw.small(canvas, self.status, 0, _STATUS_Y)
        if self.view:
            self.draw_sums(canvas, game)
        else:
            self.draw_faces(canvas, game)

    def draw_faces(self, canvas, game):
        """A bar per face with its count above it, and the expected count (a dotted line)."""
        counts = game.counts
        most = max(counts)
        big = game.settings.get("free.class")
        cell = 8 if big else draw.SMALL
        labels = []
        staggered = False  # a label wider than its column: every other one a line lower
        for face in range(1, 7 if game.rolls else 1):
            if self.percent:
                text = "%d%%" % ((counts[face] * 200 + game.dice) // (2 * game.dice))
            else:
                text = short(counts[face], 4 if big else 5)
            labels.append(text)
            staggered = staggered or len(text) * cell > 20
        top = _COUNTS_Y + (17 if staggered else 9)
        # the scale fits the tallest bar and the expected line; expected = dice / 6
        scale = max(most * 6, game.dice)
        write = canvas.text  # (looked up once: the display's classes are walked for it)
        for face in range(1, 7):
            x = 1 + (face - 1) * 21
            if scale:
                height = (counts[face] * 6 * (_BAR_BASE - top) + scale - 1) // scale
                canvas.fill_rect(x + 4, _BAR_BASE - height, 12, height, 1)
            canvas.hline(x, _BAR_BASE, 20, 1)
            write(_FACE_NAMES[face], x + 6, 57, 1)
            if labels:
                text = labels[face - 1]
                y = _COUNTS_Y + (8 if staggered and face % 2 == 0 else 0)
                left = min(max(0, x + (21 - len(text) * cell) // 2), 128 - len(text) * cell)
                if big:
                    write(text, left, y, 1)
                else:
                    draw.small(canvas, text, left, y)
        if scale and game.rolls:
            level = _BAR_BASE - (game.dice * (_BAR_BASE - top) + scale - 1) // scale
            _line(canvas, 0, 128, level)

    def draw_sums(self, canvas, game):
        """A bar per possible sum of the dice, the exact expected count as dots on each."""
        n = game.settings.get("free.dice")  # the dice a roll rolls now
        low, high = n, 6 * n
        bins = high - low + 1
        width = 128 // bins
        left = (128 - width * bins) // 2
        sums = game.sums if game.sum_dice == n else None
        rolls = game.sum_rolls if sums is not None else 0
        ways = free.ways(n)
        outcomes = 6**n
        most = max(sums) if sums is not None else 0
        # scale in counts x outcomes: the bars and the expected curve on one scale
        scale = max(most * outcomes, rolls * max(ways))
        room = _BAR_BASE - _COUNTS_Y
        for s in range(low, high + 1):
            x = left + (s - low) * width
            if scale and sums is not None and sums[s]:
                height = (sums[s] * outcomes * room + scale - 1) // scale
                canvas.fill_rect(x, _BAR_BASE - height, max(1, width - 1), height, 1)
            if scale and rolls:
                level = _BAR_BASE - (rolls * ways[s] * room + scale // 2) // scale
                _line(canvas, x, max(1, width - 1), level)
        canvas.hline(0, _BAR_BASE, 128, 1)
        label = "sum of %d dice" % n if n > 1 else "one die"
        draw.small(canvas, str(low), left, 57)
        draw.small(canvas, label, draw.CENTER, 57)
        draw.small(canvas, str(high), draw.RIGHT, 57)


def short(n, chars):
    """n in at most chars characters: its digits, else thousands (12k) or millions (3M)."""
    if n < 10**chars:
        return str(n)
    return "%dk" % (n // 1000) if n < 10 ** (chars + 2) else "%dM" % (n // 1000000)


# Every ui mode module has open(app) -> its screen: the class itself (a function fewer in
# RAM than a def that calls it).
open = FreeRoll  # noqa: A001


def _line(canvas, x, w, y):
    """A dotted line w pixels long from x at y, visible on lit bars and on the dark alike
    (every other pixel inverted): by the display driver in the frame's bytes when it can."""
    if hasattr(canvas, "dots"):
        canvas.dots(x, w, y)
        return
    pixel = canvas.pixel  # (looked up once: the display's classes are walked for it)
    for i in range(x, x + w, 2):
        pixel(i, y, 0 if pixel(i, y) else 1)


def menu(app, screen):  # noqa: F811  (rebound to freemenu.menu by its first call)
    """The game menu with Free roll's own entries (dicepod.ui.freemenu, imported after the
    first frame: dicepod.ram). The first call puts freemenu's menu in this one's place: an
    import statement searches the interned names for every part of the module's name, and the
    later holds need none."""
    global menu
    from dicepod.ui.freemenu import menu

    return menu(app, screen)
