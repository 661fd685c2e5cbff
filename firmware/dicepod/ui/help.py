"""Help: what the buttons do and what the screen's fields mean, one text per mode, from the
game's menu. Pure; a shared screen (dicepod.ram). The text is wrapped to the
6×8 font's 21 columns and shown a page (six lines) at a time, the title saying which page of
how many; DOWN and OK turn to the next page, UP to the one before; OK on the last page or BACK
closes."""

from micropython import const

from dicepod.ui.message import Message
from dicepod.ui.screen import BACK, DOWN, OK, POP, UP

_LINES = const(6)  # lines on a page (Message draws six)

_BUTTONS = (
    "Buttons: UP and DOWN choose (hold to repeat). OK does the chosen thing when you let go. "
    "Hold OK in a game: its menu. BACK: the main menu (the game stays). Hold BACK in a game: "
    "undo the last move. Elsewhere a hold is a slow tap."
)

TEXTS = (
    (
        "free",
        "Free roll. OK rolls the dice; UP and DOWN change how many. Each bar counts a face "
        "rolled so far, its count above it (12k: twelve thousand); the dotted line is the "
        "count a fair die is expected to give. Menu: Auto-roll 10, 100 or 1000 rolls by "
        "itself (OK pauses and goes on, BACK stops). Show sums: a bar for each sum of the "
        "dice, the dots the count a fair die is expected to give each sum. Reset counts "
        "starts the counts again (undo brings them back). Show %: each face's share of the "
        "dice instead of its count. Class mode: the display stays on and the counts are big. "
        "Loaded die: face 6 comes up three times as often as each other face; LOADED and "
        "the weights stay on the screen and go with every roll into the log. Fairness test "
        "rolls many dice and says how often a fair die would be this uneven (chi-square, 5 "
        "degrees of freedom); less than 1% of the time: Not fair?",
    ),
    (
        "battle",
        "Battle Game, two players. OK rolls six dice. Choose a scoring roll to set aside "
        "(triangles mark its dice; x2: two of them), then push your luck: the screen says "
        "which dice you keep and which you re-roll, and the chance to bust. The first offer "
        "is the least likely to bust; UP from it is Stop. Solid dice: set aside; thick "
        "frames: kept; small pips: re-rolled. BUST: the rolls set aside are lost, the other "
        "player goes on. ALL OUT!: every die set aside; the same player has an extra turn "
        "(P1 AGAIN). After a turn the actions it bought move your heroes (Heroes in the "
        "menu): across counts heroes in the other half; 3 across and the higher score win.",
    ),
    (
        "tests",
        "Tests. UP and DOWN choose an action on the bottom line, OK does it: the number of "
        "dice, the target number (TN: a die at or above it is a success), modifiers, then "
        "Roll. Lit dice are successes; P>= is the chance of at least that many. Re-roll "
        "fails rolls the failed dice again; Roll-off is 2D6 each; D3 reads a die as 1 "
        "to 3.",
    ),
    (
        "tyranid",
        "Tyranid Attack!, co-operative. Pick a level, then the team. Each round reveals "
        "activation cards one by one; the Marine on the card acts (Move, Attack, other "
        "actions) and ends his turn. Attacks roll the dice and say hit or miss. Team and "
        "Bag (on the bottom line) list your Marines and what the bag holds. The title: "
        "level, round, infestation cards left of the deck (L1 R1 Inf 23/23 when long). "
        "Board T G L: Termagants, Genestealers, Lictors on the board.",
    ),
    (
        "orks",
        "Rise of the Orks, co-operative. Pick a difficulty. Each round Orks are added, the "
        "Terminators act one by one (Move, Attack, Supply token), then the Orks attack: "
        "enter their hits and the damage. Values from your cards are asked once and kept "
        "in Settings. The title R1 G3 Rx6 Ork4: round 1, grit 3, 6 reactors standing, 4 "
        "Orks on the board. Terminators in the menu: damage of 5 and kills.",
    ),
)


def text(mode):
    """The help text of a mode (every page ends with the buttons)."""
    for name, words in TEXTS:
        if name == mode:
            return words + " " + _BUTTONS
    return _BUTTONS


class Help(Message):
    """A mode's help in the 6×8 font, page by page ("Help 2/4" in the title)."""

    def __init__(self, mode, title="Help"):
        super().__init__(title, (text(mode),), True)
        self.name = title
        self.pages = (len(self.lines) + _LINES - 1) // _LINES
        self.title = self.heading()

    def heading(self):
        """The title with the page shown and the number of pages."""
        return "%s %d/%d" % (self.name, self.top // _LINES + 1, self.pages)

    def on_button(self, app, button):
        """Turn a page; close after the last page or on BACK."""
        if button == BACK:
            return POP
        if button == DOWN or button == OK:
            if self.top + _LINES >= len(self.lines):
                return POP if button == OK else None
            self.top += _LINES
        elif button == UP and self.top:
            self.top -= _LINES
        else:
            return None
        self.title = self.heading()
        self.dirty = True
        return None
