"""The app: the screen stack, the loop (buttons in, screens out), redraw, toasts and crashes.

Shell code: it owns the board (docs/ARCHITECTURE.md) and the screen stack. Beside it: the game
session (dicepod.session: journal, settings, the current game, undo), the RAM policy
(dicepod.ram: which modules are kept, loaded, dropped); the game logic is in dicepod.rules, the
screens in dicepod.ui, the journal format in dicepod.journal.

- start(): the session recovers the journal (a torn tail is cut), loads the settings (a
  corrupt file falls back to the defaults with a message) and folds the current game; the app
  resumes it on the screen it was played on.
- tick(dt_ms): one non-blocking step: buttons -> the top screen's on_button -> transitions;
  the top screen's tick; the beeper's tune (its next note); redraw only when something
  changed, then display.show(); power; USB.
- Screens reach the game through app.session (play, settings; see dicepod.session) and the
  shell through app.show_toast, app.busy, app.undo, app.game_screen and
  app.new_game.
- busy(text): before work that takes longer than a frame (a mode's or a screen's code
  loading, a game folded again for an undo), the screen shown now gets a lit band at its foot
  saying so, sent at once: the press is answered while the work runs.
- A crash (any exception out of a step) writes ("crash", (ExceptionName, file, line)) to the
  journal as an event of the current game (the fold skips it; undo steps over it), shows
  the traceback on the screen and restarts the app from the journal. Three crashes within ten
  seconds start it without resuming the game (no crash loop).
"""

import gc

from micropython import const

from dicepod import ram
from dicepod.session import Session
from dicepod.settings import MissingValue
from dicepod.ui import draw
from dicepod.ui import screen as ui

# Crash-loop guard: this many crashes inside this window start the app without the game.
_CRASH_LIMIT = const(3)
_CRASH_WINDOW_MS = const(10000)
# Longest traceback text kept for the screen.
_TRACE_CHARS = const(600)
# Bytes allocated between garbage collections (MicroPython's gc.threshold; see start()).
_GC_EVERY = const(4096)
# ... or every three quarters of the free heap when at least this much is free at start.
_GC_QUARTERS = const(3)
_GC_ROOMY = const(131072)
# Bytes allocated after which the idle pass after a frame collects (tick()).
_TIDY_BYTES = const(4096)
# ... where this much was free at start (a Pico's ~167 KB); after each frame under it.
_TIDY_ROOMY = const(153600)
# ... or after this many frames since the last collection: a press asks for ~4-6 KB of heap
# (tools/bench_pico.py's alloc column), much of it given back at once (a list or a string
# grown in place), which gc.mem_alloc() does not count but the threshold does: frames that
# each added under _TIDY_BYTES to it reached the threshold in a press (a collection there).
_TIDY_FRAMES = const(4)
# Main-loop period on the Pico (ms): ~50 frames a second at most; buttons are polled each tick.
_PERIOD_MS = const(20)


