"""Settings: the rules' open points and the values players enter from their cards, a group
at a time (editing one value, and the question a game asks, are in dicepod.ui.ask). Pure."""

from dicepod.rules import modes
from dicepod.ui.ask import EditValue, value_name
from dicepod.ui.lists import ListScreen

DEVICE = "device"  # the device's own settings group (dicepod.session._DEVICE)


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
        if mode == app.session.mode:
            app.session.ensure_game()  # a change to its settings is journalled in the game
        elif mode != DEVICE:
            app.session.release_game()  # one mode's code in RAM: the game folds again when needed
        self.module = app.session.group(mode)
        super().__init__("Set: " + mode, [])
        self.refresh(app)

    def refresh(self, app):
        """Build the rows from the current values."""
        items = []
        for spec in self.module.SETTINGS:
            value = app.session.setting(spec[0])
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
