"""Settings: the rules' open points and the values players enter from their cards, a group
at a time (editing one value, and the question a game asks, are in dicepod.ui.ask). Pure."""

from micropython import const

from dicepod.rules import modes
from dicepod.ui import draw
from dicepod.ui.ask import EditValue, value_name
from dicepod.ui.lists import ListScreen
from dicepod.ui.screen import DOWN, UP, wrap

# Room under the title bar, in pixels; a row is 9 (one line of the 6×8 font).
_ROOM = const(54)
_ROW = const(9)
_COLUMNS = const(20)  # 6×8 characters a row, the scroll mark beside them

DEVICE = "device"  # the device's own settings group (dicepod.session._DEVICE)


class SettingsMenu(ListScreen):
    """Settings, first level: one row per game mode, then the device's own."""

    def __init__(self, app):
        super().__init__("Settings", [title for _mode, title in modes.MODES] + ["Device"])

    def choose(self, app, index):
        """Open that group's settings: in the next pass (app.later) when they need code read
        from the flash or the game in progress folded again."""
        mode = modes.MODES[index][0] if index < len(modes.MODES) else DEVICE
        if mode == DEVICE or app.ready(mode):
            return ModeSettings(app, mode)
        return app.later(ModeSettings, mode)


def flash_row(storage):
    """How full the flash is, as a row: "Flash 37% full" (the journal deletes its oldest
    games when it runs short; "Flash ?" when the storage cannot say)."""
    try:
        free, total = storage.free(True)
    except (OSError, TypeError, ValueError):
        return "Flash ?"
    if not total:
        return "Flash ?"
    return "Flash %d%% full" % ((total - free) * 100 // total)


def widest(module, spec, value):
    """The widest text of a setting's values (spec: its settings spec; value: the one shown):
    its row keeps room for it, so an edit in place (EditValue) never covers the label, nor
    does a new value move the rows below. (A function of its own: ModeSettings.row, called
    for every row on a redraw, keeps a frame small enough for the C stack, not the heap:
    tools/mpy_frames.py.)"""
    wide = max(len(value), len(str(spec[2])), len(str(spec[3])))
    for key, names in getattr(module, "VALUE_NAMES", ()):
        if key == spec[0]:
            for name in names:
                wide = max(wide, len(name))
    return wide


class ModeSettings(ListScreen):
    """One mode's settings: the whole label and its value ('?' = not entered yet) in the 6×8
    font; a label too long for one row with its value takes two."""

    def __init__(self, app, mode):
        self.mode = mode
        if mode == app.session.mode:
            app.session.ensure_game()  # a change to its settings is journalled in the game
        elif mode != DEVICE:
            app.session.release_game()  # (where one mode's code at a time: folded again later)
        self.module = app.session.group(mode)
        title = "Device"
        for name, mode_title in modes.MODES:
            if name == mode:
                title = mode_title
        super().__init__(title, [])
        self.app = app
        self.values = []
        self.value_y = 10
        self.refresh(app)

    def refresh(self, app):
        """Forget the rows: each is built from the current values when it is drawn or
        measured (row), so opening a mode of 57 settings, or coming back from an edit,
        builds the six on the screen, not all (a row is its spec, its label wrapped, its
        value's name; the flash row a walk of the file system)."""
        count = len(self.module.SETTINGS) + (self.mode == DEVICE)
        self.items = [None] * count
        self.values = [None] * count
        self.dirty = True

    def row(self, i):
        """Return row i's label lines, building it (and its value) if need be."""
        lines = self.items[i]
        if lines is None:
            specs = self.module.SETTINGS
            if i < len(specs):
                spec = specs[i]
                # the players' value, else the spec's default (session.setting without
                # finding the spec again: its key split, its module imported, its list read)
                value = self.app.session.values.get(spec[0], spec[1])
                value = value_name(self.module, spec[0], value)
                lines = wrap(spec[4], _COLUMNS)
                if len(lines[-1]) + 1 + widest(self.module, spec, value) > _COLUMNS:
                    lines.append("")  # the value on a line of its own
            else:  # the device's last row: how full its flash is
                lines = [flash_row(self.app.session.storage)]
                value = ""
            self.items[i] = lines
            self.values[i] = value
        return lines

    def on_show(self, app):
        """Values may have changed while an edit screen was on top."""
        self.refresh(app)

    def on_button(self, app, button):
        """Move (rows of one or two lines), choose or leave."""
        result = super().on_button(app, button)
        if button == UP or button == DOWN:
            if self.cursor < self.top:
                self.top = self.cursor
            while self.top < self.cursor and self.height(self.top, self.cursor + 1) > _ROOM:
                self.top += 1
        return result

    def height(self, first, end):
        """Pixels the rows first..end-1 take."""
        total = 0
        for i in range(first, end):
            total += len(self.row(i)) * _ROW
        return total

    def draw(self, canvas):
        """Title, then as many whole rows as fit from the top one."""
        draw.title(canvas, self.title)
        y = 10
        i = self.top
        while i < len(self.items) and y + len(self.row(i)) * _ROW <= 10 + _ROOM:
            lines = self.items[i]
            ink = 1
            if i == self.cursor:
                canvas.fill_rect(0, y, 125, len(lines) * _ROW, 1)
                ink = 0
            for line in lines:
                draw.small(canvas, line, 1, y + 1, ink)
                y += _ROW
            value = self.values[i]
            draw.small(canvas, value, 1 + (_COLUMNS - len(value)) * draw.SMALL, y - _ROW + 1, ink)
            if i == self.cursor:
                self.value_y = y - _ROW  # its value's line: an edit's field (EditValue)
            i += 1
        if self.top > 0:
            canvas.vline(127, 10, 4, 1)
        if i < len(self.items):
            canvas.vline(127, 60, 4, 1)

    def choose(self, app, index):
        """Edit the chosen setting (the flash row only informs)."""
        if index >= len(self.module.SETTINGS):
            return None
        spec = self.module.SETTINGS[index]
        return EditValue(app, spec[0], spec[4], over=self)
