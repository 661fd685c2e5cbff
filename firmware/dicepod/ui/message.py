"""Messages: a notice (e.g. settings reset to defaults) and the crash screen. Pure."""

from dicepod.ui import draw
from dicepod.ui.screen import BACK, CANCEL, DOWN, OK, UP, Screen, wrap


class Message(Screen):
    """A titled message of one or more lines; UP/DOWN scroll, OK or BACK closes it."""

    def __init__(self, title, lines):
        super().__init__()
        self.title = title
        self.lines = []
        for line in lines:
            self.lines.extend(wrap(line))
        self.top = 0

    def on_button(self, app, button):
        """Scroll or close."""
        if button == OK or button == CANCEL:
            return BACK
        if button == UP and self.top > 0:
            self.top -= 1
            self.dirty = True
        elif button == DOWN and self.top + 6 < len(self.lines):
            self.top += 1
            self.dirty = True
        return None

    def draw(self, canvas):
        """Title and six lines."""
        draw.title(canvas, self.title)
        y = 10
        for line in self.lines[self.top : self.top + 6]:
            canvas.text(line, 0, y, 1)
            y += 9


class CrashScreen(Message):
    """The traceback of a crash (the app has already restarted from the journal)."""

    def __init__(self, trace, safe):
        lines = []
        if safe:
            lines.append("Crashed again: game not resumed")
        for row in trace.split("\n"):
            row = row.strip()
            if row and not row.startswith("Traceback"):
                lines.append(row)
        super().__init__("CRASH - restarted", lines)
        # show the end (the exception itself) first
        self.top = max(0, len(self.lines) - 6)
