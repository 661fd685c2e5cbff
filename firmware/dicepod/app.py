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
- later(call, *args): work that reads the flash (a mode's code on the stock firmware, the
  journal for History or a fold): the press is answered at once by a lit "Loading..." band at
  the foot of the screen shown (busy), and call(app, *args) makes its transition at the start
  of the next pass.
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
# Idle ms before each step of the journal's scrub (App.tick).
_SCRUB_QUIET_MS = const(5000)
# The heap allocated between the threshold's collections: this share of the free heap at start
# (the garbage of ordinary presses goes in the idle pass after a frame, App.tick), so that the
# garbage never takes more than a quarter of the heap.
_GC_SHARE = const(4)
# Main-loop period on the Pico (ms): ~50 frames a second at most; buttons are polled each tick.
_PERIOD_MS = const(20)
# Moves a screen plays on its own (an auto-roll) go to the flash in one append once this many
# are held, or the first of them is this old (App.tick): LittleFS erases a block for each
# append, which holds the CPU, so a press made during a run seldom waits for one. A power cut
# loses at most that much of a run; the USB link's queue (13 lines for events) takes a batch
# whole.
_RUN_FLUSH_MOVES = const(8)
_RUN_FLUSH_MS = const(1000)
# The game in progress is saved whole (dicepod.resume) after a quiet while once EVERY of its
# events were played since; once this many were, sooner: after this long with no finger on a
# button, though the screen moves on its own (an auto-roll) or the player never pauses long,
# so that a power-on never folds more of them than the boot's second allows.
_OVERDUE_EVENTS = const(120)
_OVERDUE_STILL_MS = const(400)


