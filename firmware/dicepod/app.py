"""The app shell: buttons in, screens out, the journal, settings, USB and power.

Shell code: it owns the board (docs/ARCHITECTURE.md) and the screen stack; the game logic is in
dicepod.rules, the screens in dicepod.ui, the journal format in dicepod.journal.

- start(): recover the journal (a torn tail is cut), load the settings (a corrupt file falls
  back to the defaults with a message), fold the current game's effective events and resume it
  on the screen it was played on.
- tick(dt_ms): one non-blocking step: buttons -> the top screen's on_button -> transitions;
  the top screen's tick; redraw only when something changed, then display.show(); power; USB.
- Every user-visible change is an event: play(event) folds it into the game (an illegal one
  raises ValueError and nothing is written), appends it to the journal and hands the line to the
  USB link. undo() appends ("undo", ()) and folds the game again from the journal.
- A crash (any exception out of a step) writes ("crash", (ExceptionName, file, line)) to the
  journal as an event of the current game (the app's fold skips it; undo steps over it), shows
  the traceback on the screen and restarts the app from the journal. Three crashes within ten
  seconds start it without resuming the game (no crash loop).
"""

import gc
import json
import sys

from micropython import const

from dicepod import journal as journal_module
from dicepod.rules import modes
from dicepod.settings import MissingValue, Settings, spec_index
from dicepod.ui import screen as ui

# The settings group of the device itself (dicepod.device.SETTINGS).
DEVICE = "device"
# Events the app writes for itself; a game's fold skips them.
APP_EVENTS = ("crash",)
# Crash-loop guard: this many crashes inside this window start the app without the game.
_CRASH_LIMIT = const(3)
_CRASH_WINDOW_MS = const(10000)
# Longest traceback text kept for the screen.
_TRACE_CHARS = const(600)
# Bytes allocated between garbage collections (MicroPython's gc.threshold; see start()).
_GC_EVERY = const(4096)
# Main-loop period on the Pico (ms): ~50 frames a second at most; buttons are polled each tick.
_PERIOD_MS = const(20)


# Loaded for good: the screen base, drawing, the list screens and the mode list. Every other
# module under dicepod.rules and dicepod.ui belongs to a game mode (or a passing screen, the
# main menu included) and is unloaded when not in use, so only one mode's code is in RAM.
_KEEP = const(
    (
        "dicepod.rules.modes",
        "dicepod.ui.screen",
        "dicepod.ui.draw",
        "dicepod.ui.lists",
    )
)

# Passed through on the way (the menus, settings, history, messages, the device settings):
# never kept with a mode.
_PASSING = const(
    (
        "dicepod.ui.menu",
        "dicepod.ui.gamemenu",
        "dicepod.ui.settings",
        "dicepod.ui.ask",
        "dicepod.ui.history",
        "dicepod.ui.message",
        "dicepod.device",
    )
)


def _unloadable(name):
    """True for a module that belongs to a mode or is passed through (_PASSING)."""
    if name in _KEEP:
        return False
    if name in _PASSING:
        return True
    return name.startswith("dicepod.rules.") or name.startswith("dicepod.ui.")


def _forget(name):
    """Drop a module from sys.modules and from its package (its RAM goes when unused)."""
    sys.modules.pop(name, None)
    cut = name.rfind(".")
    parent = sys.modules.get(name[:cut])
    if parent is not None and hasattr(parent, name[cut + 1 :]):
        try:
            delattr(parent, name[cut + 1 :])
        except (AttributeError, TypeError):
            pass


def encode_settings(values):
    """Encode a {key: int} dict as one JSON line with sorted keys (same bytes everywhere)."""
    parts = []
    for key in sorted(values):
        if values[key] is not None:
            parts.append("%s:%s" % (json.dumps(key), json.dumps(values[key])))
    return ("{" + ",".join(parts) + "}\n").encode()


