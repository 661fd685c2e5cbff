"""A game's page in words (from History or a game's menu): when and how long it was played,
players and result, then its moves, from the game as it stood before each (who played it).
Pure; a shared screen (dicepod.ram). The game is folded again through its mode's rules while
the page is built (from the main menu no other game is in RAM then; from a game's menu its mode
is loaded already)."""

from micropython import const

from dicepod.journal import game_event
from dicepod.rules import modes
from dicepod.settings import Settings
from dicepod.ui.history import title
from dicepod.ui.message import Message

# Most moves in words kept for a page (the newest; the journal has them all).
_KEEP = const(60)


def events(journal, game, keys=None):
    """Iterate a listed game's effective events (undo applied: two passes over its lines);
    none when keys (the buttons driver) latch a press during the first pass."""
    marks = bytearray()
    for event in _raw(journal, game):
        marks.append(1 if event[0] == "undo" else 0)
        if keys is not None and not len(marks) & 7 and keys.latched():
            return
    pending = 0
    i = len(marks) - 1
    while i >= 0:
        if marks[i]:
            pending += 1
            marks[i] = 0
        elif pending and i:  # never the new_game
            pending -= 1
        else:
            marks[i] = 1
        i -= 1
    i = 0
    for event in _raw(journal, game):
        if i < len(marks) and marks[i]:
            yield event
        i += 1


def _raw(journal, game):
    """Iterate a listed game's raw events, from its new_game line to the next game (read as
    the game's fold reads them: journal.game_event, the checksum and the event, no more)."""
    for _seg, _offset, line in journal.lines(0, game[2], game[3]):
        try:
            entry = game_event(line)
        except ValueError:
            continue
        if entry[0] != game[0]:
            if entry[0] > game[0]:
                return
            continue
        yield entry[1]


