"""The game session: the journal, the players' settings and the current game folded from it.

Shell code (it writes the storage, through dicepod.journal). The app (dicepod.app) owns the
screens and the loop; the screens reach the session as app.session and use these calls:

- play(event): fold a user-visible event into the game (an illegal one raises ValueError and
  nothing is written; the game stays as it was, in RAM), append it to the journal and hand
  the line to the USB link. While `hold` is set (the app sets it for a loop pass's buttons,
  screens and redraw), the append waits for flush(): the press's frame goes out first (see
  flush).
- undo(): append ("undo", ()) (one more per crash record after the last move) and fold the game
  again from the journal; False (and a toast saying so) when the game has nothing to undo.
- new_game(mode): journal ("new_game", (mode,)) and the mode's settings and fold them (like
  play(), after the frame while `hold` is set: a mode's settings are a line each).
- release_game() / ensure_game(): drop the current game and its code while another mode's
  settings are shown, where the code is loaded into the heap (dicepod.ram) / fold it again.
- setting(key), spec(key), group(name), change_setting(key, value): the players' settings
  (values: {key: int} as loaded).
- Read: game (the rules Game), mode, last_kind, last_event (what just happened), journal.

A move played sounds on the board's beeper, when it has one (Beeper.before/after): the tune
dicepod.drivers.beeper.tune() picks from the move and the game's outcome before and after it
(a roll's click, a bust, ALL OUT!, a win); an undo is silent. The beeper plays it from the
app's ticks (non-blocking).

The session tells the app through two functions it is given: toast(text) for a one-line
message, changed() after an event was played or undone (the app redraws and tells the top
screen).
"""

from micropython import const

from dicepod import journal as journal_module
from dicepod import ram, replay
from dicepod.rules import modes
from dicepod.settings import MissingValue, Settings, encode, load, spec_index, spec_keys

# The settings group of the device itself (dicepod.device.SETTINGS).
_DEVICE = const("device")
# The game in progress's checkpoint (dicepod.resume.NAME, a side file of the journal).
_SAVED = const("game")


def _has(storage, name):
    """True when storage holds the side file name (its first line read, no more)."""
    lines = storage.lines(name)
    for _line in lines:
        close = getattr(lines, "close", None)
        if close:
            close()
        return True
    return False


class Back:
    """The current game one effective event behind, for an undo without a fold: its Game and
    the kind, event and move count of its last event. A step play() takes while a loop pass
    holds its journal (Session.hold) waits in pending until the pass's frame is sent
    (Session.flush): folding the event a second time is not on a press's path. (Named as
    the session's: names interned already.)"""

    def __init__(self, game, kind=None):
        self.game = game
        self.kind = kind
        self.event = None
        self.moves = 0
        self.pending = []  # (event, kind, moves): steps not taken yet, in order

    def step(self, event, kind, moves):
        """Take event (the one before the game's newest; None: none yet)."""
        if event is not None:
            self.game.apply(event)
        self.kind = kind
        self.event = event
        self.moves = moves

    def flush(self):
        """Take the steps pending; False when one failed (not expected: the game took the
        event): this copy is then of no use, and an undo folds again."""
        pending = self.pending
        self.pending = []
        try:
            for step in pending:
                self.step(step[0], step[1], step[2])
        except Exception:
            return False
        return True


