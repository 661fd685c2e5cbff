"""Settings: the rules' open points and the values players enter from their cards; and the
question a game asks when it needs a value the player has not entered. Pure."""

from dicepod.rules import modes
from dicepod.ui import draw
from dicepod.ui.menu import ListScreen
from dicepod.ui.screen import (
    BACK,
    CANCEL,
    DOWN,
    LONG_DOWN,
    LONG_UP,
    OK,
    UP,
    Screen,
    wrap,
)

DEVICE = "device"  # the device's own settings group (dicepod.app.DEVICE)


def value_name(module, key, value):
    """Return the text for a setting's value: its name if the module names it, '?' if unset."""
    if value is None:
        return "?"
    names = getattr(module, "VALUE_NAMES", ())
    for name_key, choices in names:
        if name_key == key and 0 <= value < len(choices):
            return choices[value]
    return str(value)


class SettingsMenu(ListScreen):
    """Settings, first level: one row per game mode, then the device's own."""

    def __init__(self, app):
        items = [title for _mode, title in modes.MODES]
        items.append("Device")
        super().__init__("Settings", items)

    def choose(self, app, index):
        """Open that group's settings."""
        if index < len(modes.MODES):
            return ModeSettings(app, modes.MODES[index][0])
        return ModeSettings(app, DEVICE)


class ModeSettings(ListScreen):
    """One mode's settings: a row per setting, 'label  value' ('?' = not entered yet)."""

    def __init__(self, app, mode):
        self.mode = mode
        if mode == app.mode:
            app.ensure_game()  # a change to its settings is journalled in the game
        elif mode != DEVICE:
            app.release_game()  # one mode's code in RAM: the game folds again when needed
        self.module = app.group(mode)
        super().__init__("Set: " + mode, [])
        self.refresh(app)

    def refresh(self, app):
        """Build the rows from the current values."""
        items = []
        for spec in self.module.SETTINGS:
            value = app.setting(spec[0])
            text = value_name(self.module, spec[0], value)
            if len(text) > 4:
                text = text[:4]
            label = spec[4][: 14 - len(text)]
            items.append(label + " " * (15 - len(label) - len(text)) + text)
        self.items = items
        self.dirty = True

    def on_show(self, app):
        """Values may have changed while an edit screen was on top."""
        self.refresh(app)

    def choose(self, app, index):
        """Edit the chosen setting."""
        spec = self.module.SETTINGS[index]
        return EditValue(app, spec[0], spec[4])


class EditValue(Screen):
    """Edit one setting: UP/DOWN change it (long press: to the ends), OK saves, BACK leaves."""

    heading = "Setting"

    def __init__(self, app, key, label):
        super().__init__()
        self.key = key
        self.module = app.group(key.split(".")[0])
        spec = app.spec(key)
        if spec is None:
            raise ValueError("unknown setting %s" % key)
        self.low = spec[2]
        self.high = spec[3]
        value = app.setting(key)
        if value is None:
            value = spec[1] if spec[1] is not None else self.low
        self.value = value
        self.lines = wrap(label)[:2]
        self.text = ""
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
        elif button == LONG_UP:
            self.value = self.high
        elif button == LONG_DOWN:
            self.value = self.low
        elif button == OK:
            try:
                app.change_setting(self.key, self.value)
            except ValueError as exc:
                app.show_toast(str(exc.args[0])[:16])
                return None
            return BACK
        elif button == CANCEL:
            return BACK
        else:
            return None
        self.update()
        return None

    def draw(self, canvas):
        """Label, the value in big digits, the range."""
        draw.title(canvas, self.heading)
        y = 11
        for line in self.lines:
            canvas.text(line, 0, y, 1)
            y += 9
        if len(self.text) <= 5:
            draw.big(canvas, self.text, (128 - len(self.text) * 16) // 2, 31, 2)
        else:
            draw.center(canvas, self.text, 35)
        canvas.text("%d..%d" % (self.low, self.high), 0, 56, 1)
        draw.right(canvas, "OK:save", 56)


class AskValue(EditValue):
    """A game needs a value the rulebook does not give: ask the player, from their card."""

    heading = "From your card:"
