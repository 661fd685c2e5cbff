"""Buttons driver: gestures as fingers make them. UP/DOWN act on the first edge and repeat;
OK/BACK act on release (a tap) or once held past the long-press time (a hold, reported while
still down, never with the tap). Lock-out against bounce, all in virtual time with scripted raw
states and through fake pins; no allocation per update under MicroPython."""

import gc

from checks import skip

from dicepod.drivers.buttons import BACK, DOWN, LONG_SHIFT, OK, UP, Buttons

try:
    import machine
except ImportError:
    from dicepod_host.fakeboard import machine


def _run(buttons, script, dt=10):
    """Feed (raw, steps) pairs, dt ms per step; return [(time_ms, events)] for non-zero ones."""
    out = []
    t = 0
    for raw, steps in script:
        for _ in range(steps):
            t += dt
            ev = buttons.update(dt, raw)
            if ev:
                out.append((t, ev))
    return out


def test_up_down_are_reported_in_the_update_that_sees_them():
    b = Buttons()
    assert b.update(10, 0) == 0
    assert b.update(10, UP) == UP  # no added latency
    assert b.pressed() == UP
    b.update(10, 0)
    b.update(40, 0)
    assert b.update(10, DOWN) == DOWN


def test_ok_tap_acts_on_release_not_on_press():
    b = Buttons()
    assert b.update(10, OK) == 0  # the press alone decides nothing
    assert b.holding() == OK
    for _ in range(10):
        assert b.update(10, OK) == 0
    assert b.update(10, 0) == OK  # released before the long press: a tap
    assert b.holding() == 0


def test_bounce_on_press_and_release_gives_one_tap():
    b = Buttons(lockout_ms=30)
    # press with 4 ms of contact bounce sampled every 1 ms, held, release with bounce
    script = [(OK, 1), (0, 1), (OK, 1), (0, 1), (OK, 50), (0, 1), (OK, 1), (0, 1), (OK, 1)]
    script += [(0, 100)]
    events = _run(b, script, dt=1)
    assert events == [(55, OK)], events
    assert b.pressed() == 0


def test_bounce_on_up_gives_one_press():
    b = Buttons(lockout_ms=30)
    script = [(UP, 1), (0, 1), (UP, 1), (0, 1), (UP, 50), (0, 1), (UP, 1), (0, 1), (UP, 1)]
    events = _run(b, script + [(0, 100)], dt=1)
    assert events == [(1, UP)], events


def test_second_tap_after_lockout_counts():
    b = Buttons(lockout_ms=30)
    events = _run(b, [(OK, 5), (0, 5), (OK, 5), (0, 5)], dt=10)
    assert events == [(60, OK), (160, OK)], events


def test_release_shorter_than_lockout_is_ignored():
    # A 20 ms "release" inside the lock-out window after a press is bounce, not a release.
    b = Buttons(lockout_ms=30)
    events = _run(b, [(OK, 1), (0, 2), (OK, 10), (0, 5)], dt=10)
    assert events == [(140, OK)], events


def test_hold_reports_the_long_press_alone_while_still_down():
    b = Buttons(long_ms=600)
    events = _run(b, [(OK, 100), (0, 10)], dt=10)
    assert events == [(610, OK << 4)], events  # no tap before it, nothing on release
    b2 = Buttons(long_ms=600)
    _run(b2, [(OK, 60)], dt=10)  # held 590 ms after the press
    assert b2.holding() == OK
    assert b2.update(10, OK) == OK << 4  # the moment the hold crosses the threshold
    assert b2.holding() == 0


def test_release_just_before_the_long_time_is_a_tap():
    b = Buttons(long_ms=600)
    events = _run(b, [(OK, 60), (0, 10)], dt=10)
    assert events == [(610, OK)], events


def test_long_press_on_back_and_non_default_time():
    b = Buttons(long_ms=250)
    events = _run(b, [(BACK, 30), (0, 5)], dt=10)
    assert events == [(260, BACK << 4)], events