class App:
    """The dicepod application on a board (see docs/ARCHITECTURE.md for the board's shape)."""

    def __init__(self, board):
        self.board = board
        self.display = board.display
        self.randbelow = board.randbelow
        self.power = getattr(board, "power", None)
        self.beeper = getattr(board, "beeper", None)  # the session starts its tunes
        self.session = Session(board, self.show_toast, self.changed)
        # Screens. The main menu is at the bottom when it is the top; under other screens a
        # bare Screen holds its place (main_menu()).
        self.stack = [ui.Screen()]
        self.menu_cursor = -1  # the main menu's row when it was last covered (-1: the game's)
        self.toast = None  # a short message drawn over the screen until the next button
        self.crashes = []  # ms of recent crashes (the crash-loop guard)
        self.safe = False  # started without the game after a crash loop
        self.dirty = True
        # The idle collection after a frame (tick()): > 0 armed (a frame was shown), < 0 not
        # until the next frame, 0 never (not MicroPython, or a heap under _GC_ROOMY at start)
        self.tidy = 0
        self.frames = 0  # frames since the last idle collection (tick())
        # The loads ahead (dicepod.ram_ahead) on a roomy heap: False until the first idle pass
        # imports it (App.start), None on a small heap (never imported)
        self.ahead = None

    # -- start-up --------------------------------------------------------------------------

    def start(self, show=True):
        """Start the session, resume the game in progress on its screen, draw (unless show
        is false: the crash handler draws its own screen first)."""
        free = 0  # (0: not MicroPython, or a small heap: no change after the start)
        if hasattr(gc, "threshold"):  # MicroPython
            # Collect after every few KB allocated, not only when the heap is full: garbage
            # goes while it is low in the heap, so long-lived objects fill the low holes and a
            # mode's code finds whole blocks when it loads (fragmentation, not size, used to
            # decide the smallest heap).
            # With room to spare (a Pico's whole heap, ~190 KB free here) a collection every
            # three quarters of the free heap instead: each marks the whole live heap (~17-20
            # ms on the emulated Pico), and every 4 KB they took 30 % of a press's cycles. The
            # garbage of ordinary presses goes in the idle pass after a frame (tick(): every 4
            # frames at most), so these fall only in presses that allocate a lot (a mode's code
            # loading, an undo's fold). At a quarter they still fell in ordinary presses, one
            # in a few dozen (p99 47-53 ms in four sessions, 40-50 at three quarters:
            # tools/bench_pico.py --quick); at every twelfth, two or three in each undo.
            # While the session starts (recovery and the fold decode many lines, short-lived
            # garbage) the same: every twelfth made them a third of the boot, every half one
            # more than this in a long game's (18 ms of the 1.0 s with a full flash and a game
            # of 300 events). Not the whole free heap: the garbage goes before it fills, low in
            # the heap, so the code and the game loaded next find whole blocks (see above).
            # The free heap after a collection: the board's and the imports' garbage counted
            # as free, or a Pico's heap could pass for a small one (the firmware's main.py
            # collects nowhere before this).
            gc.collect()
            free = gc.mem_free()
            if free < _GC_ROOMY:
                free = 0
            ram.keep_passing(free > 0)  # room for the menus' and questions' code for good,
            self.ahead = False if free else None  # and for code loaded ahead
            # and for the game before its last move (Session.back: an undo without a fold)
            self.session.back = None if free else False
            gc.threshold(free // 4 * _GC_QUARTERS if free else _GC_EVERY)
        session = self.session
        session.start(not self.safe)
        if free:
            # (a small heap collects every 4 KB already: no idle collections on top)
            self.tidy = -1
        del self.stack[:]
        self.stack.append(ui.Screen())
        if session.game is not None:
            self.stack.append(self.game_screen())
        if session.messages:
            from dicepod.ui.message import Message

            self.stack.append(Message("Notice", session.messages))
            session.messages = []
        self.main_menu()
        self.stack[-1].on_show(self)
        self.dirty = True
        if show:
            self.redraw()

    # -- the game's screens ----------------------------------------------------------------

    def game_screen(self):
        """Return a new screen for the current game's mode (folding the game again first if
        release_game dropped it); its modules stay loaded."""
        session = self.session
        if session.game is None:  # folded again, its code loaded first
            self.busy()
        session.ensure_game()
        module = __import__("dicepod.ui." + str(session.mode), None, None, ("open",))
        screen = module.open(self)
        session.kept = ram.mode_loaded()
        return screen

    def new_game(self, mode):
        """Start a new game of mode (see Session.new_game); return its screen."""
        if mode != self.session.mode:
            del self.stack[1:]  # the old game's screens go before its modules are dropped
            pending = ram.pending
            if not pending or pending[0] != mode or pending[1] < 2:
                # the new mode's code loads (unless its rules and screens were loaded ahead,
                # dicepod.ram_ahead: then the band would only delay the game's frame, ~7 ms
                # of I2C on the emulated Pico)
                self.busy()
        self.session.new_game(mode)
        return self.game_screen()

    def undo(self):
        """Undo the last move (Session.undo: the game is folded again, which takes a while on
        a long game: busy() first)."""
        if self.session.moves > 0:
            self.busy("Undoing...")
        return self.session.undo()

    def busy(self, text="Loading..."):
        """Answer a press whose work takes a while: over the screen shown now, a lit band at
        its foot saying text (8×8 letters: no font to load), sent at once; the next redraw
        draws the screen whole."""
        canvas = self.display
        canvas.fill_rect(0, 55, 128, 9, 1)
        draw.center(canvas, text, 56, 0)
        canvas.show()
        self.dirty = True

    def changed(self):
        """The session played an event: redraw, and tell the top screen."""
        self.dirty = True
        self.stack[-1].on_event(self)

    # -- the loop ----------------------------------------------------------------------------

    def show_toast(self, text):
        """Show a one-line message over the screen until the next button."""
        self.toast = text
        self.dirty = True

    def tick(self, dt_ms):
        """One step: buttons, screens, redraw, power, USB. Never raises (crashes restart). A
        move played in it is journaled after its frame is sent (Session.flush; crash() clears
        the hold). (One function, the handler around the step: a call less a tick.)"""
        try:
            session = self.session
            session.ms += dt_ms
            session.hold = True
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
            beeper = self.beeper
            if beeper is not None:
                beeper.update(dt_ms)  # the next note of a tune, or silence: never waits
            if self.redraw():
                pressed = 1
            session.hold = False
            # (flush only with moves pending: its frame comes from the heap at every call)
            if session.pending and not session.flush():  # no room: the game as saved
                self.transition(ui.Reset(self.game_screen() if session.game is not None else None))
            self.redraw()  # that, or a toast from the journal (old games deleted for room)
            usb = session.usb
            if usb is not None:
                usb.tick(dt_ms)
            # The garbage of the last presses goes in a pass with nothing to do and no button
            # held (a collection marks the whole live heap: ~17 ms on the emulated Pico), so
            # that the threshold's collections seldom fall in the pass that answers a press.
            # Looked at once after each frame (an idle screen's passes do not look again and
            # again), and only once _TIDY_BYTES were allocated since the last collection: a
            # collection leaves MicroPython's search for free blocks at the heap's start, so
            # each call of a function whose locals do not fit its C stack (most here) searched
            # the small holes low in the heap for its frame, 22 % of a list's DOWN after a
            # collection; later presses find room where the last one left off. gc.mem_alloc()
            # walks the heap's block table, 8.6 ms on the emulated Pico, in the idle pass.
            # tidy holds 1 + gc.mem_alloc() just after the last collection: > 0 armed (the next
            # idle pass looks), negated until the next frame, 0 never (not MicroPython, or a
            # small heap: it collects every 4 KB already).
            tidy = self.tidy
            if pressed:
                if tidy < 0:
                    self.tidy = -tidy  # armed
                    self.frames += 1
            elif tidy > 0 and not self.board.buttons.state:
                alloc = getattr(gc, "mem_alloc", None)
                if alloc is None or gc.threshold() < _TIDY_ROOMY // 4 * _GC_QUARTERS:
                    # each frame on CPython, or where under _TIDY_ROOMY was free at start: a
                    # collection each frame fragments less (a 64-bit unix port's 190 KB runs
                    # out of whole blocks without it)
                    gc.collect()
                    tidy = 1
                elif self.frames >= _TIDY_FRAMES or alloc() >= tidy + _TIDY_BYTES:
                    gc.collect()
                    tidy = 1 + alloc()
                    self.frames = 0
                self.tidy = -tidy  # disarmed until the next frame
            elif self.ahead is not None:  # a roomy heap: code loads ahead, one load a pass with
                ahead = self.ahead  # nothing to draw (dicepod.ram_ahead: the first pass imports it)
                if ahead is False:
                    from dicepod import ram_ahead

                    self.ahead = ram_ahead
                    menu = self.stack[0]
                    if len(self.stack) == 1 and hasattr(menu, "ahead"):
                        menu.ahead(self, True)  # pyright: ignore (the main menu: its row's)
                elif ahead.step():  # pyright: ignore (a module here, not True)
                    self.tidy = 1  # (a mode's load: collected in a later idle pass)
        except Exception as exc:  # the one top-level handler: journal, screen, restart
            self.crash(exc)

    def button(self, code):
        """Send one button to the top screen (long BACK in a game = undo). Outside a game no
        screen gives a hold a meaning of its own, so there a hold is a slow tap: it acts at the
        threshold, as the tap would have on release (a slow finger is never ignored)."""
        if self.toast is not None:
            self.toast = None
            self.dirty = True
        top = self.stack[-1]
        if code > ui.BACK and not top.game_screen:
            code >>= 4
        elif code == ui.LONG_BACK:
            self.undo()
            return
        try:
            result = top.on_button(self, code)
        except MissingValue as exc:
            result = self.ask(exc, (top, code))  # answered, the move goes on (the next question)
        except ValueError as exc:  # an illegal move: nothing was written; say why
            self.show_toast(str(exc.args[0] if exc.args else "not allowed"))
            top.dirty = True
            return
        self.transition(result)

    def ask(self, exc, again=None):
        """Return the screen asking the player for a missing value (again: the (screen,
        button) of the move that asked, made again once it is answered)."""
        if not self.tidy:  # a small heap: the failed move's garbage goes before the question's
            gc.collect()  # code is loaded (a roomy one keeps that code loaded: dicepod.ram_ahead)
        from dicepod.ui.ask import AskValue

        return AskValue(self, exc.args[0], exc.args[1], again)

    def transition(self, result):
        """Apply a screen's transition (see dicepod.ui.screen)."""
        if result is None:
            return
        again = None
        if result == ui.POP:
            if len(self.stack) > 1:
                # a question answered: the move that asked it is made again at once, so the
                # values a move needs are asked one after another, never between set-ups
                again = getattr(self.stack.pop(), "answered", None)
        elif result == ui.HOME:
            del self.stack[1:]
            ram.unload(self.session.kept)
        elif isinstance(result, ui.Replace):
            if len(self.stack) > 1:
                self.stack.pop()
            self.stack.append(result.screen)
        elif isinstance(result, ui.Reset):
            del self.stack[1:]
            if result.screen is not None:
                self.stack.append(result.screen)
            else:
                ram.unload(self.session.kept)
        elif isinstance(result, ui.NewGame):
            mode = result.mode
            result = None
            del self.stack[1:]
            self.stack.append(self.new_game(mode))
        else:
            self.stack.append(result)
            then = getattr(result, "then", None)
            ahead = self.ahead
            if ahead and isinstance(then, ui.NewGame):
                if then.mode != self.session.mode:
                    # a question whether to end the game for one of another mode: that
                    # mode's code loads in the idle passes while it is read (a roomy heap)
                    ahead.start(then.mode)  # pyright: ignore (the module, not True)
        if again is not None and self.stack[-1] is not again[0]:
            again = None
        if len(self.stack) <= 2 and result == ui.POP and again is None:
            # back at the game (or the menu): passing screens' code goes
            ram.unload(self.session.kept)
        self.main_menu()
        self.stack[-1].on_show(self)
        self.dirty = True
        if again is not None:
            # the move made again first: if it asks the next question, the question's code
            # is still loaded (no collection and no import between two questions)
            self.button(again[1])
            if len(self.stack) <= 2:
                ram.unload(self.session.kept)

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
            ram.forget("dicepod.ui.menu")

    def redraw(self):
        """Draw the top screen if anything changed, then flush the display; True if it
        drew. (A small frame for the passes with nothing to draw, two a pass: MicroPython
        keeps it on the C stack, where show's is taken from the heap at every call.)"""
        top = self.stack[-1]
        if self.dirty or top.dirty:
            return self.show(top)

    def show(self, top):
        """redraw() with something to draw. (Named as the display's show: a name interned
        already, none added to the interned names' pool, which grows by a block wherever the
        heap has one.)"""
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
            # In place of the screen's bottom line(s): a lit band, the message in dark 6×8
            # letters, two lines if it needs them (the lines under it are hidden, not drawn
            # over, until the next button).
            lines = ui.wrap(self.toast, 21)[:2]
            band = 64 - 9 * len(lines)  # rows 55..63: the screens' bottom line, at y 56
            canvas.fill_rect(0, band, 128, 64 - band, 1)
            for line in lines:
                draw.small(canvas, line, draw.CENTER, band + 1, 0)
                band += 9
        top.dirty = False
        self.dirty = False
        self.display.show()
        return True

    # -- crashes -----------------------------------------------------------------------------

    def crash(self, exc):
        """Journal the crash, restart from the journal, and show the traceback. Never raises:
        short of memory, it drops what it cannot afford (the text, then the crash screen)."""
        # The failed step's objects are garbage now; free them before anything else.
        session = self.session
        session.hold = False
        del self.stack[:]
        session.game = None
        gc.collect()
        try:
            from dicepod import crash as crash_module  # loaded only here, dropped after

            text = crash_module.trace_text(exc)
            event = crash_module.crash_event(exc, text)
        except MemoryError:
            text = type(exc).__name__
            event = ("crash", (text[:24], "unknown", 0))
        ram.forget("dicepod.crash")
        try:
            session.record(event)
            session.trailing += 1
        except Exception:  # a journal that cannot be written must not stop the restart
            pass
        now = session.ms
        crashes = []  # (a loop: a comprehension is a function of its own in RAM)
        for t in self.crashes:
            if now - t < _CRASH_WINDOW_MS:
                crashes.append(t)
        crashes.append(now)
        self.crashes = crashes
        self.safe = len(self.crashes) >= _CRASH_LIMIT
        self.toast = None
        try:
            self.start(False)
        except Exception:  # start itself failing: a bare menu that only shows the crash
            self.safe = True
            session.mode = None
            session.game = None
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
        usb = app.session.usb
        if usb is not None and getattr(usb, "repl_asked", False):  # `repl` (dicepod deploy): the
            usb.finish()  # journal is written, the repl line goes out, main.py hands the
            return app  # USB line to the REPL
        board.sleep_ms(_PERIOD_MS)
        if ticks is not None:
            ticks -= 1
    return app
