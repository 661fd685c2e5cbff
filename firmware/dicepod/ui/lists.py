"""Lists and a question: the list screen every menu and picker is made of, a picker, and a yes/no
question. Pure. A shared screen (dicepod.ram): every mode's screens use them.
"""

from dicepod.ui import draw
from dicepod.ui.screen import BACK, DOWN, OK, POP, UP, Screen, wrap


class ListScreen(Screen):
    """A titled list: UP/DOWN move (held: repeat; the list wraps around), OK chooses, BACK
    leaves."""

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
        elif button == OK and count:
            return self.choose(app, self.cursor)
        elif button == BACK:
            return POP
        else:
            return None
        self.top = draw.scroll_top(self.cursor, self.top)
        self.dirty = True
        return None

    def draw(self, canvas):
        """Title bar and six rows."""
        draw.title(canvas, self.title)
        draw.rows(canvas, self.items, self.cursor, self.top)


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
        """Hand the value on (a move: a question it asks resumes it with this value)."""
        return app.do(self.chosen, self.values[index])

    def chosen(self, app, value):
        """then(app, value); its transition, or back to the screen below."""
        result = self.then(app, value)
        return POP if result is None else result


class Confirm(Screen):
    """A yes/no question: OK runs then(app) and takes its transition; BACK leaves."""

    def __init__(self, title, question, then):
        super().__init__()
        self.title = title
        self.lines = wrap(question, draw.SMALL_COLUMNS)
        self.then = then

    def on_button(self, app, button):
        """OK = yes, BACK = no."""
        if button == OK:
            # the question's text goes first: then() may start a game, loading a mode's code
            self.lines = ()
            return self.then(app)
        if button == BACK:
            return POP
        return None

    def draw(self, canvas):
        """The question and the two answers."""
        draw.title(canvas, self.title)
        y = 12
        for line in self.lines:  # questions are at most five lines of 21
            draw.small(canvas, line, 0, y)
            y += 8
        draw.small(canvas, "OK: yes    BACK: no", 0, 56)
