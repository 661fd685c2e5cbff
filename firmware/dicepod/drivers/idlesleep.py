"""The main loop's sleep on a Pico: longer pauses while nothing happens.

Driver (shell code). board.make() (the real clock only) wraps the board's sleep_ms and the
display's show: after a loop pass that sent nothing to the display, with no button held and
nothing for the USB link to do (no line queued, no byte from the PC waiting) and no tune
sounding (its notes are timed by the ticks), the sleep goes
on in steps of the loop's period for up to `pause_ms`, reading the buttons' pins between
steps (and the edges their IRQ latched: a tap shorter than a step). A press is still seen
within one period
(the app then gets the whole time slept as its tick's dt); an idle screen costs one App.tick
per pause_ms instead of one per period, so the CPU sleeps most of an idle screen's time
(tools/bench_pico.py measures it).
"""


def install(board, sleep, pause_ms=100):
    """Replace board.sleep_ms (and wrap board.display.show) for the idle pause."""
    display = board.display
    show = display.show
    shows = [0, 0]  # show() calls so far; the count at the previous sleep

    def counting_show():
        shows[0] += 1
        return show()

    def sleep_ms(ms):
        sleep(ms)
        keys = board.buttons
        usb = board.usb
        beeper = board.beeper
        if (
            shows[0] != shows[1]
            or keys.state
            or (usb is not None and usb.busy())
            or (beeper is not None and beeper.left_ms > 0)
        ):
            shows[1] = shows[0]
            return
        slept = ms
        while slept < pause_ms and not (keys.read() or keys.latched()):
            sleep(ms)
            slept += ms

    display.show = counting_show
    board.sleep_ms = sleep_ms
