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
    and how many restarts the lines show (the clock of each line counts from its boot). Each
    line is read for its fields (game, clock, the event's kind), never decoded whole."""
    games = []
    segments = journal.storage.segments()
    if not segments:
        return games, 0
    boots = 0
    last_ms = -1
    game = None
    for seg, offset, line in journal.lines(0, segments[-_SEGMENTS:][0]):
        a = line.find(b" ") + 1  # SEQ GAME MS PREV EVENT CRC
        b = line.find(b" ", a)
        c = line.find(b" ", b + 1)
        event = line.find(b" ", c + 1) + 1
        if line[:1] == b"!" or not 0 < a < b < c < event:
            continue
        try:
            gid = int(line[a:b])
            ms = int(line[b + 1 : c])
        except ValueError:
            continue
        if ms < last_ms:
            boots += 1  # the clock went back: a restart
        last_ms = ms
        if line.startswith(b'["new_game",["', event):
            for name, _words in modes.MODES:
                if line.startswith(name.encode(), event + 14):
                    game = [gid, name, seg, offset, ms, ms, boots, boots, 0]
                    games.append(game)
                    if len(games) > _GAMES:
                        games.pop(0)
            continue
        if game is None or gid != game[0]:
            continue
        game[5] = ms
        game[7] = boots
        if line.startswith(b'["undo"', event):
            game[8] -= 1
        elif not line.startswith(b'["set"', event):
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
            # its glyph buffer are 1-2 KB more where the heap is tightest, leaving a game)
            item = title(game[1])
            if len(item) > 12:
                item = game[1][0].upper() + game[1][1:]
            items.append("#" + str(game[0]) + " " + item)
        self.items = items or ["(no game yet)"]

    def choose(self, app, index):
        """A game's page (dicepod.ui.historypage, imported only now)."""
        games, boots = self.values
        if not games:
            return None
        from dicepod.ui.historypage import current

        return current(app, games[index], boots)
