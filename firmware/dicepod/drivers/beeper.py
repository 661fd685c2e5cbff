"""Beeper: short non-blocking tones and tunes on the optional piezo (PWM).

Driver (shell code). `Beeper(pwm)` takes a built machine.PWM on the piezo pin (or None: every
call does nothing, so the app need not care whether a piezo is fitted). `play(tune)` starts a
tune and returns at once: bytes, two a note, (frequency in tens of Hz, length in tens of ms);
frequency 0 is a rest. `update(dt_ms)` (once per app tick) moves to the next note when the
current one's time is up (each note sounds at least its length, however long a tick was) and
silences the piezo after the last; `left_ms` > 0 while a tune sounds (drivers/idlesleep.py
reads it). `configure(values)` reads the device setting device.volume
(dicepod.device: 0 Mute, 1 Soft, 2 Medium, 3 Loud): the PWM duty (a square wave at 50 % duty
is a piezo's loudest).

What sounds when: the session calls before(mode, game) and after(kind, mode, game) around each
move it plays (dicepod.session); they use two pure functions of the game (no machine, no
state). outcome(mode, game) sums up where a game stands, as the tune of it (WIN a fanfare,
BUST falling: a roll that cannot score or a game lost, ALL_OUT rising: every die set aside;
None), and tune(kind, before, after) picks the tune for a move of that kind that took the game
from the outcome before to the one after: the new outcome's, else ROLL (a click) for a move
that rolls dice, else None (silence). An undo sounds nothing.
"""

from micropython import const

# PWM duty (of 65535) for each volume step, 0 Mute .. 3 Loud.
_DUTY = const((0, 1000, 6000, 32768))
_LOUD = const(3)

# The tunes, (frequency // 10, ms // 10) a note; each names the outcome it sounds.
ROLL = b"\xf0\x02"  # 2400 Hz for 20 ms: a click
BUST = b"\x42\x0c\x2c\x0c\x1d\x1e"  # 660, 440, 290 Hz: falling (a bust, a lost game)
ALL_OUT = b"\x69\x09\x84\x09\x9d\x09\xd1\x16"  # 1050, 1320, 1570, 2090 Hz: rising
WIN = b"\x69\x0c\x84\x0c\x9d\x0c\x00\x06\xd1\x28"  # C E G, a rest, high C: a fanfare


def outcome(mode, game):
    """Where the game stands, as the tune of it: BUST (a roll that cannot score, or a game
    lost), ALL_OUT (every die set aside), WIN, or None. Pure."""
    if mode == "battle":
        phase = game.phase
        if phase == "over":
            return WIN
        if phase == "bust":
            return BUST
        return ALL_OUT if game.all_out else None
    result = getattr(game, "result", None)  # the co-op modes' end
    if result is None or mode == "tyranid" and result == 1:  # (rules.tyranid DRAW)
        return None
    # rules.orks WON is 1 (LOST_* 2, 3); rules.tyranid MINOR, MAJOR, WIN are 2, 3, 4 (LOSS 0)
    if mode == "orks" and result == 1 or mode == "tyranid" and result > 1:
        return WIN
    return BUST


def tune(kind, before, after):
    """The tune for a move of kind that took the game from outcome before to after, or None:
    a new outcome's tune, else a click for a move that rolls dice (rules/*.py: roll, reroll,
    rolloff, D3, an attack, the console, the Lictor's square, an Ork's breach hex)."""
    if after is not None and after != before:
        return after
    if "roll" in kind or kind in ("d3", "d3p1", "attack", "console", "lictor", "add"):
        return ROLL
    return None


class Beeper:
    """One tune at a time; a new one replaces what is sounding."""

    def __init__(self, pwm=None):
        self.pwm = pwm
        self.volume = 2  # device.volume's default (configure())
        self.left_ms = 0  # of the note (or rest) sounding; 0: nothing is (idlesleep reads it)
        self.notes = b""
        self.next = 0  # index of the next note in notes
        self.was = None  # the game's outcome before the move being played (before())
        if pwm is not None:
            pwm.duty_u16(0)

    def configure(self, values):
        """Apply the device setting device.volume (a value out of range is ignored)."""
        volume = values.get("device.volume", self.volume)
        if 0 <= volume <= _LOUD:
            self.volume = volume
        if not self.volume and self.pwm is not None:  # muted: silent at once
            self.left_ms = 0
            self.pwm.duty_u16(0)

    def before(self, mode, game):
        """A move is about to be played in game: note where it stands."""
        self.was = outcome(mode, game)

    def after(self, kind, mode, game):
        """The move (of kind) was played: sound it (tune())."""
        self.play(tune(kind, self.was, outcome(mode, game)))

    def play(self, notes):
        """Start a tune (see the module docstring) at once; None or b"" plays nothing."""
        if self.pwm is not None and notes and self.volume:
            self.notes = notes
            self.next = 0
            self.left_ms = 1
            self.update(1)

    def update(self, dt_ms):
        """The next note, or silence, when the current one's time is up."""
        if self.left_ms <= 0:
            return
        self.left_ms -= dt_ms
        if self.left_ms > 0:
            return
        notes = self.notes
        i = self.next
        pwm = self.pwm
        if pwm is None:  # (play() starts nothing without one)
            return
        if i < len(notes):
            freq = notes[i] * 10
            self.left_ms = notes[i + 1] * 10
            self.next = i + 2
            if freq:
                pwm.freq(freq)
                pwm.duty_u16(_DUTY[self.volume])
                return
        pwm.duty_u16(0)  # a rest, or the end of the tune
