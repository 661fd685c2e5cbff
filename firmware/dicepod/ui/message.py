"""Messages: a notice (e.g. settings reset to defaults) and the crash screen. Pure."""

from dicepod.ui import draw
from dicepod.ui.screen import BACK, DOWN, OK, POP, UP, Screen, wrap


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
        if button == OK or button == BACK:
            return POP
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
    """The crash (the app has already restarted from the journal): the exception first, then
    where it happened, innermost first (file:line function)."""

    def __init__(self, trace, safe):
        lines = []
        frames = []
        last = ""
        for row in trace.split("\n"):
            row = row.strip()
            if row.startswith('File "'):
                end = row.find('"', 6)
                where = row[6:end].replace("\\", "/").split("/")[-1]
                rest = row[end + 1 :].replace(", line ", ":").replace(", in ", " ")
                frames.append(where + rest)
            elif row and not row.startswith("Traceback") and not row.startswith("~"):
                last = row
        lines.append(last)
        if safe:
            lines.append("Crashed again: game not resumed")
        frames.reverse()
        lines.extend(frames)
        super().__init__("CRASH: restarted", lines)
