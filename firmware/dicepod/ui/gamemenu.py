"""A game's own menu (long OK in a game): the mode's entries, a quick roll, Help, Undo, New
game, History, Settings, Main menu. Pure."""

from dicepod.ui.lists import Confirm, ListScreen, Pick
from dicepod.ui.screen import POP, NewGame, Replace, Reset

_QUICK = ("1 die", "2 dice", "3 dice", "4 dice", "5 dice", "6 dice", "D3", "Roll-off 2D6")


class GameMenu(ListScreen):
    """A game's menu (long OK in a game): the mode's own entries, then Help, Undo, New game,
    History, Settings, Main menu. extra: ((label, function(app) -> transition), ...)."""

    def __init__(self, app, extra=()):
        self.extra = extra
        items = [label for label, _f in extra]
        items.extend(("Quick roll", "Help", "Undo", "New game", "History", "Settings"))
        items.append("Main menu")
        super().__init__("Menu: %s" % app.session.mode, items)

    def choose(self, app, index):
        """Run the chosen entry."""
        if index < len(self.extra):
            return self.extra[index][1](app)
        label = self.items[index]
        if label == "Quick roll":  # in place of this menu: closed, the game is on top again
            return Replace(Pick("Quick roll", list(_QUICK), [1, 2, 3, 4, 5, 6, 7, 8], 0, quick))
        if label == "Help":
            from dicepod.ui.help import Help

            return Help(app.session.mode)
        if label == "Undo":
            app.undo()
            return POP
        if label == "New game":
            return Confirm(
                "New game?", "End this game and start a new one?", NewGame(app.session.mode)
            )
        if label == "History":
            return app.later(page)  # the game's turns are read from the journal
        if label == "Settings":
            from dicepod.ui.settings import ModeSettings

            return ModeSettings(app, app.session.mode)
        return Reset()


def page(app, *game):
    """A game's page (dicepod.ui.historypage.current; its code imported here, in the pass after
    the press: app.later)."""
    from dicepod.ui.historypage import current

    return current(app, *game)


def quick(app, what):
    """A quick roll beside the game (1-6 dice, a D3, a two-player 2D6 roll-off, ties thrown
    again): journalled as an app event ("quick", (what, face, ...)) that a fold steps over and
    an undo passes, so the game goes on where it was; the result is shown over the game."""
    from dicepod.ui.message import Message

    faces = []
    if what == 8:
        lines = []
        for _ in range(7):  # a tie is thrown again (at most 7 throws: one journal line)
            throw = [app.randbelow(6) + 1 for _ in range(4)]
            faces.extend(throw)
            a = throw[0] + throw[1]
            b = throw[2] + throw[3]
            lines.append("P1 %d  P2 %d" % (a, b))
            if a != b:
                lines.append("P%d wins" % (1 if a > b else 2))
                break
    elif what == 7:
        face = app.randbelow(6) + 1
        faces.append(face)
        lines = ["D3: %d" % ((face + 1) // 2), "(from a %d)" % face]
    else:
        for _ in range(what):
            faces.append(app.randbelow(6) + 1)
        lines = [" ".join([str(f) for f in faces]), "Total %d" % sum(faces)]
    session = app.session
    session.record(("quick", tuple([what] + faces)))
    session.trailing += 1  # not a move: an undo passes it (as a crash record)
    return Replace(Message("Quick roll", lines))