def ago(game, boots, now):
    """When a game was played: '14 min ago', or 'before a restart' (no clock across one)."""
    if game[7] != boots or now < game[5]:
        return "before a restart"
    minutes = (now - game[5]) // 60000
    if minutes < 1:
        return "just now"
    if minutes < 60:
        return "%d min ago" % minutes
    return "%dh %02dmin ago" % (minutes // 60, minutes % 60)


def current(app, game=None, boots=0):
    """A game's page: a listed game (see dicepod.ui.history.scan for its fields), or the
    current one (from the game's menu: its mode is loaded). None when a press came while the
    page was built (Page): the press is swallowed and the screen under the Loading... band
    comes back, as a long game's page takes a while on a Pico and a finger need not wait."""
    session = app.session
    journal = session.journal
    if game is None:
        head = ["%d moves so far." % session.moves]
        heading = "#%d %s" % (journal.game, title(session.mode))
        built = Page(app, session.mode, heading, head, journal.game_events())
    else:
        head = ["Played %s, %d moves." % (ago(game, boots, session.ms), game[8])]
        if game[6] == game[7]:
            minutes = (game[5] - game[4]) // 60000
            head.append("Lasted %d min." % minutes if minutes else "Lasted under a minute.")
        heading = "#%d %s" % (game[0], title(game[1]))
        built = Page(app, game[1], heading, head, events(journal, game, app.board.buttons))
    if built.lines is None:
        app.board.buttons.mute()
        return None
    return built


class Page(Message):
    """A game in words, in the 6×8 font: what it was, its result, then its moves (the newest
    _KEEP); UP/DOWN scroll, OK or BACK closes (Message's). A press the pins' IRQ latched while
    it is built stops it: lines is None then (see current)."""

    def __init__(self, app, mode, heading, head, stream):
        moves = []
        dropped = 0
        game = None
        keys = app.board.buttons
        try:
            module = modes.module(mode)
            game = module.Game(Settings(module.SETTINGS))
        except (ValueError, ImportError):
            module = None
        for event in stream:
            if keys.latched():  # (a move's words and fold take ms a piece on a Pico)
                self.lines = None
                return
            text = ""
            if game is not None:
                text = say(mode, module, game, event)
                try:
                    game.apply(event)
                except ValueError:
                    game = None  # the rest as it is written
                if game is not None and event[0] == "end_turn" and mode == "battle":
                    if game.phase == "over":
                        text += ": P%d wins %d:%d" % (game.winner + 1, game.score(0), game.score(1))
            else:
                text = plain(event)
            if text:
                moves.append(text)
                if len(moves) > _KEEP:
                    moves.pop(0)
                    dropped += 1
        if keys.latched():  # (the stream may have stopped for it)
            self.lines = None
            return
        if game is not None:
            head.append(summary(mode, game))
        head.append("Moves, first to last:" if dropped == 0 else "The last %d moves:" % _KEEP)
        head.extend(moves)
        super().__init__(heading, head, True)


# Moves without data in words (the others: their kind, then their values).
_WORDS = const(
    (
        ("end_turn", "End of the turn"),
        ("next", "Next phase"),
        ("shuffle", "New round: activation deck shuffled"),
        ("deck_out", "Infestation deck ran out"),
        ("add_tyranid_card", "A Tyranid card added"),
        ("clear_mods", "Modifiers cleared"),
        ("heal", "Healed 1"),
        ("smash", "A reactor lost"),
        ("move", "Move"),
        ("action", "Other action"),
        ("reset", "Counts started again"),
    )
)


def plain(event):
    """An event in words where known, else as it is written, kind in words: 'roll 3 1 6'."""
    kind, data = event
    if kind == "new_game" or kind == "undo":
        return ""
    for name, words in _WORDS:
        if name == kind and not data:
            return words
    return " ".join([kind.replace("_", " ")] + [str(v) for v in data])


def _dice(values):
    return " ".join([str(v) for v in values])


def say(mode, module, game, event):
    """One move in words, from the game as it was before it (who played it)."""
    kind, data = event
    if kind == "new_game":
        return ""
    if kind == "set":
        for spec in module.SETTINGS:
            if spec[0] == data[0]:
                return "%s: %s" % (spec[4], data[1])
        return plain(event)
    if mode == "battle":
        return _battle(game, kind, data)
    if kind == "roll":
        return "Rolled " + _dice(data)
    if mode == "tyranid":
        return _tyranid(module, kind, data) or plain(event)
    if mode == "orks":
        return _orks(module, kind, data) or plain(event)
    if mode == "tests":
        return _tests(kind, data) or plain(event)
    if kind == "selftest":
        return "Fairness test of %d dice" % data[0]
    return plain(event)


def _tests(kind, data):
    if kind == "tn":
        return "Target number %d+" % data[0] if data[0] else "No test (dash)"
    if kind == "mod":
        return "Modifier %s %+d" % (data[0], data[1])
    if kind == "unmod":
        return "Modifier %s removed" % data[0]
    if kind == "reroll":
        return "Re-rolled die %d: %d" % (data[0] + 1, data[1])
    if kind == "rolloff":
        return "Roll-off: " + _dice(data)
    if kind == "d3" or kind == "d3p1":
        return "D3%s from a %d" % ("+1" if kind == "d3p1" else "", data[0])
    return ""


def _battle(game, kind, data):
    from dicepod.rules import scoring

    who = "P%d" % (game.player + 1)
    if kind == "roll":
        return "%s rolled %s" % (who, _dice(data))
    if kind == "set_aside":
        combos = []
        combo = []
        for v in list(data) + [0]:
            if v:
                combo.append(v)
            elif combo:
                combos.append(tuple(combo))
                combo = []
        return "%s set aside %s" % (who, scoring.names(combos))
    if kind == "reroll":
        k = data[0]
        kept = _dice(data[1 : 1 + k])
        return "%s kept %s, rolled %s" % (who, kept or "none", _dice(data[1 + k :]))
    if kind == "bust":
        n = len(game.aside)
        return "%s bust, lost %d roll%s" % (who, n, "" if n == 1 else "s")
    if kind == "actions":
        return "%s stopped: %s" % (who, scoring.names(game.aside))
    if kind == "advance" or kind == "retreat":
        n = data[2] if len(data) > 2 else 1
        verb = "advanced" if kind == "advance" else "pushed back"
        return "P%d hero %d %s %d" % (data[0] + 1, data[1] + 1, verb, n)
    if kind == "end_turn":
        return "%s ended the turn" % who
    if kind == "next_game":
        return "Game %d: P%d set up first" % (game.game_number + 1, data[0] + 1)
    return plain((kind, data))


def _tyranid(module, kind, data):
    if kind == "activate":
        card = data[0]
        if card == module.TYRANID_CARD:
            return "Card: Tyranids"
        return "Card: " + module.MARINES[card]
    if kind == "attack":
        return "Attack on %s: rolled %d" % (module.KINDS[data[0]], data[1])
    if kind == "place" and data:
        return "Placed a " + module.KINDS[data[0]]
    if kind == "wound":
        return module.MARINES[data[0]] + " wounded"
    if kind == "result":
        return "Result: " + module.RESULTS[data[0]]
    if kind == "start":
        team = ", ".join([module.MARINES[m] for m in data[2:]])
        return "Level %d%s: %s" % (data[0], " (campaign)" if data[1] else "", team)
    if kind == "exit":
        return "%d Marines on the exit tile" % data[0]
    return ""


def _orks(module, kind, data):
    if kind == "add":
        return "%s to breach hex %d" % (module.KINDS[data[0]], data[1])
    if kind == "attack":
        return "Attack on %s: rolled %d" % (module.KINDS[data[0]], data[1])
    if kind == "destroy":
        return module.KINDS[data[0]] + " destroyed"
    return ""


def summary(mode, game):
    """Players and result of a folded game."""
    if mode == "battle":
        text = "Players P1 and P2. "
        results = game.results
        for i in range(len(results)):
            text += "Game %d: %d:%d. " % (i + 1, results[i][0], results[i][1])
        if game.series_over():
            winner = game.series_winner()
            text += "Series: tie." if winner is None else "Series won by P%d." % (winner + 1)
        elif game.winner is None:
            text += "Game %d in progress, turn %d." % (game.game_number, game.turn)
        return text
    if mode == "tyranid":
        from dicepod.rules import tyranid

        team = [tyranid.MARINES[m] for m in range(5) if game.in_play[m]]
        text = "Team: %s. Level %d." % (", ".join(team) or "not chosen", game.level)
        if game.result is not None:
            text += " Result: %s." % tyranid.RESULTS[game.result]
        return text
    if mode == "orks":
        from dicepod.rules import orks

        text = "Terminators: all five. %s, round %d." % (
            orks.DIFFICULTIES[game.difficulty],
            game.round,
        )
        if game.result is not None:
            text += " Victory." if game.result == orks.WON else " Defeat."
        return text
    return "Any number of players."
