"""Editing one setting, and the question a game asks when it needs a value the player has not
entered (apart from the settings lists: asking loads only this). Pure."""

from dicepod.ui import draw
from dicepod.ui.screen import BACK, DOWN, OK, POP, UP, Screen, wrap


def value_name(module, key, value):
    """Return the text for a setting's value: its name if the module names it, '?' if unset."""
    if value is None:
        return "?"
    names = getattr(module, "VALUE_NAMES", ())
    for name_key, choices in names:
        if name_key == key and 0 <= value < len(choices):
            return choices[value]
    return str(value)


class EditValue(Screen):
    """Edit one setting: UP/DOWN change it (held: repeat), OK saves, BACK leaves. again: see
    AskValue (None for the settings lists). over: the settings list whose row it edits in place
    (dicepod.ui.settings.ModeSettings: the list stays, the row's value becomes a field and the
    title band gives the range); None: a screen of its own (a game's question)."""

    heading = "Setting"

    def __init__(self, app, key, label, again=None, over=None):
        super().__init__()
        self.again = again
        self.over = over
        self.answered = None
        self.key = key
        self.module = app.session.group(key.split(".")[0])
        spec = app.session.spec(key)
        if spec is None:
            raise ValueError("unknown setting %s" % key)
        self.low = spec[2]
        self.high = spec[3]
        value = app.session.setting(key)
        if value is None:
            value = spec[1] if spec[1] is not None else self.low
        self.value = value
        self.lines = wrap(label, draw.SMALL_COLUMNS)  # labels are at most two lines of 21
        self.text = ""
        # the range under the value ("0 to 3600"; named choices: the names are shown instead)
        self.range = "%d to %d" % (self.low, self.high)
        for name_key, choices in getattr(self.module, "VALUE_NAMES", ()):
            if name_key == key:
                self.range = ""
                if self.low == 0 and len(choices) == 1:  # 0 named ("Never"), then numbers
                    self.range = "%s to %d" % (choices[0], self.high)
        self.update()

    def update(self):
        """Build the value's text (once per change)."""
        self.text = value_name(self.module, self.key, self.value)
        self.dirty = True

    def on_button(self, app, button):
        """Change, save or leave."""
        if button == UP and self.value < self.high:
            self.value += 1
        elif button == DOWN and self.value > self.low:
            self.value -= 1
        elif button == OK:
            try:  # (the settings file is written after the frame: Session.flush)
                app.session.change_setting(self.key, self.value)
            except ValueError as exc:
                app.show_toast(str(exc.args[0]))
                return None
            self.answered = self.again
            return POP
        elif button == BACK:
            return POP
        else:
            return None
        self.update()
        return None

    def draw(self, canvas):
        """Label, the value in big digits, the range; or, over a list, the list with the value
        in a dark field on its row and the range in the title band."""
        over = self.over
        if over is not None:
            over.draw(canvas)
            canvas.fill_rect(0, 0, draw.WIDTH, 9, 1)
            hint = self.range or over.title
            draw.small(canvas, hint, 1, 1, 0)
            if len(hint) < draw.SMALL_COLUMNS - 8:
                draw.small(canvas, "OK: save", draw.RIGHT, 1, 0)
            text = self.text
            # as the row's value, flush right; the field covers the value the row shows too
            wide = max(len(text), len(over.values[over.cursor]))
            x = 1 + (draw.SMALL_COLUMNS - 1 - wide) * draw.SMALL
            canvas.fill_rect(x - 2, over.value_y, wide * draw.SMALL + 3, 9, 0)
            draw.small(canvas, text, x + (wide - len(text)) * draw.SMALL, over.value_y + 1)
            return
        draw.title(canvas, self.heading)
        y = 11
        for line in self.lines:
            draw.small(canvas, line, 0, y)
            y += 8
        if len(self.text) <= 5:
            draw.big(canvas, self.text, (128 - len(self.text) * 16) // 2, 31, 2)
        else:
            draw.center(canvas, self.text, 35)
        if self.range:
            draw.small(canvas, self.range, 0, 56)
        draw.small(canvas, "OK: save", draw.RIGHT, 56)


class AskValue(EditValue):
    """A game needs a value the rulebook does not give: ask the player, from their card. The
    app sets `again` to (screen, action, args) of the move that asked (App.do); once the value
    is saved it is `answered`, and the app resumes that very move (the next value it needs is
    asked at once)."""

    heading = "From your card:"  # (EditValue does the rest: a class without code of its own)