class App:
    """The dicepod application on a board (see docs/ARCHITECTURE.md for the board's shape)."""

    def __init__(self, board):
        self.board = board
        self.display = board.display
        self.storage = board.storage
        self.randbelow = board.randbelow
        self.usb = getattr(board, "usb", None)
        self.power = getattr(board, "power", None)
        self.journal = journal_module.Journal(board.storage)
        # The players' settings, {key: int}, as loaded from storage. They are checked against
        # a mode's SETTINGS when that mode is loaded (only one mode's modules are in RAM).
        self.values = {}
        self.mode_modules = ()  # modules the current game's mode loaded
        self.ms = 0  # milliseconds since start (the journal's clock)
        # Screens. The main menu is at the bottom when it is the top; under other screens a
        # bare Screen holds its place (main_menu()).
        self.stack = [ui.Screen()]
        self.menu_cursor = -1  # the main menu's row when it was last covered (-1: the game's)
        self.mode = None  # the current game's mode name, or None
        self.game = None  # its rules Game, folded from the journal
        self.moves = 0  # effective events of the current game after its new_game and sets
        self.last_kind = None  # kind of the current game's last effective game event
        self.last_event = None  # and the event itself (screens name what just happened)
        self.trailing = 0  # app events (crash records) after the last game event
        self.messages = []  # lines to show once the app has started
        self.toast = None  # a short message drawn over the screen until the next button
        self.crashes = []  # ms of recent crashes (the crash-loop guard)
        self.safe = False  # started without the game after a crash loop
        self.dirty = True

    # -- start-up --------------------------------------------------------------------------

    def start(self, show=True):
        """Recover the journal, load the settings, resume the game in progress, draw (unless
        show is false: the crash handler draws its own screen first)."""
        if hasattr(gc, "threshold"):  # MicroPython
            # Collect after every few KB allocated, not only when the heap is full: garbage
            # goes while it is low in the heap, so long-lived objects fill the low holes and a
            # mode's code finds whole blocks when it loads (fragmentation, not size, used to
            # decide the smallest heap).
            gc.threshold(_GC_EVERY)
        # A torn last line (a power cut while writing) is cut silently: the game resumes at
        # the last complete event, as if the cut came a moment earlier.
        self.journal.recover()
        self.load_settings()
        self.mode_modules = ()
        self.unload_mode()
        if not self.safe:
            self.refold()
        else:
            self.mode = None
            self.game = None
        del self.stack[:]
        self.stack.append(ui.Screen())
        if self.game is not None:
            self.stack.append(self.game_screen())
        if self.messages:
            from dicepod.ui.message import Message

            self.stack.append(Message("Notice", self.messages))
            self.messages = []
        self.main_menu()
        self.stack[-1].on_show(self)
        self.dirty = True
        if show:
            self.redraw()

    def load_settings(self):
        """Load the settings file; a corrupt one falls back to the defaults with a message."""
        self.values = {}
        data = None
        try:
            data = self.storage.load_settings()
        except OSError:
            self.messages.append("Settings unreadable: defaults")
            return
        if data is None:
            return
        try:
            values = Settings.decode(data)
        except ValueError:
            self.messages.append("Settings corrupt: defaults")
            return
        for key in values:
            if isinstance(key, str) and isinstance(values[key], int):
                self.values[key] = values[key]

    def save_settings(self):
        """Write the settings (temp file + rename in the storage driver)."""
        self.storage.save_settings(encode_settings(self.values))

    def mode_settings(self, module):
        """Return a Settings for a mode module with the players' values; a stored value
        outside its range is dropped (default again) with a message."""
        settings = Settings(module.SETTINGS)
        for spec in module.SETTINGS:
            key = spec[0]
            if key in self.values:
                try:
                    settings.set(key, self.values[key])
                except ValueError:
                    del self.values[key]
                    self.show_toast("Reset %s" % key[-14:])
        return settings

    def setting(self, key):
        """Return the players' value for key (None when not entered and no default)."""
        if key in self.values:
            return self.values[key]
        spec = self.spec(key)
        return spec[1] if spec is not None else None

    def group(self, name):
        """Return the module whose SETTINGS (and VALUE_NAMES) hold the settings group name:
        a game mode's rules, or "device" (dicepod.device: display, brightness, power)."""
        if name == DEVICE:
            return __import__("dicepod.device", None, None, ("SETTINGS",))
        return modes.module(name)

    def spec(self, key):
        """Return the (key, default, low, high, label) spec of a setting, or None."""
        try:
            module = self.group(key.split(".")[0])
        except ValueError:
            return None
        specs = module.SETTINGS
        index = spec_index(specs, key)
        return specs[index] if index >= 0 else None

    # -- which modules are in RAM --------------------------------------------------------------

    def loaded(self):
        """Return the names of the loaded modules that belong to a mode."""
        return tuple([name for name in sys.modules if _unloadable(name)])

    def mode_loaded(self):
        """Return the loaded modules of the current mode (passing screens' left out)."""
        return tuple([name for name in self.loaded() if name not in _PASSING])

    def unload_mode(self):
        """Unload every mode module the current game does not use."""
        for name in self.loaded():
            if name not in self.mode_modules:
                _forget(name)
        gc.collect()

    # -- the current game ------------------------------------------------------------------

    def refold(self):
        """Fold the current game's effective events into a fresh Game.

        A save the rules reject (say, written by another firmware version) keeps the game as
        it was at the last good event, with a message; it never crashes the app.
        """
        self.mode = None
        self.game = None
        self.moves = 0
        self.last_kind = None
        self.last_event = None
        self.trailing = 0
        module = None
        for event in self.journal.game_events():
            kind = event[0]
            if kind == "new_game":
                try:
                    screens = "dicepod.ui." + event[1][0]
                    fresh = screens not in sys.modules
                    module = modes.module(event[1][0])
                    # its screens' code too, before the game's objects (see new_game)
                    __import__(screens, None, None, ("open",))
                    if fresh:
                        gc.collect()  # the loader's garbage goes before the game's objects
                except (ValueError, IndexError, ImportError):
                    self.messages.append("Saved game: unknown mode")
                    return
                self.mode = event[1][0]
                self.game = module.Game(Settings(module.SETTINGS))
            if kind in APP_EVENTS:
                self.trailing += 1
                continue
            if self.game is None:
                continue
            try:
                self.game.apply(event)
            except ValueError as exc:
                self.messages.append("Saved game stops at: %s" % exc.args[0])
                return
            self.last_kind = kind
            self.last_event = event
            self.trailing = 0
            if kind != "new_game" and kind != "set":
                self.moves += 1

    def game_screen(self):
        """Return a new screen for the current game's mode (folding the game again first if
        release_game dropped it); its modules stay loaded."""
        self.ensure_game()
        module = __import__("dicepod.ui." + str(self.mode), None, None, ("open",))
        screen = module.open(self)
        self.mode_modules = self.mode_loaded()
        return screen

    def release_game(self):
        """Drop the current game and its modules from RAM while the player looks at another
        mode's settings (which load that mode's rules): only one mode's code in RAM. The
        journal keeps the game; ensure_game folds it again."""
        if self.game is not None:
            self.game = None
            self.mode_modules = ()
            self.unload_mode()

    def ensure_game(self):
        """Fold the current game again if release_game dropped it."""
        if self.game is None and self.mode is not None:
            self.refold()
            self.mode_modules = self.mode_loaded()

    def new_game(self, mode):
        """Start a new game of mode: journal new_game and the mode's settings; return its
        screen."""
        if mode != self.mode:
            # only one mode's modules in RAM: drop the old game and its screens first
            self.game = None
            self.mode = None
            self.mode_modules = ()
            del self.stack[1:]
            self.unload_mode()
        module = modes.module(mode)
        gc.collect()
        # The screens' code next, before the game's small objects: one big load after another
        # leaves the heap less fragmented (a source import needs its largest function whole).
        __import__("dicepod.ui." + mode, None, None, ("open",))
        gc.collect()  # the loader's garbage goes before the game's objects fill the holes
        settings = self.mode_settings(module)
        self.record(("new_game", (mode,)))
        self.mode = mode
        game = module.Game(Settings(module.SETTINGS))
        self.game = game
        game.apply(("new_game", (mode,)))
        slot = 0
        for spec in module.SETTINGS:
            value = settings.slots[slot]
            slot += 1
            if value is not None:
                event = ("set", (spec[0], value))
                game.apply(event)
                self.record(event)
        self.moves = 0
        self.trailing = 0
        self.last_kind = "new_game"
        self.last_event = None
        return self.game_screen()

    def record(self, event):
        """Append an event to the journal and hand its line to the USB link."""
        line = self.journal.append(self.ms, event)
        if self.usb is not None:
            self.usb.on_entry(line)
        return line

    def play(self, event):
        """Fold a user-visible event into the game and journal it. An illegal event raises
        ValueError and nothing is written."""
        if self.game is None:
            raise ValueError("no game")
        try:
            self.game.apply(event)  # no local reference: refold's new game replaces it in RAM
        except Exception:
            # The event is not journalled; a fold that stopped half-way (say, at a value the
            # player has not entered) must not leave the state ahead of the journal.
            self.refold()
            raise
        self.record(event)
        kind = event[0]
        self.last_kind = kind
        self.last_event = event
        self.trailing = 0
        if kind != "new_game" and kind != "set":
            self.moves += 1
        self.dirty = True
        top = self.stack[-1]
        top.on_event(self)

    def can_undo(self):
        """True when the current game has an event to undo."""
        return self.game is not None and self.moves > 0

    def undo(self):
        """Undo the last move of the current game (append ("undo", ()) and fold again)."""
        if not self.can_undo():
            self.show_toast("Nothing to undo")
            return False
        for _ in range(self.trailing):
            self.record(("undo", ()))  # step over crash records
        self.record(("undo", ()))
        self.refold()
        self.show_toast("Undone")
        self.stack[-1].on_event(self)
        return True

    def change_setting(self, key, value):
        """Set a setting (ValueError if out of range), save it, and journal it when the
        current game uses it."""
        spec = self.spec(key)
        if spec is None:
            raise ValueError("unknown setting")
        if not spec[2] <= value <= spec[3]:
            raise ValueError("%d..%d" % (spec[2], spec[3]))
        self.values[key] = value
        self.save_settings()
        if key.startswith(DEVICE + ".") and self.power is not None:
            configure = getattr(self.power, "configure", None)
            if configure is not None:
                configure(self.values)
        if self.game is not None and self.mode is not None and key.startswith(self.mode + "."):
            self.play(("set", (key, value)))

    # -- the loop ----------------------------------------------------------------------------

    def battery(self):
        """The battery charge in percent, or None (no battery fitted, or no power driver)."""
        read = getattr(self.power, "battery", None)
        if read is None:
            return None
        try:
            return read()
        except OSError:
            return None

    def show_toast(self, text):
        """Show a one-line message over the screen until the next button."""
        self.toast = text
        self.dirty = True

    def tick(self, dt_ms):
        """One step: buttons, screens, redraw, power, USB. Never raises (crashes restart)."""
        try:
            self.step(dt_ms)
        except Exception as exc:  # the one top-level handler: journal, screen, restart
            self.crash(exc)

    def step(self, dt_ms):
        """One step of tick, without the crash handler."""
        self.ms += dt_ms
        pressed = self.board.buttons.update(dt_ms)
        if self.power is not None and self.power.update(dt_ms, pressed != 0):
            pressed = 0  # the press that woke the display only wakes it
        if pressed:
            bit = 1
            while bit <= 128:
                if pressed & bit:
                    self.button(bit)
                bit <<= 1
        self.transition(self.stack[-1].tick(self, dt_ms))
        self.redraw()
        if self.usb is not None:
            self.usb.tick(dt_ms)

    def button(self, code):
        """Send one button to the top screen (long BACK in a game = undo)."""
        if self.toast is not None:
            self.toast = None
            self.dirty = True
        top = self.stack[-1]
        if code == ui.LONG_BACK and top.game_screen:
            self.undo()
            return
        try:
            result = top.on_button(self, code)
        except MissingValue as exc:
            result = self.ask(exc)
        except ValueError as exc:  # an illegal move: nothing was written; say why
            self.show_toast(str(exc.args[0] if exc.args else "not allowed")[:16])
            top.dirty = True
            return
        self.transition(result)

    def ask(self, exc):
        """Return the screen asking the player for a missing value."""
        gc.collect()  # the failed move's garbage goes before the question's code is loaded
        from dicepod.ui.ask import AskValue

        return AskValue(self, exc.args[0], exc.args[1])

    def transition(self, result):
        """Apply a screen's transition (see dicepod.ui.screen)."""
        if result is None:
            return
        if result == ui.BACK:
            if len(self.stack) > 1:
                self.stack.pop()
        elif result == ui.HOME:
            del self.stack[1:]
            self.unload_mode()
        elif isinstance(result, ui.Replace):
            if len(self.stack) > 1:
                self.stack.pop()
            self.stack.append(result.screen)
        elif isinstance(result, ui.Reset):
            del self.stack[1:]
            if result.screen is not None:
                self.stack.append(result.screen)
            else:
                self.unload_mode()
        else:
            self.stack.append(result)
        if len(self.stack) <= 2 and result == ui.BACK:
            self.unload_mode()  # back at the game (or the menu): passing screens' code goes
        self.main_menu()
        self.stack[-1].on_show(self)
        self.dirty = True

    def main_menu(self):
        """Keep the main menu's code in RAM only while it is the top screen: at the bottom of
        a longer stack a bare Screen holds its place (the row it was on is kept), and it is
        built again when the stack is back down to it."""
        bottom = self.stack[0]
        placeholder = type(bottom) is ui.Screen
        if len(self.stack) == 1:
            if placeholder:
                from dicepod.ui.menu import MainMenu

                self.stack[0] = MainMenu(self, self.menu_cursor)
        elif not placeholder:
            self.menu_cursor = getattr(bottom, "cursor", -1)
            self.stack[0] = ui.Screen()
            _forget("dicepod.ui.menu")

    def redraw(self):
        """Draw the top screen if anything changed, then flush the display."""
        top = self.stack[-1]
        if not (self.dirty or top.dirty):
            return
        canvas = self.display
        canvas.fill(0)
        try:
            top.draw(canvas)
        except MissingValue as exc:
            self.transition(self.ask(exc))
            canvas.fill(0)
            top = self.stack[-1]
            top.draw(canvas)
        if self.toast is not None:
            canvas.fill_rect(0, 52, 128, 12, 0)
            canvas.rect(0, 52, 128, 12, 1)
            canvas.text(self.toast, 2, 54, 1)
        top.dirty = False
        self.dirty = False
        self.display.show()

    # -- crashes -----------------------------------------------------------------------------

    def crash(self, exc):
        """Journal the crash, restart from the journal, and show the traceback. Never raises:
        short of memory, it drops what it cannot afford (the text, then the crash screen)."""
        # The failed step's objects are garbage now; free them before anything else.
        del self.stack[:]
        self.game = None
        gc.collect()
        try:
            from dicepod import crash as crash_module  # loaded only here, dropped after

            text = crash_module.trace_text(exc)
            event = crash_module.crash_event(exc, text)
        except MemoryError:
            text = type(exc).__name__
            event = ("crash", (text[:24], "unknown", 0))
        _forget("dicepod.crash")
        try:
            self.record(event)
            self.trailing += 1
        except Exception:  # a journal that cannot be written must not stop the restart
            pass
        now = self.ms
        self.crashes = [t for t in self.crashes if now - t < _CRASH_WINDOW_MS]
        self.crashes.append(now)
        self.safe = len(self.crashes) >= _CRASH_LIMIT
        self.toast = None
        try:
            self.start(False)
        except Exception:  # start itself failing: a bare menu that only shows the crash
            self.safe = True
            self.mode = None
            self.game = None
            del self.stack[:]
            gc.collect()
            self.stack.append(ui.Screen())
            self.main_menu()
        try:
            from dicepod.ui.message import CrashScreen

            self.stack.append(CrashScreen(text[-_TRACE_CHARS:], self.safe))
        except MemoryError:
            pass
        self.dirty = True
        try:
            self.redraw()
        except Exception:
            pass


def run(board, ticks=None):
    """The Pico's main loop: start, then tick with the real clock (forever, or ticks times)."""
    app = App(board)
    app.start()
    last = board.ticks_ms()
    while ticks is None or ticks > 0:
        now = board.ticks_ms()
        try:
            app.tick(board.ticks_diff(now, last))
        except Exception:  # the crash handler itself failed (out of memory): a fresh app
            app = None
            gc.collect()
            app = App(board)
            app.start()
        last = now
        board.sleep_ms(_PERIOD_MS)
        if ticks is not None:
            ticks -= 1
    return app
