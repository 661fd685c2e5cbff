"""The Board: the parts the app uses (docs/ARCHITECTURE.md), a plain object. Shell code, built by
dicepod.board.assemble(); kept apart from board.py so that board.py (pins, assembly) leaves RAM
once the board is built (firmware/main.py)."""


class Board:
    """The parts the app uses (docs/ARCHITECTURE.md); a plain object."""

    def __init__(self, **parts):
        self.display = None
        self.buttons = None
        self.randbelow = None
        self.storage = None
        self.power = None
        self.usb = None
        self.beeper = None
        self.device_id = ""
        self.new_id = None  # () -> 16 random hex digits: a new journal's identity
        self.settings = {}  # the device's settings (dicepod.device), defaults filled in
        self.saved = None  # the players' saved values as read at boot ({key: int}), or None
        self.notices = ()  # lines about the settings file to show once the app has started
        self.ticks_ms = None
        self.ticks_diff = None
        self.sleep_ms = None
        for name in parts:
            setattr(self, name, parts[name])
