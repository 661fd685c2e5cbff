"""History people can read: from the main menu the past games, newest first ('#3 Battle
Game'); OK on one opens its page in words (dicepod.ui.historypage: when, how long, players,
result, its moves). Pure; a shared screen (dicepod.ram). The journal is only read:
the lines of its last _SEGMENTS segments are streamed (the PC keeps everything), split into
fields without decoding their events, so the list costs a few ints per game."""

from micropython import const

from dicepod.rules import modes
from dicepod.ui.lists import ListScreen

# Most games listed, and how far back the list reads (segments of at most 8 KB).
_GAMES = const(20)
_SEGMENTS = const(12)
_SEG_BYTES = const(8192)  # (dicepod.journal's: its segments' largest size)


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

    Each segment is read in one piece into one buffer (storage.read_into: one allocation for
    the whole scan; a segment larger than the buffer is read in one piece, a heap with no
    room for the buffer or that piece falls back to its lines) and its lines are
    looked at where they lie: a few finds and one int, the clock, a line (no decoding, no
    tuple); the game id only from a new_game line: the lines after it are that game's until
    the next one. A line is skipped when it is a header or a break line, torn (no newline: a
    failed write's, written again in the next segment), or the first line of a segment
    repeating the line before it (a failed write that did land)."""
    games = []
    storage = journal.storage
    segments = storage.segments()[-_SEGMENTS:]
    boots = 0
    last_ms = -1
    game = None
    before = b""  # the SEQ (and the space after it) of the last line looked at
    try:
        buf = bytearray(_SEG_BYTES)
    except MemoryError:
        buf = None
    for seg in segments:
        size = -1 if buf is None else storage.read_into(seg, buf)
        if buf is not None and size >= 0:
            pieces = (buf,)
        else:
            try:
                pieces = (storage.segment(seg),)
            except MemoryError:
                pieces = storage.lines(seg)
        base = 0  # the piece's offset in the segment
        first = True
        last = None  # the piece of the last line looked at, where it starts, its SEQ's end
        last_at = last_seq = 0
        for data in pieces:
            stop = size if size >= 0 else len(data)  # (the buffer's bytes past it: stale)
            at = 0
            while True:
                end = data.find(b"\n", at, stop) + 1
                if not end:  # torn (or the piece's end)
                    break
                line = at
                at = end
                if data[line] == 64 or data[line] == 33:  # "@", "!"
                    continue
                a = data.find(b" ", line, end) + 1  # SEQ GAME MS PREV EVENT CRC
                b = data.find(b" ", a, end)
                c = data.find(b" ", b + 1, end)
                if not line < a < b < c:
                    continue
                if first:
                    first = False
                    if data[line:a] == before:
                        continue
                last = data
                last_at = line
                last_seq = a
                try:
                    ms = int(data[b + 1 : c])
                except ValueError:
                    continue
                if ms < last_ms:
                    boots += 1  # the clock went back: a restart
                last_ms = ms
                c += 10  # the event, after PREV (8 hex digits)
                if data.startswith(b'["new_game",["', c):
                    for name, _words in modes.MODES:
                        if data.startswith(name.encode(), c + 14):
                            try:
                                gid = int(data[a:b])
                            except ValueError:
                                break
                            game = [gid, name, seg, base + line, ms, ms, boots, boots, 0]
                            games.append(game)
                            if len(games) > _GAMES:
                                games.pop(0)
                            break  # (no mode's name begins another's)
                    continue
                if game is None:
                    continue
                game[5] = ms
                game[7] = boots
                if data.startswith(b'["undo"', c):
                    game[8] -= 1
                elif not data.startswith(b'["set"', c):
                    game[8] += 1
            base += stop
        if last is not None:  # (the next segment's first line may repeat it)
            before = last[last_at:last_seq]
    return games, boots


class History(ListScreen):
    """The past games, newest first; OK opens one in words. (Few names of its own: each new
    name is interned for good when the module loads, in the heap a game just left.)"""

    def __init__(self, app):
        super().__init__("History", [])
        journal = app.session.journal
        games, boots = scan(journal)
        games.reverse()
        self.values = (games, boots)
        items = []
        for game in games:
            # 15 columns at most: the list stays in the 8×8 font. One string made a row
            # (each string made searches the names interned so far).
            item = title(game[1])
            if len(item) > 12:
                item = "#%d %s%s" % (game[0], game[1][0].upper(), game[1][1:])
            else:
                item = "#%d %s" % (game[0], item)
            items.append(item)
        self.items = items or ["(no game yet)"]

    def choose(self, app, index):
        """A game's page (dicepod.ui.gamemenu.page), in the next pass: it reads the journal."""
        games, boots = self.values
        if not games:
            return None
        from dicepod.ui.gamemenu import page

        return app.later(page, games[index], boots)