class App:
    """The dicepod application on a board (see docs/ARCHITECTURE.md for the board's shape)."""

    def __init__(self, board):
        self.board = board
        self.display = board.display
        self.randbelow = board.randbelow
        self.power = getattr(board, "power", None)
        self.beeper = getattr(board, "beeper", None)  # the session starts its tunes
        self.session = Session(board, self.show_toast, self.changed)
        self.stack = []  # the screens, the main menu at the bottom
        self.toast = None  # a short message drawn over the screen until the next button
        self.crashes = []  # ms of recent crashes (the crash-loop guard)
        self.safe = False  # started without the game after a crash loop
        self.doing = None  # (action, args) of the move in hand: a question resumes it (do)
        self.next = None  # (call, args) that later() put off to the next pass
        self.told = 0  # events the top screen was told of (changed)
        self.dirty = True
        self.tidy = False  # a frame was shown: the next idle pass collects (tick())
        self.scrub_at = 0  # the idle scrub's last journal segment checked (-1: all, this boot)
        self.quiet = 0  # ms of idle passes since the last press or scrub step
        self.still = 0  # ms since a finger was last on a button (or an overdue checkpoint)

    # -- start-up --------------------------------------------------------------------------

    def start(self, show=True):
        """Start the session, resume the game in progress on its screen, draw (unless show
        is false: the crash handler draws its own screen first)."""
        ram.start()
        self.next = None
        session = self.session
        session.start(not self.safe)
        del self.stack[:]
        from dicepod.ui.menu import MainMenu

        self.stack.append(MainMenu(self))
        if session.game is not None:
            self.stack.append(self.game_screen())
        if session.messages:
            from dicepod.ui.message import Message

            self.stack.append(Message("Notice", session.messages))
            session.messages = []
        self.shown()
        self.dirty = True
        if show:
            self.redraw()
        if not ram.load_all():  # (after the first frame; the rest in the next pass, tick)
            self.loaded()

    def loaded(self):
        """The modules are imported (ram.load_all): their garbage goes, and the collections
        the threshold starts from then on seldom fall in a press (see tick)."""
        gc.collect()
        if hasattr(gc, "threshold"):  # MicroPython
            gc.threshold(gc.mem_free() // _GC_SHARE)

    # -- the game's screens ----------------------------------------------------------------

    def game_screen(self):
        """Return a new screen for the current game's mode, or None when its code or its
        game must be read from the flash first (later: the screen comes in the next pass)."""
        if self.ready(self.session.mode):
            return self.open_game()
        return self.later(App.open_game)

    def open_game(self, mode=None):
        """game_screen()'s work, and new_game()'s (mode: a new game of it first): the game
        folded again if release_game dropped it, then its screen."""
        session = self.session
        if mode is not None:
            session.new_game(mode)
        session.ensure_game()
        module = __import__("dicepod.ui." + str(session.mode), None, None, ("open",))
        return module.open(self)

    def new_game(self, mode):
        """Start a new game of mode (see Session.new_game); return its screen (None: it comes
        in the next pass, after the mode's code is read from the flash)."""
        if mode != self.session.mode:
            del self.stack[1:]  # the old game's screens go before its modules are dropped
        if ram.loaded(mode):
            return self.open_game(mode)
        return self.later(App.open_game, mode)

    def ready(self, mode):
        """True when mode's code is in RAM and, for the current game's mode, its game folded:
        opening it reads nothing from the flash."""
        session = self.session
        return ram.loaded(mode) and (mode != session.mode or session.game is not None)

    def undo(self):
        """Undo the last move (Session.undo); a fold of the game reads the journal: later."""
        session = self.session
        if session.moves > 0 and session.back is None:
            self.busy("Undoing...")
            self.next = (App.undone, ())
            return None
        return session.undo()

    def undone(self):
        """undo()'s work, as a transition (none)."""
        self.session.undo()

    def later(self, call, *args):
        """Answer the press now with the Loading... band (busy) and make call(app, *args) at
        the start of the next pass, its transition applied; return None (no transition)."""
        self.busy()
        self.next = (call, args)

    def busy(self, text="Loading..."):
        """Over the screen shown now, a lit band at its foot saying text (8×8 letters: no font
        to load), sent at once; the next redraw draws the screen whole."""
        canvas = self.display
        canvas.fill_rect(0, 55, 128, 9, 1)
        draw.center(canvas, text, 56, 0)
        canvas.show()
        self.dirty = True

    def changed(self):
        """The session played an event: redraw, and tell the top screen."""
        self.dirty = True
        self.told += 1
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
            put_off = self.next
            if put_off is not None:  # the band went out in the last pass: now the work
                self.next = None
                self.doing = None
                self.attempt(self.stack[-1], put_off[0], put_off[1])
            pressed = self.board.buttons.update(dt_ms)
            if self.power is not None and self.power.update(dt_ms, pressed != 0):
                pressed = 0  # the press that woke the display only wakes it
            if pressed or self.board.buttons.state:
                self.still = 0
            elif self.still < _OVERDUE_STILL_MS:
                self.still += dt_ms
            if pressed:
                bit = 1
                while bit <= 128:
                    if pressed & bit:
                        self.button(bit)
                    bit <<= 1
            held = -1 if pressed else len(session.pending)  # (a press's moves: written at once)
            self.transition(self.stack[-1].tick(self, dt_ms))
            beeper = self.beeper
            if beeper is not None:
                beeper.update(dt_ms)  # the next note of a tune, or silence: never waits
            if self.redraw():
                pressed = 1
            session.hold = False
            # (flush only with moves pending: its frame comes from the heap at every call;
            # the moves of a run the screen is making on its own wait, see _RUN_FLUSH_MOVES)
            pending = session.pending
            if (
                pending
                and (
                    len(pending) <= held
                    or held < 0
                    or len(pending) >= _RUN_FLUSH_MOVES
                    or session.ms - pending[0][0] >= _RUN_FLUSH_MS
                )
                and not session.flush()
            ):  # no room: the game as saved
                self.transition(ui.Reset(self.game_screen() if session.game is not None else None))
            self.redraw()  # that, or a toast from the journal (old games deleted for room)
            usb = session.usb
            if usb is not None:
                usb.tick(dt_ms)
            if (
                self.still >= _OVERDUE_STILL_MS
                and session.game is not None
                and not session.pending
                and session.unsaved() >= _OVERDUE_EVENTS
            ):
                self.still = 0  # (written or not, not tried again before the next still while)
                gc.collect()  # (the run's garbage first: the checkpoint's text takes a block)
                from dicepod import resume

                if resume.write(session, self.board.buttons.latched):
                    return
            # The garbage of the last presses goes in a pass with nothing to do and no button
            # held, so that the threshold's collections seldom fall in a press.
            if pressed:
                self.tidy = True
                self.quiet = 0
            elif ram.pending and not self.board.buttons.state:
                # the modules still to import after the first frame, until a press comes
                keys = self.board.buttons
                while ram.load_all():
                    if keys.latched():
                        break
                else:
                    self.loaded()
            elif self.tidy and not self.board.buttons.state:
                # the top screen's work ahead of the next press first (Screen.idle: in the
                # pass right after the press's, before a next press is likely), then the
                # garbage of both, unless a press came meanwhile (it is answered first)
                latched = self.board.buttons.latched
                self.stack[-1].idle(self, latched)
                if not latched():
                    self.tidy = False
                    gc.collect()
            elif not self.board.buttons.state and self.stack[-1].idle(
                self, self.board.buttons.latched
            ):
                pass  # what is left of it (a press stopped it, and was answered)
            elif usb is not None and getattr(session.journal, "bad", 0) and not usb.busy():
                # Damage the back-fill met in an older segment went to the PC as a break:
                # mended and marked once it is over, so the lost event that vouches for the
                # break follows it at once, not after the scrub's quiet while.
                seq = session.journal.seq
                notices = session.mend()
                if session.journal.seq > seq:  # its lost events, to the PC now
                    usb.resend(seq)
                if notices:
                    session.toast(notices[1] if len(notices) > 1 else notices[0])
            elif (
                (self.scrub_at >= 0 or session.game is not None)
                and (usb is None or not usb.busy())
                and not self.board.buttons.state
            ):
                # Quiet whiles' work, one step after each: the game in progress saved whole
                # when enough was played since (a power-on then folds only what came after
                # it: dicepod.resume), else the next older journal segment checked, damage
                # found, mended and marked before the PC asks for it (Session.scrub). Never
                # with a finger down (its gesture is coming), and a press the pins latch
                # meanwhile stops the step before the flash is written (latched: the step is
                # taken again after the next quiet while).
                self.quiet += dt_ms
                if self.quiet >= _SCRUB_QUIET_MS:
                    self.quiet = 0
                    latched = self.board.buttons.latched
                    if session.game is not None:
                        from dicepod import resume

                        if resume.write(session, latched):
                            return
                    if self.scrub_at >= 0 and not latched():
                        seq = session.journal.seq
                        seg = session.scrub(self.scrub_at, latched)
                        if seg is not None:
                            self.scrub_at = seg or -1
                        if usb is not None and session.journal.seq > seq:
                            usb.resend(seq)  # the breaks' lost events
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
        self.doing = None
        self.attempt(top, top.on_button, (code,))

    def do(self, action, *args):
        """Make a move: action(app, *args), an event to play (a tuple), or the kind of an
        event without data (a string). Kept as what it is, so that a question the move asks
        resumes this very move once answered, whatever the screen below shows by then."""
        self.doing = (action, args)
        if isinstance(action, str):
            return self.session.play((action, ()))
        if isinstance(action, tuple):
            return self.session.play(action)
        return action(self, *args)

    def attempt(self, top, call, args):
        """Run a screen's call(app, *args) and apply its transition: a missing value is asked
        (resuming the move in hand, if the screen named one with do), an illegal move shown."""
        try:
            result = call(self, *args)
        except MissingValue as exc:
            doing = self.doing
            result = self.ask(exc, None if doing is None else (top,) + doing)
        except ValueError as exc:  # an illegal move: nothing was written; say why
            self.show_toast(str(exc.args[0] if exc.args else "not allowed"))
            top.dirty = True
            return
        self.transition(result)

    def ask(self, exc, again=None):
        """Return the screen asking the player for a missing value (again: the (screen,
        action, args) of the move that asked, made again once it is answered)."""
        from dicepod.ui.ask import AskValue

        return AskValue(self, exc.args[0], exc.args[1], again)

    def transition(self, result):
        """Apply a screen's transition (see dicepod.ui.screen)."""
        if result is None:
            return
        again = None
        if result == ui.POP:
            if len(self.stack) > 1:
                # a question answered: the move that asked it goes on at once, so the values
                # a move needs are asked one after another, never between set-ups
                again = getattr(self.stack.pop(), "answered", None)
        elif result == ui.HOME:
            del self.stack[1:]
        elif isinstance(result, ui.Replace):
            if len(self.stack) > 1:
                self.stack.pop()
            self.stack.append(result.screen)
        elif isinstance(result, ui.Reset):
            del self.stack[1:]
            if result.screen is not None:
                self.stack.append(result.screen)
        elif isinstance(result, ui.NewGame):
            mode = result.mode
            result = None
            del self.stack[1:]
            screen = self.new_game(mode)
            if screen is not None:
                self.stack.append(screen)
        else:
            self.stack.append(result)
        if again is not None and self.stack[-1] is not again[0]:
            again = None
        self.dirty = True
        if again is None:
            self.shown()
            return
        # The move itself, never a button against a changed screen; the screen it was made on
        # is told of its event (changed), and only shown as it is when the move played none.
        told = self.told
        self.attempt(again[0], App.do, (again[1],) + tuple(again[2]))
        if self.told == told and self.stack[-1] is again[0]:
            self.shown()

    def shown(self):
        """Tell the top screen it is shown: a value it needs is asked, never raised (a
        missing value must not stop the app, nor its boot)."""
        try:
            self.stack[-1].on_show(self)
        except MissingValue as exc:
            self.stack.append(self.ask(exc))
            self.stack[-1].on_show(self)

    def redraw(self):
        """Draw the top screen if anything changed, then flush the display; True if it
        drew. (A small frame for the passes with nothing to draw, two a pass: MicroPython
        keeps it on the C stack, where show's is taken from the heap at every call.)"""
        top = self.stack[-1]
        if (self.dirty or top.dirty) and self.next is None:  # (the band stays until then)
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
        self.next = None
        del self.stack[:]
        session.game = None
        gc.collect()
        try:
            from dicepod import crash as crash_module  # loaded only here

            text = crash_module.trace_text(exc)
            event = crash_module.crash_event(exc, text)
        except MemoryError:
            text = type(exc).__name__
            event = ("crash", (text[:24], "unknown", 0))
        try:
            session.record(event)
            session.trailing += 1
        except Exception:  # a journal that cannot be written must not stop the restart
            pass
        now = session.ms
        self.crashes = [t for t in self.crashes if now - t < _CRASH_WINDOW_MS] + [now]
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
            from dicepod.ui.menu import MainMenu

            self.stack.append(MainMenu(self))
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
    app = boot(board)
    last = board.ticks_ms()
    while ticks is None or ticks > 0:
        now = board.ticks_ms()
        try:
            app.tick(board.ticks_diff(now, last))
        except Exception:  # the crash handler itself failed (out of memory): a fresh app
            app = None
            gc.collect()
            app = boot(board)
        last = now
        usb = app.session.usb
        if usb is not None and getattr(usb, "repl_asked", False):  # `repl` (dicepod deploy): the
            app.session.flush()  # journal is written, the repl line goes out, main.py hands
            usb.finish()  # the USB line to the REPL
            return app
        if app.next is None:  # (work put off by later(): at once, its band is out)
            board.sleep_ms(_PERIOD_MS)
        if ticks is not None:
            ticks -= 1
    return app


def boot(board):
    """Return a started App: whatever the journal and the settings file hold, it reaches a
    usable screen (a start that fails is a crash: journalled, then the menu)."""
    app = App(board)
    try:
        app.start()
    except Exception as exc:
        app.crash(exc)
    return app
