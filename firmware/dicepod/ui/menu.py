"""Lists: the main menu, a game's own menu (long OK), a yes/no question. Pure."""

from micropython import const

from dicepod.rules import modes
from dicepod.ui import draw
from dicepod.ui.screen import BACK, CANCEL, DOWN, LONG_DOWN, LONG_UP, OK, UP, Reset, Screen, wrap


class ListScreen(Screen):
    """A titled list: UP/DOWN move (long press jumps to the ends), OK chooses, BACK leaves."""

    def __init__(self, title, items):
        super().__init__()
        self.title = title
        self.items = items
        self.cursor = 0
        self.top = 0

    def choose(self, app, index):
        """The player chose items[index]: return a transition."""
        return None

    def on_button(self, app, button):
        """Move, choose or leave."""
        count = len(self.items)
        if button == UP and count:
            self.cursor = (self.cursor - 1) % count
        elif button == DOWN and count:
            self.cursor = (self.cursor + 1) % count
        elif button == LONG_UP:
            self.cursor = 0
        elif button == LONG_DOWN and count:
            self.cursor = count - 1
        elif button == OK and count:
            return self.choose(app, self.cursor)
        elif button == CANCEL:
            return BACK
        else:
            return None
        self.top = draw.scroll_top(self.cursor, self.top)
        self.dirty = True
        return None

    def draw(self, canvas):
        """Title bar and six rows."""
        draw.title(canvas, self.title)
        draw.rows(canvas, self.items, self.cursor, self.top)


# Main menu rows after the game modes.
_HISTORY = const("History")
_SETTINGS = const("Settings")


class MainMenu(ListScreen):
    """The main menu: every game mode, History, Settings. The current game resumes."""

    def __init__(self, app):
        items = [title for _mode, title in modes.MODES]
        items.append(_HISTORY)
        items.append(_SETTINGS)
        super().__init__("dicepod", items)
        for i in range(len(modes.MODES)):
            if modes.MODES[i][0] == app.mode:
                self.cursor = i  # start on the game in progress
        self.top = draw.scroll_top(self.cursor, 0)
        self.battery = ""

    def on_show(self, app):
        """Name the game in progress in the title bar, and the battery level if fitted."""
        self.title = "dicepod: " + app.mode if app.mode else "dicepod"
        level = app.battery()
        self.battery = "" if level is None else "%d%%" % level
        self.dirty = True

    def draw(self, canvas):
        """The list, with the battery level at the right of the title bar."""
        super().draw(canvas)
        if self.battery:
            canvas.fill_rect(127 - len(self.battery) * 8, 0, len(self.battery) * 8 + 1, 9, 1)
            draw.right(canvas, self.battery, 1, 0)

    def choose(self, app, index):
        """Open a mode (resuming its game), History or Settings."""
        if index < len(modes.MODES):
            mode, title = modes.MODES[index]
            if app.mode == mode:
                return app.game_screen()
            if app.mode is None:
                return app.new_game(mode)
            return Confirm(
                "New game?",
                "End the %s game and start %s?" % (app.mode, title),
                _NewGame(mode),
            )
        if self.items[index] == _HISTORY:
            from dicepod.ui.history import History

            # No game screen is open under the main menu: drop the game and its code while the
            # history is read (the journal keeps the game; opening it folds it again).
            app.release_game()
            return History(app)
        from dicepod.ui.settings import SettingsMenu

        return SettingsMenu(app)


class _NewGame:
    """A deferred app.new_game(mode) for a Confirm."""

    def __init__(self, mode):
        self.mode = mode

    def __call__(self, app):
        return Reset(app.new_game(self.mode))


class Confirm(Screen):
    """A yes/no question: OK runs then(app) and takes its transition; BACK leaves."""

    def __init__(self, title, question, then):
        super().__init__()
        self.title = title
        self.lines = wrap(question)
        self.then = then

    def on_button(self, app, button):
        """OK = yes, BACK = no."""
        if button == OK:
            return self.then(app)
        if button == CANCEL:
            return BACK
        return None

    def draw(self, canvas):
        """The question and the two answers."""
        draw.title(canvas, self.title)
        y = 12
        for line in self.lines[:4]:
            canvas.text(line, 0, y, 1)
            y += 9
        canvas.text("OK:yes BACK:no", 0, 56, 1)


class GameMenu(ListScreen):
    """A game's menu (long OK in a game): the mode's own entries, then Undo, New game,
    History, Settings, Main menu. extra: ((label, function(app) -> transition), ...)."""

    def __init__(self, app, extra=()):
        self.extra = extra
        items = [label for label, _f in extra]
        items.extend(("Undo", "New game", "History", "Settings", "Main menu"))
        super().__init__("Menu: %s" % app.mode, items)

    def choose(self, app, index):
        """Run the chosen entry."""
        if index < len(self.extra):
            return self.extra[index][1](app)
        label = self.items[index]
        if label == "Undo":
            app.undo()
            return BACK
        if label == "New game":
            return Confirm("New game?", "End this game and start a new one?", _NewGame(app.mode))
        if label == "History":
            from dicepod.ui.history import History

            return History(app)
        if label == "Settings":
            from dicepod.ui.settings import ModeSettings

            return ModeSettings(app, app.mode)
        return Reset()


class Pick(ListScreen):
    """Pick one of labels; OK calls then(app, values[index]) and takes its transition
    (None from then: go back)."""

    def __init__(self, title, labels, values, index, then):
        super().__init__(title, labels)
        self.values = values
        self.then = then
        self.cursor = index if 0 <= index < len(labels) else 0
        self.top = draw.scroll_top(self.cursor, 0)

    def choose(self, app, index):
        """Hand the value on."""
        result = self.then(app, self.values[index])
        return BACK if result is None else result
