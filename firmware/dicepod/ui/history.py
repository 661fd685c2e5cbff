"""History people can read: from the main menu the past games, newest first ('#3 Battle
Game'); OK on one opens its page in words (dicepod.ui.historypage: when, how long, players,
result, its moves). Pure; a passing screen (loaded only while open). The journal is only read:
the lines of its last _SEGMENTS segments are streamed (the PC keeps everything), split into
fields without decoding their events, so the list costs a few ints per game."""

from micropython import const

from dicepod.rules import modes
from dicepod.ui.lists import ListScreen

# Most games listed, and how far back the list reads (segments of at most 8 KB).
_GAMES = const(20)
_SEGMENTS = const(12)


def title(mode):
    """A mode's title on the menu ('Battle Game'), or the name itself."""
    for name, words in modes.MODES:
        if name == mode:
            return words
    return mode


def scan(journal):
    """Return the games the journal's last segments begin, oldest first, each
    [game id, mode, seg, offset, first ms, last ms, boots at start, boots at end, moves],
    and how many restarts the lines show (the clock of each line counts from its boot).

    Each segment's lines come straight from the storage (no decoding, no tuple a line: a few
    finds and one int, the clock; the game id only from a new_game line: the lines after it
    are that game's until the next one). A line is skipped when it is a header or a break
    line, torn (no newline: a failed write's, written again in the next segment), or the
    first line of a segment repeating the line before it (a failed write that did land)."""
    games = []
    storage = journal.storage
    segments = storage.segments()
    boots = 0
    last_ms = -1
    game = None
    before = b""  # the previous line
    for seg in segments[-_SEGMENTS:]:
        offset = 0
        first = True
        for line in storage.lines(seg):
            at = offset
            offset += len(line)
            if line[0] == 64 or line[0] == 33 or line[-1] != 10:  # "@", "!", torn
                continue
            a = line.find(b" ") + 1  # SEQ GAME MS PREV EVENT CRC
            b = line.find(b" ", a)
            c = line.find(b" ", b + 1)
            if not 0 < a < b < c:
                continue
            if first:
                first = False
                if line[:a] == before[:a]:
                    continue
            before = line
            try:
                ms = int(line[b + 1 : c])
            except ValueError:
                continue
            if ms < last_ms:
                boots += 1  # the clock went back: a restart
            last_ms = ms
            c += 10  # the event, after PREV (8 hex digits)
            if line.startswith(b'["new_game",["', c):
                for name, _words in modes.MODES:
                    if line.startswith(name.encode(), c + 14):
                        try:
                            game = [int(line[a:b]), name, seg, at, ms, ms, boots, boots, 0]
                        except ValueError:
                            break
                        games.append(game)
                        if len(games) > _GAMES:
                            games.pop(0)
                continue
            if game is None:
                continue
            game[5] = ms
            game[7] = boots
            if line.startswith(b'["undo"', c):
                game[8] -= 1
            elif not line.startswith(b'["set"', c):
                game[8] += 1
    return games, boots


class History(ListScreen):
    """The past games, newest first; OK opens one in words. (Few names of its own: each new
    name is interned for good when the module loads, in the heap a game just left.)"""

    def __init__(self, app):
        super().__init__("History", [])
        games, boots = scan(app.session.journal)
        games.reverse()
        self.values = (games, boots)
        items = []
        for game in games:
            # 15 columns at most: the list stays in the 8×8 font (the 6×8 font's code and
            # its glyph buffer are 1-2 KB more where the heap is tightest, leaving a game).
            # One string made a row (each string made searches the names interned so far:
            # ~0.1 ms on a Pico; "#" + str(n) + " " + title made three).
            item = title(game[1])
            if len(item) > 12:
                item = "#%d %s%s" % (game[0], game[1][0].upper(), game[1][1:])
            else:
                item = "#%d %s" % (game[0], item)
            items.append(item)
        self.items = items or ["(no game yet)"]

    def choose(self, app, index):
        """A game's page (dicepod.ui.historypage, imported only now)."""
        games, boots = self.values
        if not games:
            return None
        from dicepod.ui.historypage import current

        return current(app, games[index], boots)
