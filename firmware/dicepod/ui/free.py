"""Free roll: roll 1-6 dice, a live histogram of every face so far, and the fairness
self-test for classrooms (N dice, progress, counts, chi-square, pass/fail at 1 %). Pure."""

from micropython import const

from dicepod.rules import free
from dicepod.ui import draw
from dicepod.ui.screen import BACK, DOWN, LONG_OK, OK, POP, UP, Screen

# Dice the self-test rolls per tick (keeps every tick short on the Pico).
_PER_TICK = const(60)
# Histogram: the tallest bar's height in pixels, and the bars' base line.
_BAR_MAX = const(22)
_BAR_BASE = const(55)


def open(app):  # noqa: A001 (every ui mode module has open(app))
    """Return the Free roll screen."""
    return FreeRoll(app)


class FreeRoll(Screen):
    """OK rolls; UP/DOWN: more or fewer dice; long OK: menu (self-test, undo, ...)."""

    game_screen = True

    def __init__(self, app):
        super().__init__()
        self.app = app
        self.total = ""

    def on_event(self, app):
        """The game changed: rebuild the text."""
        self.total = "n=%d" % app.session.game.dice
        self.dirty = True

    def on_show(self, app):
        """Shown (again): rebuild the text."""
        self.on_event(app)

    def on_button(self, app, button):
        """Roll, change the dice count, open the menu or leave."""
        game = app.session.game
        if button == OK:
            app.session.play(free.roll(game, app.randbelow))
        elif button == UP or button == DOWN:
            n = game.settings.get("free.dice") + (1 if button == UP else -1)
            if 1 <= n <= 6:
                app.session.change_setting("free.dice", n)
        elif button == LONG_OK:
            from dicepod.ui.gamemenu import GameMenu

            return GameMenu(app, (("Fairness test", _self_test),))
        elif button == BACK:
            return POP
        return None

    def draw(self, canvas):
        """The last roll, the histogram of every face so far, the total."""
        game = self.app.session.game
        last = game.last
        if last:
            draw.dice_row(canvas, last, None)
        else:
            n = game.settings.get("free.dice")
            draw.dice_row(canvas, (0,) * n, (draw.BLANK,) * n)
            canvas.text("OK: roll", 0, 24, 1)
        counts = game.counts
        most = max(counts)
        for face in range(1, 7):
            x = 1 + (face - 1) * 21
            if most:
                height = (counts[face] * _BAR_MAX + most - 1) // most
                canvas.fill_rect(x + 4, _BAR_BASE - height, 12, height, 1)
            canvas.hline(x, _BAR_BASE, 20, 1)
            canvas.text(str(face), x + 6, 57, 1)
        if game.dice:
            draw.right(canvas, self.total, 23)


def _self_test(app):
    return SelfTest(app)


class SelfTest(Screen):
    """The fairness self-test: roll N dice (the setting) with progress, then counts,
    chi-square and PASS/FAIL at 1 %. The finished test is journalled with its counts."""

    def __init__(self, app):
        super().__init__()
        self.target = app.session.game.settings.get("free.test_rolls")
        self.counts = [0] * 7
        self.done = 0
        self.finished = False
        self.lines = ("", "", "", "")

    def on_button(self, app, button):
        """OK: run again once finished; BACK: leave (a running test is dropped)."""
        if button == OK and self.finished:
            self.counts = [0] * 7
            self.done = 0
            self.finished = False
            self.dirty = True
        elif button == BACK:
            return POP
        return None

    def tick(self, app, dt_ms):
        """Roll the next batch of dice; journal the result when done."""
        if self.finished:
            return None
        batch = min(_PER_TICK, self.target - self.done)
        for _ in range(batch):
            self.counts[app.randbelow(6) + 1] += 1
        self.done += batch
        if self.done >= self.target:
            self.finished = True
            app.session.play(free.selftest_event(self.counts))
            chi = free.chi_square_x100(self.counts)
            c = self.counts
            self.lines = (
                "1:%d 2:%d 3:%d" % (c[1], c[2], c[3]),
                "4:%d 5:%d 6:%d" % (c[4], c[5], c[6]),
                "chi-sq " + free.format_x100(chi),
                "PASS" if free.passes(self.counts) else "FAIL",
            )
        self.dirty = True
        return None

    def draw(self, canvas):
        """Progress while running; counts, chi-square and the verdict after."""
        draw.title(canvas, "Fairness test")
        draw.bar(canvas, 0, 11, 128, 7, self.done, self.target)
        canvas.text("%d/%d dice" % (self.done, self.target), 0, 20, 1)
        if not self.finished:
            return
        canvas.text(self.lines[0], 0, 29, 1)
        canvas.text(self.lines[1], 0, 38, 1)
        # the chi-square of the counts and the limit a fair die stays under at the 1 % level
        draw.small(canvas, self.lines[2], 0, 47)
        draw.small(canvas, "limit 15.09", 0, 56)
        canvas.fill_rect(80, 47, 48, 17, 1)
        draw.big(canvas, self.lines[3], 80, 48, 1, 0)
        canvas.text("at 1%", 84, 56, 0)
