"""Free roll's own entries in its game menu (fairness test, auto-roll 10/100/1000, the sums
or faces view, reset, counts or percentages, class mode, the loaded die) and the fairness
self-test screen. Pure. A shared screen (dicepod.ram), apart from the rolls screen
(dicepod.ui.free)."""

from micropython import const

from dicepod.ui import draw
from dicepod.ui.gamemenu import GameMenu
from dicepod.ui.screen import BACK, OK, POP, Screen, wrap

# Dice the self-test rolls per tick (keeps every tick short on the Pico).
_PER_TICK = const(60)


# Free roll's own rows, in the order of menu()'s entries after the fairness test: an auto-roll
# of that many rolls, then the view (0), reset (-1), percentages (-2), class mode (-3) and the
# loaded die (-4).
_ROWS = const((10, 100, 1000, 0, -1, -2, -3, -4))
# The face the menu's loaded die favours.
_LOADED_FACE = const(6)


def choose(app):
    """The chosen row of Free roll's own (the menu on top, the Free roll screen under it)."""
    row = _ROWS[app.stack[-1].cursor - 1]
    screen = app.stack[-2]
    if row > 0:
        screen.start(row)
    elif row == 0:
        screen.view = not screen.view
    elif row == -1:
        app.session.play(("reset", ()))
    elif row == -2:
        screen.percent = not screen.percent
    else:
        key = "free.class" if row == -3 else "free.loaded"
        on = app.session.game.settings.get(key)
        app.session.change_setting(key, 0 if on else (1 if row == -3 else _LOADED_FACE))
    screen.update(app)
    return POP


def menu(app, screen):
    """The game menu over the Free roll screen, with its own entries first."""
    settings = app.session.game.settings
    return GameMenu(
        app,
        (
            ("Fairness test", _self_test),
            ("Auto-roll 10", choose),
            ("Auto-roll 100", choose),
            ("Auto-roll 1000", choose),
            ("Show faces" if screen.view else "Show sums", choose),
            ("Reset counts", choose),
            ("Show counts" if screen.percent else "Show %", choose),
            ("Class mode: " + ("on" if settings.get("free.class") else "off"), choose),
            ("Loaded die: " + ("on" if settings.get("free.loaded") else "off"), choose),
        ),
    )


def _self_test(app):
    return SelfTest(app)


class SelfTest(Screen):
    """The fairness self-test: roll N dice (the setting; the loaded die when Free roll has it)
    with progress, then the counts and the verdict in words (how often a fair die is this
    uneven). The finished test is journalled with its counts (and the weights, loaded)."""

    def __init__(self, app):
        super().__init__()
        # Imported here, not at the top: this menu stays while a mode's code is dropped, and
        # the self-test runs only in Free roll, with that mode's rules loaded.
        from dicepod.rules import free

        self.free = free
        self.target = app.session.game.settings.get("free.test_rolls")
        self.loaded = app.session.game.settings.get("free.loaded")  # the dice Free roll rolls
        self.counts = [0] * 7
        self.done = 0
        self.finished = False
        self.lines = ()

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
        loaded = self.loaded
        free = self.free
        for _ in range(batch):
            self.counts[free.die(app.randbelow, loaded)] += 1
        self.done += batch
        if self.done >= self.target:
            self.finished = True
            app.session.play(free.selftest_event(self.counts, loaded))
            c = self.counts
            self.lines = [
                "1:%d 2:%d 3:%d" % (c[1], c[2], c[3]),
                "4:%d 5:%d 6:%d" % (c[4], c[5], c[6]),
            ] + wrap(free.verdict(self.counts), draw.SMALL_COLUMNS)[:3]
        self.dirty = True
        return None

    def draw(self, canvas):
        """Progress while running; the counts and the verdict after."""
        draw.title(canvas, "Fairness test" + (": LOADED" if self.loaded else ""))
        draw.bar(canvas, 0, 10, 128, 5, self.done, self.target)
        draw.small(canvas, "%d of %d dice" % (self.done, self.target), 0, 16)
        if not self.finished:
            return
        y = 24
        for line in self.lines:
            draw.small(canvas, line, 0, y)
            y += 8
