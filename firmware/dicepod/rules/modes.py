"""The game modes and where their rules live. Pure: runs on MicroPython and CPython.

Every mode module (dicepod.rules.<name>) defines SETTINGS (see dicepod.settings) and a class
Game with Game(settings) and Game.apply(event). The journal, the USB log and `dicepod verify`
name a mode by these strings, so they never change.
"""

# (mode name, title on the menu)
MODES = (
    ("battle", "Battle Game"),
    ("tests", "Tests"),
    ("tyranid", "Tyranid Attack!"),
    ("orks", "Rise of the Orks"),
    ("free", "Free roll"),
)


def rules_name(name):
    """Return the name of a mode's rules module: dicepod.rules.<name>, but the Tests mode's is
    dicepod.rules.tn (for the Target Number: a module named tests reads as a test file)."""
    return "dicepod.rules." + ("tn" if name == "tests" else name)


def module(name):
    """Return the rules module for a mode name (rules_name); raise ValueError for an unknown
    one."""
    for mode, _title in MODES:
        if mode == name:
            return __import__(rules_name(mode), None, None, ("Game",))
    raise ValueError("unknown mode %s" % name)
