"""Sound (issue 13, item 6) through the real app and the real Beeper driver on a PWM that keeps
what it is told: a click when OK rolls, the falling tune when the roll busts (and no click with
it), the rising one for ALL OUT!, the fanfare for a win, nothing for an undo; the Sound setting
(Mute: the piezo stays silent; Loud: half duty); the notes step from the app's ticks. Buttons
pressed at the pins (app_board). The tune choice itself (beeper.outcome/tune, pure) for every
mode's win and loss. Portable (plain asserts)."""

from app_board import BACK, DOWN, OK, Board, hold, idle, last, menu, press, top

from dicepod.app import App
from dicepod.drivers import beeper as sound
from dicepod.drivers.beeper import Beeper


class KeptPWM:
    """A machine.PWM stand-in: every (freq, duty) it sounds, in order ((0, 0) = silent)."""

    def __init__(self):
        self.f = 0
        self.duty = 0
        self.log = []

    def freq(self, value=None):
        if value is None:
            return self.f
        self.f = value

    def duty_u16(self, value=None):
        if value is None:
            return self.duty
        self.duty = value
        self.log.append((self.f if value else 0, value))


def _tones(pwm):
    """The frequencies that sounded (rests and silences left out)."""
    return [f for f, duty in pwm.log if duty]


def _notes(tune):
    """A tune's sounding frequencies in Hz (its rests left out)."""
    return [tune[i] * 10 for i in range(0, len(tune), 2) if tune[i]]


class Scripted:
    """randbelow giving these faces (value - 1) in turn, then 1s."""

    def __init__(self, faces):
        self.faces = list(faces)

    def __call__(self, n):
        return self.faces.pop(0) - 1 if self.faces else 0


def _app(faces=(), volume=None):
    board = Board(randbelow=Scripted(faces))
    pwm = KeptPWM()
    board.beeper = Beeper(pwm)
    if volume is not None:
        board.settings["device.volume"] = volume
    board.beeper.configure(board.settings)
    app = App(board)
    app.start()
    return app, pwm


def _battle(faces, volume=None):
    app, pwm = _app(faces, volume)
    menu(app, "battle")
    app.session.change_setting("battle.rows", 3)  # the printed board's rows (BG-13)
    app.session.change_setting("battle.table", 0)  # moves not refereed here (BG-11)
    pwm.log = []
    return app, pwm


def test_a_roll_clicks_a_bust_falls_and_an_undo_is_silent():
    app, pwm = _battle((3, 4, 6, 2, 3, 6) + (1, 1, 2, 2, 4, 4))
    press(app, OK)  # the Battle Roll: it scores (two 6s), a click
    assert app.session.game.phase == "choose"
    assert _tones(pwm) == [2400]
    assert pwm.log[-1] == (0, 0)  # silent again after its 20 ms (the press's idle ticks)
    hold(app, BACK)  # undo: silent
    assert app.session.game.phase == "roll" and app.session.game.dice == ()
    assert _tones(pwm) == [2400]
    pwm.log = []
    press(app, OK)  # the roll again: 1 1 2 2 4 4 busts, the falling tune and no click
    assert app.session.game.phase == "bust"
    assert _tones(pwm) == [660]  # its first note, at once: the rest come with the ticks
    assert app.beeper.left_ms > 0
    idle(app, 30)  # 600 ms of ticks: 120 + 120 + 300 ms of notes
    assert app.beeper.left_ms <= 0
    assert _tones(pwm) == _notes(sound.BUST) == [660, 440, 290]
    assert pwm.log[-1] == (0, 0)
    pwm.log = []
    press(app, OK)  # the bust ends the turn: no dice rolled, silent
    assert app.session.game.phase == "roll" and app.session.game.player == 1
    assert pwm.log == []


def test_all_out_rises():
    app, pwm = _battle((1, 2, 3, 4, 5, 6))
    press(app, OK)  # 1-6: a straight and a Lucky Six take every die
    screen = app.stack[-1]
    every = [i for i, option in enumerate(screen.options) if sum(len(c) for c in option) == 6]
    assert every, screen.options
    while screen.cursor != every[0]:
        press(app, DOWN)
    pwm.log = []
    press(app, OK)
    assert app.session.game.all_out
    assert _tones(pwm) == [1050]
    idle(app, 30)
    assert _tones(pwm) == _notes(sound.ALL_OUT) == [1050, 1320, 1570, 2090]


def test_a_win_plays_the_fanfare():
    app, pwm = _battle(())
    session = app.session
    session.play(("roll", (6, 6, 1, 2, 3, 4)))
    session.play(("set_aside", (6, 0, 6, 0, 1, 2, 3, 4)))
    session.play(("actions", ()))
    for hero in range(3):
        session.play(("advance", (0, hero, 3)))  # three heroes across: P1 wins at the turn end
    pwm.log = []
    session.play(("end_turn", ()))  # what the Heroes screen's "done" plays
    assert session.game.phase == "over"
    idle(app, 60)
    assert _tones(pwm) == _notes(sound.WIN) == [1050, 1320, 1570, 2090]
    assert (0, 0) in pwm.log[:-1]  # the rest before the high C
    pwm.log = []
    session.play(("next_game", (1,)))  # the next game of the three: silent
    assert pwm.log == []


