"""The main menu: every game mode, History, Settings. Pure. The bottom of the app's screen
stack. A game's own menu is dicepod.ui.gamemenu."""

from micropython import const

from dicepod.rules import modes
from dicepod.ui import draw
from dicepod.ui.lists import Confirm, ListScreen
from dicepod.ui.screen import NewGame

# Main menu rows after the game modes.
_HISTORY = const("History")
_SETTINGS = const("Settings")


class MainMenu(ListScreen):
    """The main menu: every game mode, History, Settings. The current game resumes."""

    def __init__(self, app):
        super().__init__("dicepod", [title for _mode, title in modes.MODES] + [_HISTORY, _SETTINGS])
        for i in range(len(modes.MODES)):
            if modes.MODES[i][0] == app.session.mode:
                self.cursor = i  # start on the game in progress
        self.top = draw.scroll_top(self.cursor, 0)
        self.battery = ""

    def on_show(self, app):
        """Name the game in progress in the title bar, and the battery level if fitted."""
        self.title = "dicepod: " + app.session.mode if app.session.mode else "dicepod"
        # the battery's charge in percent, when one is fitted (the board's power driver)
        level = None
        read = getattr(app.power, "battery", None)
        if read is not None:
            try:
                level = read()
            except OSError:
                pass
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
            if app.session.mode == mode:
                return app.game_screen()
            if app.session.mode is None:
                return app.new_game(mode)
            return Confirm(
                "New game?",
                "End the %s game and start %s?" % (app.session.mode, title),
                NewGame(mode),
            )
        if self.items[index] == _HISTORY:
            return app.later(_history)  # it reads the journal
        from dicepod.ui.settings import SettingsMenu

        return SettingsMenu(app)


def _history(app):
    """History (its code imported here, in the pass after the press: app.later)."""
    from dicepod.ui.history import History

    return History(app)
