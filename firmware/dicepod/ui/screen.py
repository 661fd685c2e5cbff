"""The Screen base and the button codes the screens see. Pure: runs on MicroPython and CPython.

The app owns a stack of screens. A screen's on_button/tick returns its transition:
    None          stay
    a Screen      push it
    POP           pop this screen
    HOME          pop back to the main menu
    Replace(s)    pop this screen and push s
    Reset(s)      pop back to the main menu and push s (s None: just the menu)
    NewGame(m)    pop back to the main menu and start a new game of mode m (its screen on top)
A screen sets self.dirty when what it shows has changed; the app redraws only then.
"""

# Button codes, one bit each: the one place they are defined. The buttons driver reports them
# (dicepod.drivers.buttons imports the four presses from here; docs/ARCHITECTURE.md): UP and
# DOWN on the press (and each auto-repeat while held); OK and BACK on release (a tap), or, held
# past the long-press time, the long press (the bit shifted left by 4) and no tap.
UP = 1
DOWN = 2
OK = 4
BACK = 8
LONG_OK = 64
LONG_BACK = 128

# Transitions (ints, so returning one allocates nothing).
POP = -1
HOME = -2

WIDTH = 128
HEIGHT = 64


class Replace:
    """Transition: pop the current screen and push screen."""

    def __init__(self, screen):
        self.screen = screen


class Reset:
    """Transition: pop back to the main menu, then push screen (if not None)."""

    def __init__(self, screen=None):
        self.screen = screen


class NewGame:
    """Transition: pop back to the main menu, then start a new game of mode. A Confirm's
    answer too (calling it returns itself): the question and its screens are gone before the
    mode's code is loaded."""

    def __init__(self, mode):
        self.mode = mode

    def __call__(self, app):
        return self


def wrap(text, width=16):
    """Split text into lines of at most width characters, at spaces where possible. A text
    that fits is its own line, with no string made (MicroPython searches the interned names
    for every string made at run time)."""
    if len(text) <= width and "\n" not in text and not text.startswith(" "):
        return [text]
    lines = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            while len(word) > width:
                if line:
                    lines.append(line)
                    line = ""
                lines.append(word[:width])
                word = word[width:]
            if not line:
                line = word
            elif len(line) + 1 + len(word) <= width:
                line += " " + word
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return lines


class Screen:
    """Base screen: does nothing, draws nothing. Subclasses set dirty when their state changes."""

    # True for the screen of a game in progress: long BACK there undoes the last event.
    game_screen = False

    def __init__(self):
        self.dirty = True

    def on_button(self, app, button):
        """Handle one button code; return a transition (see the module docstring)."""
        if button == BACK:
            return POP
        return None

    def tick(self, app, dt_ms):
        """Advance time by dt_ms; return a transition."""
        return None

    def idle(self, app, stop):
        """Do some work ahead of the next press (work a press would otherwise wait for), in a
        pass with nothing else to do and no finger down; stop between steps once stop() is
        true (a press came). Return True if there was any."""
        return False

    def on_show(self, app):
        """Called when the screen becomes the top of the stack (pushed, or uncovered)."""
        self.dirty = True

    def on_event(self, app):
        """Called after the game changed (an event was applied or undone)."""
        self.dirty = True

    def draw(self, canvas):
        """Draw the whole screen on canvas (the app cleared it first)."""