class Session:
    """The journal, the settings and the current game on a board's storage and USB link."""

    def __init__(self, board, toast, changed):
        self.storage = board.storage
        self.usb = getattr(board, "usb", None)
        self.power = getattr(board, "power", None)
        self.beeper = getattr(board, "beeper", None)
        self.toast = toast
        self.changed = changed
        # new_id: the board's random source for a new journal's identity
        self.journal = journal_module.Journal(board.storage, getattr(board, "new_id", None))
        if self.usb is not None:
            self.usb.log = self.journal  # the link's journal (seq, head, identity, back-fill)
        # The players' settings, {key: int}, as read from storage once (by board.assemble,
        # else by start()). They are checked against a mode's SETTINGS when it is loaded.
        saved = getattr(board, "saved", None)
        self.unread = not isinstance(saved, dict)
        self.values = saved if isinstance(saved, dict) else {}
        self.ms = 0  # milliseconds since start (the journal's clock)
        self.mode = None  # the current game's mode name, or None
        self.game = None  # its rules Game, folded from the journal
        self.moves = 0  # effective events of the current game after its new_game and sets
        self.last_kind = None  # kind of the current game's last effective game event
        self.last_event = None  # and the event itself (screens name what just happened)
        self.trailing = 0  # app events (crash records) after the last game event
        # The game as it was before its last effective event (Back, or None): an undo takes
        # it instead of folding the journal again.
        self.back = None
        self.hold = False  # play() leaves its append to flush() (set by the app's loop pass)
        self.pending = []  # (ms, event) played, not yet in the journal (see flush); a new
        # game's: (ms, None, its events); the settings file to write: (ms, None, None)
        self.messages = []  # lines to show once the app has started
        self.messages.extend(getattr(board, "notices", ()))

    def start(self, resume=True):
        """Recover the journal, load the settings, fold the game in progress (unless resume
        is false: started without the game after a crash loop)."""
        # A torn last line (a power cut while writing) is cut silently: the game resumes at
        # the last complete event, as if the cut came a moment earlier. Damage, games deleted
        # for room: the journal's notices. Recovery never stops the start: a journal that
        # cannot be read at all starts the app without it, with a message.
        journal = self.journal
        try:
            journal.recover()
        except Exception:
            journal.notices = ["Journal unreadable"]
        self.messages.extend(journal.notices)
        journal.notices = []
        if self.unread:
            # The settings file, read once (by board.assemble, or here for a board that did
            # not): a corrupt one falls back to the defaults with a message.
            self.values = load(self.storage, self.messages)
            self.unread = False
        if resume:
            self.refold()
            self.messages.extend(self.mend())  # the fold met damage in an older segment
        else:
            self.mode = None
            self.game = None

    def mend(self):
        """Mend the older segment the journal found damage in (journal.bad: met by the game's
        fold or by a USB back-fill, which sent it as a break), marked by the break's chained
        lost event; return the notices (none when there was nothing to mend)."""
        journal = self.journal
        bad = getattr(journal, "bad", 0)
        if not bad:
            return []
        journal.bad = 0
        from dicepod import journalfix

        seq = journal.seq
        try:
            notices = journalfix.check(journal, bad)
        except OSError:  # the flash could not be written: the idle scrub tries again
            return []
        self.trailing += journal.seq - seq  # the break's chained lost events
        return notices

    def scrub(self, after, latched=None):
        """Idle work: check the journal's next older segment after segment after (damage
        mended and marked as a break, a missing segment marked: journalfix.scrub_next), with
        a toast when it found damage; return that segment (0: every one checked; None: it gave
        way to a press, latched() had one while it read, and that segment comes again)."""
        from dicepod import journalfix

        journal = self.journal
        seq = journal.seq
        try:
            seg, notices = journalfix.scrub_next(journal, after, latched)
        except OSError:  # the flash could not be read or written: tried again at the next boot
            return 0
        self.trailing += journal.seq - seq  # the breaks' chained lost events
        if notices:
            self.toast(notices[1] if len(notices) > 1 else notices[0])
        return seg

    # -- settings ------------------------------------------------------------------------------

    def mode_settings(self, module, mode):
        """Return a Settings for mode's rules module with the players' values; a stored value
        outside its range is dropped (default again) with a message."""
        specs = module.SETTINGS
        settings = Settings(specs)
        values = self.values
        mode += "."  # (its keys: another mode's are not looked for in its specs)
        for key in sorted(values):  # the players' few values, not every spec of the mode
            if not key.startswith(mode):
                continue
            index = spec_index(specs, key)
            if index >= 0:
                try:
                    settings.set(key, values[key])
                except ValueError:
                    del values[key]
                    self.toast("%s: back to default" % specs[index][4])
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
        if name == _DEVICE:
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

    def change_setting(self, key, value):
        """Set a setting (ValueError if out of range), save it, and journal it when the
        current game uses it. While `hold` is set the settings file is written by flush(),
        after the frame (a LittleFS write and rename); a flash that cannot take it says so in
        a toast."""
        spec = self.spec(key)
        if spec is None:
            raise ValueError("unknown setting")
        if not spec[2] <= value <= spec[3]:
            raise ValueError("%d..%d" % (spec[2], spec[3]))
        mode = self.mode
        if self.game is not None and mode is not None and key.startswith(mode + "."):
            self.play(("set", (key, value)))  # first: a value the game refuses is not saved
        values = self.values
        values[key] = value
        if self.hold:  # the file is written after the frame, with the moves (see flush)
            self.pending.append((self.ms, None, None))
        else:
            self.storage.save_settings(encode(values))
        if key.startswith(_DEVICE + "."):
            for part in (self.power, self.beeper):  # display times, brightness; the volume
                configure = getattr(part, "configure", None)
                if configure is not None:
                    configure(values)

    # -- the current game ----------------------------------------------------------------------

    def refold(self, undo=False):
        """Fold the current game's effective events (the journal applies the undo rule) into
        a fresh Game, one replay.step each (the app's own events stepped over); for an undo
        also the game one event behind (back).

        A save the rules reject (say, written by another firmware version) keeps the game as
        it was at the last good event, with a message; it never crashes the app.
        """
        self.flush()
        self.mode = None
        self.game = None
        self.back = None
        # The counters kept in locals while it runs (hundreds of events), stored at the end
        moves = trailing = 0
        last_kind = last_event = None
        game = None
        back = None  # the game one event behind (last_event not in it)
        events = None
        # the game saved in a quiet while, and what came after (where the code loads into the
        # heap, dicepod.resume's only when there is a checkpoint to read)
        if not undo and (ram.RESIDENT or _has(self.storage, _SAVED)):
            from dicepod import resume

            found = resume.load(self)
            if found is not None:
                self.mode, game, events, moves, trailing, last_kind, last_event = found
                self.game = game
        try:
            for event in self.journal.game_events() if events is None else events:
                kind = event[0]
                if kind == "new_game":
                    try:
                        module = ram.load(event[1][0])  # its screens' code too
                    except (ValueError, IndexError, ImportError):
                        self.messages.append("Saved game: unknown mode")
                        return
                    self.mode = event[1][0]
                    game = self.game = module.Game(Settings(module.SETTINGS))
                    if undo:
                        back = Back(module.Game(Settings(module.SETTINGS)))
                        last_event = None
                if game is None:
                    continue
                try:
                    if not replay.step(game, event):
                        trailing += 1
                        continue
                except (ValueError, MissingValue) as exc:  # a save no game of these rules makes
                    self.messages.append("Saved game stops at: %s" % exc.args[0])
                    back = None
                    return
                if back is not None and last_event is not None:
                    back.step(last_event, last_kind, moves)  # folded into game before: legal
                last_kind = kind
                last_event = event
                trailing = 0
                if kind != "new_game" and kind != "set":
                    moves += 1
        finally:
            self.moves = moves
            self.last_kind = last_kind
            self.last_event = last_event
            self.trailing = trailing
            if back is not None and last_event is not None:
                self.back = back

    def release_game(self):
        """Drop the current game and its code while the player looks at another mode's
        settings, where the code is loaded into the heap (one mode's code at a time,
        dicepod.ram). The journal keeps the game; ensure_game folds it again."""
        if not ram.RESIDENT:
            self.game = None
            self.back = None
            ram.release()

    def ensure_game(self):
        """Fold the current game again if release_game dropped it."""
        if self.game is None and self.mode is not None:
            self.refold()

    def new_game(self, mode):
        """Start a new game of mode: journal new_game and the mode's settings, fold them. The
        app has closed the old game's screens when the mode changes."""
        self.back = None
        if mode != self.mode:  # the old game goes before the new mode's code loads
            self.game = None
            self.mode = None
            self.last_event = None
        module = ram.load(mode)
        specs = module.SETTINGS
        slots = self.mode_settings(module, mode).slots
        # The mode's settings as events, for the game before its first move and the journal:
        # a long list's keys as bytes (Specs.keys), made strings for the journal after the frame
        events: list = [("new_game", (mode,))]
        slot = 0
        for key in spec_keys(specs):
            value = slots[slot]
            slot += 1
            if value is not None:
                events.append(("set", (key, value)))
        self.mode = mode
        game = module.Game(Settings(specs))
        for event in events:
            game.apply(event)
        self.game = game
        self.moves = 0
        self.trailing = 0
        self.last_kind = "new_game"
        self.last_event = None
        # Journaled (and the game before its first move folded a second time for an undo:
        # back) after the frame in a loop pass (see flush).
        if self.hold:  # one entry for the lot
            self.pending.append((self.ms, None, events))
        else:
            self._journal_new_game(self.ms, events)

    def _journal_new_game(self, ms, events):
        """Journal a new game's events (new_game, then its settings: up to 58 lines for Rise
        of the Orks); first keep a second copy of the game before its first move (back) if
        nothing was played since."""
        game = self.game
        if self.back is None and self.moves == 0 and self.last_kind == "new_game":
            if game is not None and events[0][1][0] == self.mode:
                copy = type(game)(Settings(game.settings.specs))
                for event in events:
                    copy.apply(event)
                self.back = Back(copy, "new_game")
        for event in events:
            data = event[1]
            if not isinstance(data[0], str):  # a key as bytes (Specs.keys): a string now
                event = ("set", (data[0].decode(), data[1]))
            self.record(event, ms)

    def record(self, event, ms=-1):
        """Append an event to the journal (after those play() left pending) at ms (-1: now)
        and hand its line to the USB link."""
        if self.pending and not self.flush():
            raise ValueError("Flash full")
        journal = self.journal
        try:
            line = journal.append(self.ms if ms < 0 else ms, event)
        except OSError:  # the flash is full with the game in progress: nothing was written,
            self.refold()  # so the game is as the journal has it
            raise ValueError("Flash full")
        if journal.notices:  # old games deleted for room, or the flash nearly full
            self.toast("Flash full")
            journal.notices = []
        if self.usb is not None:
            self.usb.on_entry(line)
        return line

    def play(self, event, tell=True):
        """Fold a user-visible event into the game and journal it. An illegal event raises
        ValueError (MissingValue for a value not entered) and nothing is written: the rules
        leave the game as it was (dicepod.replay), so it is kept, not read again from the
        flash. (Any other exception is a crash: the app restarts from the journal.) tell
        false: the app is not told (changed()), for all but the last of a move's events (a
        screen rebuilds its texts, and the Tests screen its odds, once, not ten times)."""
        game = self.game
        if game is None:
            raise ValueError("no game")
        beeper = self.beeper
        if beeper is not None:
            beeper.before(self.mode, game)
        game.apply(event)
        back = self.back
        if back is not None:  # one event behind: it takes the one before this
            back.pending.append((self.last_event, self.last_kind, self.moves))
            if not self.hold and not back.flush():  # (held: after the frame, in flush)
                self.back = None
        self.write(event)
        kind = event[0]
        if beeper is not None:
            beeper.after(kind, self.mode, game)
        self.last_kind = kind
        self.last_event = event
        self.trailing = 0
        if kind != "new_game" and kind != "set":
            self.moves += 1
        if tell:
            self.changed()

    def write(self, event):
        """Journal an event now, or after the pass's frame while hold is set (see flush)."""
        if self.hold:
            self.pending.append((self.ms, event))
        else:
            self.record(event)

    def flush(self):
        """Write the events play() left pending (see hold) to the journal, in order; False
        when the flash had no room for one: the game is then folded again without it (and
        the ones after it), with a toast, and the app shows it again (App.tick).

        The app calls this right after the pass's frame is sent, so that a move's append (the
        line, its checksum and chain hash, LittleFS) never delays its frame, nor do the undo
        copy's steps (Back.pending, taken last: their garbage and the journal's are not in the
        heap at once). A move's lines go to the flash in one write (journal.pending): on
        LittleFS one block erased for the move, not one for each of its events; a power cut
        loses at most the move being written."""
        pending = self.pending
        if not pending:
            return True
        self.pending = []
        journal = self.journal
        journal.pending = []  # a move's lines in one write (the USB link sends none before)
        try:
            try:
                for item in pending:
                    if item[1] is not None:  # (ms, event)
                        self.record(item[1], item[0])
                    elif item[2] is not None:  # a new game: (ms, None, its events)
                        self._journal_new_game(item[0], item[2])
                    else:  # the settings file (change_setting)
                        try:
                            self.storage.save_settings(encode(self.values))
                        except (OSError, MemoryError):  # a full flash, or no heap to open it
                            self.toast("Settings not saved")
            finally:
                journal.flush()  # (what the journal took before any failure too)
        except OSError:  # no room for the move's lines, even with what may go deleted
            self.refold()
            self.toast("Flash full")
            return False
        except ValueError:  # no room: record() folded the game again without it
            self.toast("Flash full")
            return False
        finally:
            journal.pending = None
            back = self.back
            if back is not None and back.pending and not back.flush():
                self.back = None
        return True

    def unsaved(self):
        """The events of the game in progress played since its checkpoint (dicepod.resume;
        all of them when it has none, or one from before an undo or of another game)."""
        journal = self.journal
        saved = getattr(self, "saved", None)  # (game, undos, events) of the last checkpoint
        if saved is not None and saved[0] == journal.game and saved[1] == journal.game_undos:
            return journal.game_length - saved[2]
        return journal.game_length

    def undo(self):
        """Undo the last move of the current game (append ("undo", ()) and fold again),
        saying so in a toast; False when there is nothing to undo."""
        if self.game is None or self.moves <= 0:
            self.toast("Nothing to undo")
            return False
        undone = self.last_event
        back = self.back
        self.back = None
        if back is not None and back.pending and not back.flush():
            back = None
        for _ in range(self.trailing):
            self.write(("undo", ()))  # step over crash records
        self.write(("undo", ()))
        if back is not None:  # the game before its last event, as a fold would give it
            self.game = back.game
            self.last_kind = back.kind
            self.last_event = back.event
            self.moves = back.moves
            self.trailing = 0
        else:
            self.refold(True)
        self.toast(self.undone(undone))
        self.changed()
        return True

    def undone(self, event):
        """Return what an undo undid, in words; an undone setting goes back in the settings
        file too, so that the game and the settings agree."""
        if event is None:
            return "Undone"
        if event[0] != "set":
            return "Undone: " + event[0]
        key = event[1][0]
        settings = getattr(self.game, "settings", None)
        if settings is not None:
            index = spec_index(settings.specs, key)
            value = settings.slots[index] if index >= 0 else self.values.get(key)
            if value != self.values.get(key):  # (None: the value is to be asked again)
                self.values[key] = value
                if self.hold:  # the file is written after the frame (see flush)
                    self.pending.append((self.ms, None, None))
                else:
                    self.storage.save_settings(encode(self.values))
        spec = self.spec(key)
        return "Undone: " + (spec[4] if spec is not None else key)
