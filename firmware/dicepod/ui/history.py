"""History: the current game's events, newest first (undone ones are gone). Pure."""

from micropython import const

from dicepod.ui import draw
from dicepod.ui.lists import ListScreen

# Most events kept on the screen (the journal has them all).
_KEEP = const(60)


def event_text(event):
    """Return one line for an event: 'roll 3 1 6 6 2 5'."""
    kind, data = event
    parts = [kind]
    for value in data:
        parts.append(str(value))
    return " ".join(parts)[:16]


class History(ListScreen):
    """The current game's effective events, newest first, read from the journal."""

    def __init__(self, app):
        super().__init__("History", [])
        self.load(app)

    def load(self, app):
        """Read the last events of the current game from the journal."""
        items = []
        count = 0
        for event in app.session.journal.game_events():
            count += 1
            items.append(event_text(event))
            if len(items) > _KEEP:
                items.pop(0)
        items.reverse()
        if not items:
            items.append("(no game yet)")
        self.items = items
        self.title = "Game %d: %d ev" % (app.session.journal.game, count)
        self.cursor = 0
        self.top = 0
        self.dirty = True

    def draw(self, canvas):
        """Title and rows."""
        draw.title(canvas, self.title)
        draw.rows(canvas, self.items, self.cursor, self.top)
