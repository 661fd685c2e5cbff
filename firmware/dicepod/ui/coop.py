"""The shared shape of the co-operative games' screens: an information area over an action
bar. UP/DOWN pick the action (the likeliest next one comes first after every event), OK does
it, long OK opens the game menu, long BACK undoes. Pure."""

from dicepod.ui import draw
from dicepod.ui.lists import ListScreen
from dicepod.ui.screen import BACK, DOWN, LONG_OK, OK, POP, UP, Screen


class ActionScreen(Screen):
    """Subclasses implement build(app) -> list of (label, action) and info(canvas); an action
    is a function(app) -> transition, an event to play, or the kind of an event without data
    (a string)."""

    game_screen = True

    def __init__(self, app):
        super().__init__()
        self.app = app
        self.actions = []
        self.index = 0

    def build(self, app):
        """Return the actions for the current state, likeliest first."""
        return []

    def on_show(self, app):
        """Shown (again): rebuild the actions."""
        self.on_event(app)

    def on_event(self, app):
        """The game changed: rebuild, cursor on the likeliest action."""
        self.actions = self.build(app)
        self.index = 0
        self.dirty = True

    def on_button(self, app, button):
        """Pick or do an action."""
        count = len(self.actions)
        if (button == UP or button == DOWN) and count:
            self.index = (self.index + (1 if button == DOWN else -1)) % count
            self.dirty = True
        elif button == OK and count:
            return app.do(self.actions[self.index][1])  # a question resumes this very action
        elif button == LONG_OK:
            from dicepod.ui.gamemenu import GameMenu

            return GameMenu(app)
        elif button == BACK:
            return POP
        return None

    def draw(self, canvas):
        """The information area, then the action bar."""
        self.info(canvas)
        if self.actions:
            draw.action_bar(canvas, self.actions[self.index][0])
        else:
            canvas.fill_rect(0, 55, 128, 9, 1)

    def info(self, canvas):
        """Draw the state (rows 0..54)."""


class Status(ListScreen):
    """A read-only list (team, bag, reserves): Status(title, items); BACK leaves."""

    def choose(self, app, index):
        """Nothing to do: OK leaves."""
        return POP
