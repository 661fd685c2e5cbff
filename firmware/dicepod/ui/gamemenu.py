"""A game's own menu (long OK in a game): the mode's entries, Help, Undo, New game, History,
Settings, Main menu. Pure."""

from dicepod.ui.lists import Confirm, ListScreen
from dicepod.ui.screen import POP, NewGame, Reset


class GameMenu(ListScreen):
    """A game's menu (long OK in a game): the mode's own entries, then Help, Undo, New game,
    History, Settings, Main menu. extra: ((label, function(app) -> transition), ...)."""

    def __init__(self, app, extra=()):
        self.extra = extra
        items = [label for label, _f in extra]
        items.extend(("Help", "Undo", "New game", "History", "Settings", "Main menu"))
        super().__init__("Menu: %s" % app.session.mode, items)

    def choose(self, app, index):
        """Run the chosen entry."""
        if index < len(self.extra):
            return self.extra[index][1](app)
        label = self.items[index]
        if label == "Help":
            from dicepod.ui.help import Help

            return Help(app.session.mode)
        if label == "Undo":
            app.undo()
            return POP
        if label == "New game":
            return Confirm(
                "New game?", "End this game and start a new one?", NewGame(app.session.mode)
            )
        if label == "History":
            app.busy()  # the game's turns are read from the journal
            from dicepod.ui.historypage import current

            return current(app)
        if label == "Settings":
            from dicepod.ui.settings import ModeSettings

            return ModeSettings(app, app.session.mode)
        return Reset()
