"""The piezo on the emulated Pico (issue 13, item 6): the real firmware, dicepod deployed, the
buttons bouncing on their GPIOs, and GP15's PWM as the RP2040's PWM slice registers drive it
(Pico.pwm: enable, TOP, divider, compare level, and the pin's function select). A Battle Game is
played by tapping OK (roll, set aside, push your luck) until a roll busts: the rolls before
click at 2400 Hz, the bust plays the falling tune (660, 440, 290 Hz) alone, at the Medium
duty; the journal on the flash image folds (CPython's rules) to a game that is bust. Then
Settings > Device > Sound is set to Mute at the buttons (saved in settings.json) and the next
turn's rolls leave the PWM silent."""

import json

import pytest
from pico_sessions import journal_in
from pico_support import booted_pico, flash_files

from dicepod_host.pico import PIEZO

# Sampling period of the PWM (ms of emulated time): shorter than any sound the app makes (a
# roll's click is one 20 ms loop tick when the screen draws fast; at 10 ms one was missed).
_SAMPLE_MS = 5
# After a sound, this long silent ends the listening (the longest rest in a tune is 60 ms);
# with nothing heard this long after the press, the move is a silent one (a tune starts when
# the release is handled, within ~120 ms, before the screen is drawn).
_QUIET_MS = 150
_SILENT_MS = 700
_MEDIUM = 6000 / 65536  # the default volume's duty (drivers/beeper.py)
# Taps of OK allowed until a roll busts: the chip's dice decide how soon (six dice bust about one
# roll in 40, three or fewer at least one in four, and an ALL OUT! starts six again).
_PRESSES = 48


@pytest.fixture(scope="module")
def pico(tmp_path_factory):
    with booted_pico(tmp_path_factory) as board:
        yield board


def _listen(pico, button, ms):
    """Tap button and run ms of emulated time from its first edge, sampling GP15's PWM; return
    the frequencies it sounded, in order (a note once), and the duties heard."""
    down, up = pico.press(button, hold_ms=80, bounce=True)
    heard, duties = [], set()
    end = down + ms * 1e6
    quiet = 0  # ms silent since the last sound
    while pico.now_ns < end and not (heard and quiet >= _QUIET_MS):
        if not heard and pico.now_ns > down + _SILENT_MS * 1e6:
            break  # a move that makes no sound (a set-aside): it would have begun by now
        pico.run_ms(_SAMPLE_MS)
        pwm = pico.pwm(PIEZO)
        if pwm["enabled"] and pwm["duty"] > 0:
            quiet = 0
            freq = int(round(pwm["freq"]))
            duties.add(pwm["duty"])
            if not heard or heard[-1] != freq:
                heard.append(freq)
        else:
            quiet += _SAMPLE_MS
    # the firmware has handled the release (a screen's draw can outlast the listening), and
    # a finger's gap: the next press is never lost
    pico.run_until_handled(up)
    pico.run_ms(80)
    return heard, duties


def _near(freq, want):
    return abs(freq - want) <= want * 0.01


def _medium(duties):
    """Every duty heard is the Medium volume's (to the PWM's resolution at that TOP)."""
    return duties and all(abs(d - _MEDIUM) < 0.002 for d in duties)


def _files(pico):
    return flash_files(pico)


def _events(files):
    """The events of the journal on the flash image, oldest first."""
    from dicepod import journal as journal_module

    lines = [line for line in journal_in(files).splitlines(True) if line[:1].isdigit()]
    return [journal_module.decode(line)[0][3] for line in lines]


def _game(pico):
    """The Battle Game the journal on the flash image folds to (CPython's rules)."""
    from dicepod import replay
    from dicepod.rules import battle

    pico.run_ms(300)  # the journal's lines reach the flash
    game = battle.Game()
    for event in _events(_files(pico)):
        if event[0] == "new_game":
            game = battle.Game()
        replay.step(game, event)
    return game


def _rolls(events):
    return len([e for e in events if e[0] in ("roll", "reroll")])


def test_a_bust_sounds_its_tune_on_the_piezo_and_mute_silences_it(pico):
    # each tap once the firmware has handled the last (a screen's first draw is slow)
    pico.play("OK")  # the main menu's first row: Battle Game, a new game
    pico.play("OK")  # the first roll asks the board's rows per half
    pico.play("UP")
    pico.play("UP")  # 3 rows; the OK that saves them makes the roll that asked
    tune = None
    said = []
    # roll / set aside / push your luck (the default keep), until a bust
    for _ in range(_PRESSES):
        heard, duties = _listen(pico, "OK", 1200)
        said.append(heard)
        if any(_near(f, 660) for f in heard):
            tune = heard, duties
            break
        # nothing (a set-aside), a roll's click, or ALL OUT!'s rising tune
        click = [_near(f, 2400) for f in heard] == [True]
        all_out = [_near(f, w) for f, w in zip(heard, (1050, 1320, 1570, 2090))] == [True] * 4
        assert not heard or click or all_out and len(heard) == 4, "%r" % said
        if not heard and _game(pico).phase == "actions":  # (after ALL OUT!: no dice left)
            pico.play("OK")  # the heroes
            pico.play("UP")  # "done": the next OK ends the turn, then the next one rolls
        assert not heard or _medium(duties), duties
    assert tune is not None, "no roll busted in %d presses of OK: %s" % (_PRESSES, said)
    heard, duties = tune
    assert len(heard) == 3, said  # the falling tune alone: no click with it
    assert [_near(f, w) for f, w in zip(heard, (660, 440, 290))] == [True] * 3, heard
    assert _medium(duties), duties
    assert not pico.pwm(PIEZO)["duty"]  # silent after the tune
    game = _game(pico)
    events = _events(_files(pico))
    assert events[-1][0] in ("roll", "reroll"), events[-3:]
    assert game.phase == "bust"

    # OK on the BUST screen ends the turn (no dice: silent); OK again is P2's Battle Roll: a
    # click (or, busting too, the falling tune)
    assert _listen(pico, "OK", 900)[0] == []
    heard, duties = _listen(pico, "OK", 1200)
    pico.run_ms(300)
    events = _events(_files(pico))
    assert [e[0] for e in events[-2:]] == ["bust", "roll"], (events[-3:], heard)
    click = [_near(f, 2400) for f in heard] == [True]
    assert click or len(heard) == 3 and _near(heard[0], 660), heard
    assert _medium(duties), duties

    # Mute, at the buttons: BACK to the menu, Settings (the last row), Device (the last), Sound
    # (the one before the flash line), Medium -> Soft -> Mute, OK saves it
    for button in ("BACK", "UP", "OK", "UP", "OK", "UP", "UP", "OK", "DOWN", "DOWN", "OK"):
        pico.play(button)
    pico.run_ms(300)
    settings = json.loads(_files(pico)["settings.json"])
    assert settings.get("device.volume") == 0, settings
    for button in ("BACK", "BACK", "DOWN", "OK"):  # back to the menu, Battle Game: the game
        pico.play(button)
    rolled = _rolls(events)
    silent = []
    for _ in range(4):  # OK until the dice are rolled again (set aside, push your luck...)
        silent += _listen(pico, "OK", 900)[0]
        pico.run_ms(300)
        events = _events(_files(pico))
        if _rolls(events) > rolled:
            break
    assert _rolls(events) > rolled, events[-4:]
    assert silent == []