def test_auto_repeat_for_up_down_and_no_long_press():
    b = Buttons(long_ms=600, repeat_delay_ms=400, repeat_ms=120)
    events = _run(b, [(UP, 100)], dt=10)
    times = [t for t, ev in events if ev & UP]
    assert times == [10, 410, 530, 650, 770, 890], times
    assert [ev for _, ev in events if ev & ~UP] == []  # holding UP never makes a long press
    b2 = Buttons()
    events = _run(b2, [(OK, 100)], dt=10)
    assert [ev for _, ev in events] == [OK << 4]  # OK neither repeats nor taps


def test_repeat_with_non_default_rates():
    b = Buttons(repeat_delay_ms=200, repeat_ms=50, repeat_mask=DOWN | OK, long_mask=BACK)
    events = _run(b, [(OK, 35)], dt=10)
    assert [t for t, _ in events] == [10, 210, 260, 310], events


def test_slow_tick_gives_at_most_one_repeat_per_update():
    b = Buttons()
    assert b.update(10, DOWN) == DOWN
    ev = b.update(5000, DOWN)  # e.g. the loop stalled: one repeat
    assert ev == DOWN
    assert b.update(10, DOWN) == 0  # the schedule moved past now: no burst of repeats
    ev = 0
    for _ in range(12):
        ev |= b.update(10, DOWN)
    assert ev == DOWN


def test_slow_tick_during_a_hold_gives_the_long_press_once():
    b = Buttons()
    assert b.update(10, BACK) == 0
    assert b.update(5000, BACK) == BACK << 4
    assert b.update(10, BACK) == 0
    for _ in range(5):
        assert b.update(10, 0) == 0


def test_buttons_are_independent():
    b = Buttons()
    assert b.update(10, UP) == UP
    assert b.update(10, UP | OK) == 0
    assert b.update(10, UP | OK | BACK) == 0
    assert b.pressed() == UP | OK | BACK
    assert b.holding() == OK | BACK
    b.update(30, UP | OK | BACK)
    assert b.update(10, UP | BACK) == OK  # OK tapped while UP and BACK stay down
    assert b.update(10, UP) == BACK
    for _ in range(10):
        b.update(10, 0)
    assert b.pressed() == 0


def test_reads_active_low_pins():
    pins = [machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in (40, 41, 42, 43)]
    b = Buttons(pins)
    assert b.update(10) == 0  # pull-ups: nothing pressed
    pins[0].drive(0)  # UP pressed (pin pulled to ground)
    assert b.update(10) == UP
    pins[0].release()
    for _ in range(5):
        assert b.update(10) == 0
    pins[2].drive(0)  # OK: a tap, reported on release
    assert b.update(10) == 0
    for _ in range(5):
        assert b.update(10) == 0
    pins[2].release()
    assert b.update(10) == OK
    for _ in range(5):
        b.update(10)
    pins[3].drive(0)  # BACK held past the long-press time
    events = 0
    for _ in range(70):
        events |= b.update(10)
    assert events == BACK << 4
    pins[3].release()
    for _ in range(5):
        assert b.update(10) == 0


class _Clock:
    """ticks_ms/ticks_diff in virtual time (the IRQ's and the updates' shared clock)."""

    def __init__(self):
        self.ms = 1000

    def ticks_ms(self):
        return self.ms

    def ticks_diff(self, a, b):
        return a - b


def _armed(first):
    pins = [machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in range(first, first + 4)]
    clock = _Clock()
    b = Buttons(pins, clock=clock)
    b.arm_wake()
    assert b.update(10) == 0
    return pins, b, clock


def _bounce(pin, times):
    for _ in range(times):
        pin.drive(0)
        pin.release()


