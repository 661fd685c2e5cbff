"""Messages: a notice (e.g. settings reset to defaults) and the crash screen; the scrolling page
that Help and a game's page in words are made of. Pure."""

from dicepod.ui import draw
from dicepod.ui.screen import BACK, DOWN, OK, POP, UP, Screen, wrap


class Message(Screen):
    """A titled message of one or more lines; UP/DOWN scroll, OK or BACK closes it. Small: in
    the 6×8 font (21 columns), with a mark while there is more below."""

    def __init__(self, title, lines, small=False):
        super().__init__()
        self.title = title
        self.small = small
        self.lines = []
        for line in lines:
            self.lines.extend(wrap(line, draw.SMALL_COLUMNS if small else 16))
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
        small = self.small
        y = 11 if small else 10
        for line in self.lines[self.top : self.top + 6]:
            if small:
                draw.small(canvas, line, 0, y)
            else:
                canvas.text(line, 0, y, 1)
            y += 9
        if small and self.top + 6 < len(self.lines):
            canvas.vline(127, 60, 4, 1)


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