def test_the_sound_setting_mute_and_loud():
    app, pwm = _battle((3, 4, 6, 2, 3, 6), volume=3)
    press(app, OK)
    assert [duty for _f, duty in pwm.log if duty] == [32768]  # Loud: half duty
    # Settings > Device > Sound, from Medium (the default) down to Mute, at the buttons
    app, pwm = _app((3, 4, 6, 2, 3, 6))
    assert app.beeper.volume == 2
    menu(app, "Settings")
    last(app)
    press(app, OK)  # Device
    screen = app.stack[-1]
    guard = 0
    while "Sound" not in str(screen.items[screen.cursor]):
        press(app, DOWN)
        guard += 1
        assert guard < 20, screen.items
    press(app, OK)
    assert top(app) == "EditValue", top(app)
    press(app, DOWN, DOWN, OK)  # Medium -> Soft -> Mute, saved
    assert app.session.values["device.volume"] == 0
    assert app.beeper.volume == 0
    menu(app, "battle")
    app.session.change_setting("battle.rows", 3)
    pwm.log = []
    press(app, OK)  # a roll, muted
    assert app.session.game.phase == "choose"
    assert pwm.log == []


def test_which_tune_for_which_outcome_in_every_mode():
    from dicepod.rules import battle, orks, tyranid

    # the result codes beeper.outcome names are the rules' own
    assert orks.WON == 1 and (tyranid.MINOR, tyranid.MAJOR, tyranid.WIN) == (2, 3, 4)
    assert tyranid.LOSS == 0 and tyranid.DRAW == 1

    class Over:
        def __init__(self, result):
            self.result = result

    assert sound.outcome("orks", Over(orks.WON)) == sound.WIN
    assert sound.outcome("orks", Over(orks.LOST_GRIT)) == sound.BUST  # a lost game falls
    assert sound.outcome("orks", Over(orks.LOST_REACTORS)) == sound.BUST
    assert sound.outcome("orks", Over(None)) is None
    for result in (tyranid.MINOR, tyranid.MAJOR, tyranid.WIN):
        assert sound.outcome("tyranid", Over(result)) == sound.WIN
    assert sound.outcome("tyranid", Over(tyranid.LOSS)) == sound.BUST
    assert sound.outcome("tyranid", Over(tyranid.DRAW)) is None
    assert sound.outcome("tyranid", tyranid.Game()) is None  # not over: result None
    assert sound.outcome("orks", orks.Game()) is None
    game = battle.Game({battle.ROWS: 3})
    assert sound.outcome("battle", game) is None
    game.apply(("roll", (1, 1, 2, 2, 4, 4)))
    assert sound.outcome("battle", game) == sound.BUST
    # the tune: a new outcome's first, then a roll's click, else silence
    assert sound.tune("roll", None, sound.BUST) == sound.BUST
    assert sound.tune("bust", sound.BUST, None) is None
    assert sound.tune("end_turn", None, sound.WIN) == sound.WIN
    assert sound.tune("attack", None, sound.BUST) == sound.BUST
    assert sound.tune("set_aside", None, sound.ALL_OUT) == sound.ALL_OUT
    assert sound.tune("reroll", sound.ALL_OUT, sound.ALL_OUT) == sound.ROLL
    for kind in ("roll", "reroll", "rolloff", "d3", "attack", "console", "lictor", "add"):
        assert sound.tune(kind, None, None) == sound.ROLL
    for kind in ("set", "new_game", "tn", "move", "next", "place", "advance", "selftest"):
        assert sound.tune(kind, None, None) is None
    # a tune: (frequency / 10 Hz, length / 10 ms) a note, every note in the piezo's range
    for tune in (sound.ROLL, sound.BUST, sound.ALL_OUT, sound.WIN):
        assert isinstance(tune, bytes) and len(tune) % 2 == 0
        assert all(tune[i] == 0 or 200 <= tune[i] * 10 <= 2550 for i in range(0, len(tune), 2))


def test_a_board_without_a_piezo_and_a_bad_volume():
    quiet = Beeper(None)
    quiet.play(sound.BUST)
    quiet.update(20)
    assert quiet.left_ms <= 0
    pwm = KeptPWM()
    loud = Beeper(pwm)
    loud.configure({"device.volume": 7})  # out of range (an edited file): ignored
    assert loud.volume == 2
    loud.configure({"device.volume": -1})
    assert loud.volume == 2
    loud.play(sound.ROLL)
    assert pwm.log[-1] == (2400, 6000)
    loud.configure({"device.volume": 0})  # muted while sounding: silent at once
    assert pwm.log[-1] == (0, 0) and loud.left_ms <= 0