def _busy(b, clock, ms, *taps):
    """The loop busy for ms (no update): each (pin, at_ms, hold_ms) a finger's tap inside it,
    bouncing on the way down and up; return the next update's events."""
    start = clock.ms
    for pin, at, hold in sorted(taps, key=lambda t: t[1]):
        clock.ms = start + at
        _bounce(pin, 3)
        pin.drive(0)
        clock.ms += hold
        pin.release()
        _bounce(pin, 2)
    clock.ms = start + ms
    return b.update(ms)


def _idle(b, clock, n=5, dt=10):
    for _ in range(n):
        clock.ms += dt
        assert b.update(dt) == 0


def test_a_tap_between_two_updates_is_latched_by_the_irq():
    pins, b, clock = _armed(48)
    for i, bit in enumerate((UP, DOWN, OK, BACK)):
        assert _busy(b, clock, 120, (pins[i], 20, 40)) == bit  # one press or tap, once
        assert b.pressed() == bit  # activity for the power policy, though up now
        clock.ms += 10
        assert b.update(10) == 0 and b.pressed() == 0
        _idle(b, clock)
    assert _busy(b, clock, 200, (pins[1], 10, 50), (pins[3], 90, 60)) == DOWN | BACK


def test_a_latch_too_young_to_tell_from_bounce_waits_for_the_next_update():
    pins, b, clock = _armed(52)
    clock.ms += 5
    pins[0].drive(0)  # UP going down; the update comes 2 ms later, in a bounce's open phase
    pins[0].release()
    clock.ms += 2
    assert b.update(7) == 0  # up now, latched 2 ms ago: maybe still on its way down
    pins[0].drive(0)  # the contact settles: held
    clock.ms += 20
    assert b.update(20) == UP  # the press, once
    _idle(b, clock)  # (still held: no repeat yet)
    pins[0].release()
    _idle(b, clock, 10)


def test_the_bounce_after_a_release_is_not_a_tap():
    pins, b, clock = _armed(56)
    pins[2].drive(0)  # OK held across updates, then let go: a tap on the release
    clock.ms += 10
    assert b.update(10) == 0
    _idle(b, clock, 4)
    pins[2].release()
    clock.ms += 10
    assert b.update(10) == OK
    clock.ms += 2
    _bounce(pins[2], 3)  # the contact bounces after the release was taken
    assert _busy(b, clock, 150) == 0  # a long pass: the latch is the bounce, dropped
    _idle(b, clock)


def test_a_release_the_sleep_saw_is_taken_though_the_read_falls_in_its_bounce():
    """The main loop's sleep read OK up (Buttons.seen); the update's own read, inside the
    release's bounce, sees it down: the tap is reported at once, and the rest of the bounce
    is locked out (no second press). Without the hand-off the tap waits for a later read."""
    b = Buttons()
    assert _run(b, [(OK, 5)]) == []  # held past the press's lock-out
    b.seen |= OK
    assert b.update(1, OK) == OK  # the bounce reads down: the release taken all the same
    assert b.seen == 0
    assert _run(b, [(OK, 2), (0, 5)], dt=1) == []  # the bounce's last edges: nothing
    assert b.state == 0
    late = Buttons()
    _run(late, [(OK, 5)])
    assert late.update(1, OK) == 0  # no hand-off: the read in the bounce sees a button down
    assert late.update(1, 0) == OK
    b.seen = UP  # a stale hand-off for a button that is not down: nothing
    assert b.update(10, 0) == 0 and b.state == 0


def test_the_same_button_tapped_again_while_its_first_tap_loads():
    pins, b, clock = _armed(60)
    pins[2].drive(0)
    clock.ms += 10
    b.update(10)
    _idle(b, clock, 4)
    pins[2].release()
    clock.ms += 10
    assert b.update(10) == OK  # a game's first screen loads for 100 ms now...
    _bounce(pins[2], 2)
    assert _busy(b, clock, 100, (pins[2], 50, 30)) == 0  # ...OK again inside it: locked
    clock.ms += 20
    assert b.update(20) == OK  # the second tap, out of the lock-out
    _idle(b, clock)


