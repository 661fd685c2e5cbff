"""The main loop's sleep on a Pico: cut short by a button, longer while nothing happens.

Driver (shell code). board.make() (the real clock only) wraps the board's sleep_ms and the
display's show. The loop's sleep between passes goes in short steps (shorter while a button is
down) and ends a step after a button's edge (a press its IRQ latched, or, while a button is
held, a pin that differs from the buttons' debounced state: a release), so the pass that answers
a press starts within a few ms of the finger, not up to a whole period later (UP and DOWN act on
the press, OK and BACK on the release); while OK or BACK is held, it also ends at the hold's
mark (Buttons.long_ms), so the pass that reports the hold runs then. While a button is down
and the clock has sleep_us (a Pico's), the pins are read every quarter ms instead, and the
period and the hold's mark timed by the clock: a read inside a release's contact bounce (a ms
or so) costs a quarter ms, not a step. A release it reads is handed to the buttons driver
(Buttons.seen): the pass's own read may fall inside the bounce. After a loop pass that sent
nothing to the display, with no button held and nothing for the USB link to do (no line queued,
no byte from the PC waiting) and no tune sounding (its notes are timed by the ticks), the sleep
goes on for up to `pause_ms` (the app then gets the whole time slept as its tick's dt); an idle
screen costs one App.tick per pause_ms instead of one per period, so the CPU sleeps most of an
idle screen's time (tools/bench_pico.py measures it).
"""

from micropython import const

_STEP_MS = const(3)  # the sleep's step: the longest a press waits for the pass that answers it
# The step while a button is down: the release an OK or BACK tap acts on is seen sooner, and the
# short steps cost the idle CPU nothing (no finger, the long steps).
_HELD_STEP_MS = const(1)
_SETTLE_MS = const(1)  # after a press's edge, before that pass reads the pins
# Where the clock has sleep_us: the pins read this often while a button is down, so that the
# first read outside a release's contact bounce (a ms or so) starts the pass that answers it.
_HELD_STEP_US = const(250)


def install(board, sleep, pause_ms=100, sleep_us=None):
    """Replace board.sleep_ms (and wrap board.display.show) for the idle pause; sleep_us (the
    time module's, where there is one) times the reads while a button is down."""
    display = board.display
    show = display.show
    shows = [0, 0, 0]  # show() calls so far; the count at the previous sleep; when it ended

    def counting_show():
        shows[0] += 1
        return show()

    def sleep_ms(ms):
        keys = board.buttons
        slept = 0
        limit = ms
        due = 1 << 20  # a hold under way: its long_ms mark, when the pass that reports it runs
        step = _STEP_MS
        held = keys.holding()
        if held:
            # (the loop's pass began as the last sleep ended: its hold times count from there)
            late = board.ticks_diff(board.ticks_ms(), shows[2])
            for i in range(4):
                if held >> i & 1:
                    due = min(due, keys.long_ms - keys._held[i] + 1 - late)
            step = _HELD_STEP_MS if due > 0 else 0  # (the steps end at the mark)
        if keys.state and sleep_us is not None:
            # A button down: its pins read every _HELD_STEP_US until a release (handed to the
            # driver: the pass's own read may fall inside the release's bounce), another
            # press, the hold's mark or the period's end, by the clock.
            start = board.ticks_ms()
            limit = min(ms, due)
            while board.ticks_diff(board.ticks_ms(), start) < limit:
                sleep_us(_HELD_STEP_US)
                raw = keys.read()
                if raw != keys.state:
                    keys.seen |= keys.state & ~raw
                    break
            shows[2] = board.ticks_ms()
            return
        while True:
            sleep(step)
            slept += step
            step = _HELD_STEP_MS if keys.state else _STEP_MS
            if keys.latched():
                sleep(_SETTLE_MS)  # (a read inside a bounce is the driver's to sort out)
                break
            if keys.state:
                raw = keys.read()
                if raw != keys.state:  # a release (or another press): the pass, at once
                    keys.seen |= keys.state & ~raw  # (its read may fall inside the bounce)
                    break
            if slept >= due:
                break
            if slept < limit:
                continue
            if limit != ms:  # the pause is over
                break
            usb = board.usb
            beeper = board.beeper
            if (
                shows[0] != shows[1]
                or keys.state
                or (usb is not None and usb.busy())
                or (beeper is not None and beeper.left_ms > 0)
            ):
                shows[1] = shows[0]
                break
            limit = pause_ms
        shows[2] = board.ticks_ms()

    display.show = counting_show
    board.sleep_ms = sleep_ms
