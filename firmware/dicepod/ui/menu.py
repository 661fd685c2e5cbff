"""The main menu: every game mode, History, Settings. Pure. Loaded only while it is the top
screen: under a game (or any other screen) the app keeps a bare Screen in its place and this
module out of RAM (dicepod.app.App.main_menu). A game's own menu is dicepod.ui.gamemenu."""

from micropython import const

from dicepod.rules import modes
from dicepod.ui import draw
from dicepod.ui.lists import Confirm, ListScreen
from dicepod.ui.screen import DOWN, UP, NewGame

# Main menu rows after the game modes.
_HISTORY = const("History")
_SETTINGS = const("Settings")
# How long the cursor rests on History's row before the journal's scan is made ahead (ms): not
# while the player scrolls past it (each scan ahead, given up, leaves its garbage).
_REST_MS = const(200)


class MainMenu(ListScreen):
    """The main menu: every game mode, History, Settings. The current game resumes."""

    def __init__(self, app, cursor=-1):
        items = []  # (a loop: a comprehension is a function of its own in RAM)
        for _mode, title in modes.MODES:
            items.append(title)
        items.append(_HISTORY)
        items.append(_SETTINGS)
        super().__init__("dicepod", items)
        for i in range(len(modes.MODES)):
            if modes.MODES[i][0] == app.session.mode:
                self.cursor = i  # start on the game in progress
        if 0 <= cursor < len(items):
            self.cursor = cursor  # or back on the row the player left it from
        self.top = draw.scroll_top(self.cursor, 0)
        self.battery = ""
        self.rest = -1  # ms the cursor has rested on History's row (-1: elsewhere, or asked)
        self.moved = 0  # passes until the row's mode loads ahead (0: asked, or no need: tick)

    def on_show(self, app):
        """Name the game in progress in the title bar, and the battery level if fitted."""
        self.title = "dicepod: " + app.session.mode if app.session.mode else "dicepod"
        # the battery's charge in percent, when one is fitted (the board's power driver)
        level = None
        read = getattr(app.power, "battery", None)
        if read is not None:
            try:
                level = read()
            except OSError:
                pass
        self.battery = "" if level is None else "%d%%" % level
        self.dirty = True
        self.ahead(app)

    def on_button(self, app, button):
        """Move (the row's mode loading ahead: ahead), choose or leave."""
        result = super().on_button(app, button)
        if button == UP or button == DOWN:
            self.ahead(app)
        return result

    def ahead(self, app, now=False):
        """With no game in progress (the first run), OK on a mode's row opens its game at once:
        its rules and screens load in the loop's idle passes while the cursor rests there (a
        roomy heap: dicepod.ram_ahead.cursor), so that it opens without their import (Free
        roll's first game: 86.5 -> 39.5 ms on the emulated Pico). With a game in progress, another
        mode asks first, and its code loads while the question is read (dicepod.app). Once
        the cursor rests on History's row, the journal's scan is made ahead (tick). now: asked
        in an idle pass (the app's first), so the load is asked at once, not in the next."""
        ahead = app.ahead
        if ahead:
            cursor = self.cursor
            if self.items[cursor] == _HISTORY:
                self.rest = 0  # (the scan asked for once the cursor rests there: tick)
            elif self.rest != -1:
                self.rest = -1
                ahead.history(None)
            if app.session.mode is None:
                self.moved = 1 if now else 2  # (asked in the next pass, not a press's: tick)
                if now:
                    self.tick(app, 0)

    def tick(self, app, dt_ms):
        """The pass after a move: the row's mode loads ahead (ahead). The cursor rested
        _REST_MS on History's row: its journal scan is made ahead (ram_ahead.history)."""
        moved = self.moved
        if moved:
            # The load ahead of the row's mode is asked in the pass after the move, not in
            # the move's: asking gives up the load of the row before (~4 ms on the emulated
            # Pico, its modules found and dropped), which delayed every DOWN's frame. (Only
            # while this menu is on top: a game opened meanwhile is never asked about.)
            moved -= 1
            self.moved = moved
            ahead = app.ahead
            if not moved and ahead and app.session.mode is None:
                cursor = self.cursor
                mode = modes.MODES[cursor][0] if cursor < len(modes.MODES) else None
                ahead.cursor(mode, None, (), 2)
        rest = self.rest
        if rest >= 0:
            rest += dt_ms
            if rest >= _REST_MS:
                rest = -2  # (asked: the cursor's next move gives it up)
                app.ahead.history(app.session.journal)  # pyright: ignore (set: ahead())
            self.rest = rest
        return None

    def draw(self, canvas):
        """The list, with the battery level at the right of the title bar."""
        super().draw(canvas)
        if self.battery:
            canvas.fill_rect(127 - len(self.battery) * 8, 0, len(self.battery) * 8 + 1, 9, 1)
            draw.right(canvas, self.battery, 1, 0)

    def choose(self, app, index):
        """Open a mode (resuming its game), History or Settings."""
        if index < len(modes.MODES):
            mode, title = modes.MODES[index]
            if app.session.mode == mode:
                return app.game_screen()
            if app.session.mode is None:
                return app.new_game(mode)
            return Confirm(
                "New game?",
                "End the %s game and start %s?" % (app.session.mode, title),
                NewGame(mode),
            )
        if self.items[index] == _HISTORY:
            ahead = app.ahead
            if not (ahead and ahead.scanned(app.session.journal)):
                app.busy()  # History reads the journal (unless scanned ahead); its code may load
            from dicepod.ui.history import History

            # No game screen is open under the main menu: on a small heap, drop the game and
            # its code while the history is read (the journal keeps the game; opening it folds
            # it again). A roomy heap (where the session keeps the game's spare copy, back)
            # keeps them: the way back to the game is then a frame, not a fold.
            if app.session.back is False:
                app.session.release_game()
            return History(app)
        import sys  # (here: no name more in the module's globals)

        if "dicepod.ui.settings" not in sys.modules:
            app.busy()  # the Settings list's code loads (unless loaded ahead: ram_ahead)
        from dicepod.ui.settings import SettingsMenu

        return SettingsMenu(app)