def test_a_latched_tap_on_a_dark_screen_only_wakes_it():
    pins, b, clock = _armed(64)
    b.mute()
    assert _busy(b, clock, 300, (pins[2], 10, 60)) == 0  # swallowed: it woke the screen
    assert b.pressed() == OK  # (the power policy sees the activity)
    _idle(b, clock)
    assert _busy(b, clock, 300, (pins[2], 10, 60)) == OK  # the next tap acts


def test_arm_wake_sets_a_falling_edge_irq_on_every_pin():
    pins, b, clock = _armed(72)
    for i, pin in enumerate(pins):
        assert pin.trigger == machine.Pin.IRQ_FALLING
        pin.drive(0)
        assert b.latched() == (2 << i) - 1  # latched at once, until an update takes it
    for pin in pins:
        pin.release()
    assert b.latched() == 15  # the release's rising edges latch nothing


def test_reset_forgets_a_latched_edge():
    pins, b, clock = _armed(68)
    pins[0].drive(0)
    pins[0].release()
    b.reset()
    clock.ms += 100
    assert b.update(100) == 0


def test_update_allocates_nothing():
    if not hasattr(gc, "mem_alloc"):
        skip("no gc.mem_alloc (CPython): the MicroPython run measures it")
    b = Buttons()
    script = (0, UP, UP, 0, 0, OK | BACK, OK, 0, DOWN, DOWN)
    b.update(10, 0)
    gc.collect()
    gc.disable()
    try:
        before = gc.mem_alloc()
        for i in range(2000):
            b.update(10, script[i % 10])
        after = gc.mem_alloc()
    finally:
        gc.enable()
    assert after == before, after - before


def test_mute_swallows_one_press_until_release():
    b = Buttons()
    b.mute()
    assert b.update(10, 0) == 0
    assert b.update(10, OK) == 0
    for _ in range(100):
        assert b.update(10, OK) == 0  # no long press, no repeat
    assert b.update(10, 0) == 0
    for _ in range(5):
        b.update(10, 0)
    assert b.update(10, UP) == UP
    assert _run(b, [(0, 5)]) == []
    b.mute()
    assert b.update(10, OK) == 0
    assert b.holding() == 0  # muted: no hold under way either
    assert _run(b, [(OK, 5), (0, 5)]) == []  # the muted tap's release reports nothing
    assert b.update(10, DOWN) == DOWN
    assert _run(b, [(0, 5)]) == []
    b.mute()
    b.unmute()
    assert _run(b, [(BACK, 5), (0, 5)]) == [(60, BACK)]


def test_a_hold_is_timed_from_the_latched_press_not_the_update():
    """The finger went down 15 ms before the update that saw it: the hold is reported once
    long_ms have passed since the finger (600 ms), not 600 ms after that update; so a
    610 ms hold is a hold though no update came in its first 15 ms."""
    pins, b, clock = _armed(60)
    pins[2].drive(0)  # OK down: the IRQ latches it now
    clock.ms += 15
    assert b.update(15) == 0  # the press edge: nothing yet (OK has a long meaning)
    events = 0
    for _ in range(29):  # 15 + 29 * 20 = 595 ms since the finger
        clock.ms += 20
        events |= b.update(20)
    assert events == 0
    clock.ms += 10
    assert b.update(10) == OK << LONG_SHIFT  # 605 ms since the finger: the hold
    pins[2].release()
    clock.ms += 5
    assert b.update(5) == 0  # (the release after a hold reports nothing)


def test_a_repeat_is_timed_from_the_latched_press():
    pins, b, clock = _armed(64)
    pins[1].drive(0)  # DOWN down, latched now
    clock.ms += 12
    assert b.update(12) == DOWN  # acts on the press
    clock.ms += 380  # 392 ms since the finger: no repeat before 400
    assert b.update(380) == 0
    clock.ms += 10
    assert b.update(10) == DOWN  # 402 ms
    pins[1].release()
    _idle(b, clock)
