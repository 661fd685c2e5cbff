"""Buttons: four active-low push buttons (to ground, internal pull-ups) turned into gestures.

Driver (shell code). `update(dt_ms, raw=None)` samples the pins (or takes `raw`, a bitmask of
pressed buttons, from a test or the simulator) and returns a bitmask of new events. A hold never
does the short action first:

- The buttons in `long_mask` (default OK|BACK) have a short and a long meaning. A press reports
  nothing on its edge; a release before `long_ms` (default 600, counted from the press's
  latched edge where the pins are armed, else from the update that saw it) reports the press
  bit (UP=1, DOWN=2, OK=4, BACK=8: a tap, "the hold is ruled out"); holding to `long_ms`
  reports the long bit (the same bit << 4: 16, 32, 64, 128) at that moment, while the finger
  is still down, so the screen shows the hold took, and the release that follows reports
  nothing.
- The other buttons (UP, DOWN) act on the press edge, in the same update that sees it (no added
  latency), and auto-repeat while held if in `repeat_mask` (default UP|DOWN): the press bit
  again after `repeat_delay_ms` (400) and then every `repeat_ms` (120); at most one repeat per
  update, so a slow tick never floods the app. They have no long press.
- After any accepted edge a button is locked out for `lockout_ms` (default 30; contacts bounce
  for a few ms): changes inside the window are ignored, so bounce never makes a double press,
  and a release is taken only if it lasts.

`holding()` is the bitmask of long-capable buttons held now whose gesture is not decided yet
(a screen may show that a hold is under way). `pins` are four built machine.Pin inputs in bit
order (UP, DOWN, OK, BACK), read as 0 when pressed; None when every update gets `raw`.
Allocation-free after __init__ (small ints only).

`arm_wake()` gives every pin a hard falling-edge IRQ: a press wakes machine.lightsleep, and its
edge is latched with the time (`clock`: the time module's ticks_ms/ticks_diff), so a tap that
begins and ends between two updates (the loop busy for longer than a finger's tap: a module
loading ahead, a long redraw) is not lost: an update that finds the button up, out of its
lock-out, and a press latched at least `lockout_ms` ago reports it as a tap (a younger latch
waits for the next update: the finger may still be on its way down, the contact bouncing). A
latch less than `lockout_ms` after the last edge the updates took is that edge's bounce and is
dropped; a later one survives the lock-out (OK tapped again while its first tap's game loads),
and an edge `lockout_ms` or more after the latch before it stamps it anew (a new press). One
case stays lost: a press, its release and a second press of one button all between two
updates (the release was never seen, so the second press cannot be told from its bounce).

`seen` is for the main loop's sleep (dicepod.drivers.idlesleep), which reads the pins while a
button is down to start the pass that answers its release at once: the buttons it saw up. The
next update takes them as up though its own read, a few hundred microseconds later, may fall
inside the release's contact bounce and see them down (the release would then wait for a
later pass). The release's lock-out then ignores the rest of the bounce, as ever.

`mute()` (called by the power policy when the display goes off) swallows the events of the
next press until it is released, so the press that wakes a dark screen does nothing else.
"""

from micropython import const

# The button codes are the screens' (defined once, in dicepod.ui.screen); this driver reports them.
from dicepod.ui.screen import BACK, DOWN, OK, UP  # noqa: F401  (BACK, OK: re-exported)

ALL = 15
LONG_SHIFT = 4  # long press of button b is b << LONG_SHIFT
NAMES = ("UP", "DOWN", "OK", "BACK")

_COUNT = const(4)
_HELD_CAP = const(1 << 24)  # hold times stop counting here (~4.6 hours): stays a small int


class Buttons:
    """Four debounced buttons with long press and auto-repeat."""

    def __init__(
        self,
        pins=None,
        lockout_ms=30,
        long_ms=600,
        repeat_delay_ms=400,
        repeat_ms=120,
        repeat_mask=UP | DOWN,
        long_mask=OK | BACK,
        clock=None,
    ):
        self.pins = pins
        self.clock = clock  # ticks_ms/ticks_diff (the time module): latched edges need it
        self.lockout_ms = lockout_ms
        self.long_ms = long_ms
        self.repeat_delay_ms = repeat_delay_ms
        self.repeat_ms = repeat_ms
        self.repeat_mask = repeat_mask
        self.long_mask = long_mask
        self.state = 0  # debounced: bit set = held down
        self._lock = [0] * _COUNT  # ms of lock-out left per button
        self._held = [0] * _COUNT  # ms held since the press
        self._next_repeat = [0] * _COUNT  # hold time of the next auto-repeat
        self._long_done = 0  # bitmask: long press already reported for this hold
        self._edges = 0  # bitmask: press edges latched by the pins' IRQ, not yet taken
        self._latched_at = [0] * _COUNT  # clock ms of each latch
        self._taken_at = [0] * _COUNT  # clock ms of the last edge an update took
        self._tapped = 0  # bitmask: the last update's taps seen only by their latched edge
        self._mute = 0  # 0 live; 1 muted, waiting for a press; 2 muted until all released
        # buttons down that a read between updates saw up (the main loop's sleep, as it
        # watches for a release): the next update takes them as up, though its own read may
        # fall inside the release's bounce and see them down again
        self.seen = 0

    def read(self):
        """Return the raw pin state as a bitmask (bit set = pressed, i.e. pin low)."""
        raw = 0
        pins = self.pins
        if pins is None:
            return 0
        for i in range(_COUNT):
            if not pins[i].value():
                raw |= 1 << i
        return raw

    def update(self, dt_ms, raw=None):
        """Advance by dt_ms and sample; return the bitmask of new press/long/repeat events.
        (With no button down, latched, tapped or locked out, nothing changes: a small frame
        for those passes, most of them, which MicroPython keeps on the C stack, where
        tick's is taken from the heap at every call.)"""
        if raw is None:
            raw = self.read()
        if self.seen:
            raw &= ~self.seen
            self.seen = 0
        if raw or self.state or self._edges or self._tapped or self._mute == 2 or any(self._lock):
            return self.tick(dt_ms, raw)
        return 0

    def tick(self, dt_ms, raw):
        """update() with something to do. (Named as the app's tick: a name interned already,
        none added to the interned names' pool, which grows by a block wherever the heap has
        one.)"""
        events = 0
        lock = self._lock
        held = self._held
        edges = self._edges
        clock = self.clock
        now = 0
        if edges:  # (only armed pins latch, and they have a clock)
            self._edges ^= edges  # (an IRQ may latch another meanwhile: kept for the next)
            now = clock.ticks_ms()  # pyright: ignore (edges: a clock)
        tapped = 0
        for i in range(_COUNT):
            bit = 1 << i
            down = self.state & bit
            if lock[i] > dt_ms:
                lock[i] -= dt_ms
                # A button still locked keeps its debounced state; the change waits.
                if down:
                    events |= self._hold(i, bit, dt_ms)
                if edges & bit and self._fresh(i):
                    self._edges |= bit  # a new press inside the lock-out: for a later update
                continue
            lock[i] = 0  # (a lock-out that ended since the last update: this read counts)
            if (raw & bit) and not down:  # press edge: report now, then lock out
                self.state |= bit
                lock[i] = self.lockout_ms
                held[i] = 0
                self._next_repeat[i] = self.repeat_delay_ms
                self._long_done &= ~bit
                if not self.long_mask & bit:
                    events |= bit  # no long meaning: act on the press
                if clock is not None:
                    self._taken_at[i] = clock.ticks_ms()
                    if edges & bit:
                        # held since its latched edge, the finger's press, not since this
                        # update: a hold and a repeat are timed from the finger
                        since = clock.ticks_diff(self._taken_at[i], self._latched_at[i])
                        if 0 < since < self.long_ms:
                            held[i] = since
            elif down and not (raw & bit):  # release edge
                self.state &= ~bit
                lock[i] = self.lockout_ms
                if self.long_mask & bit and not self._long_done & bit:
                    events |= bit  # a tap: released before the long press
                if clock is not None:
                    self._taken_at[i] = clock.ticks_ms()
            elif down:
                events |= self._hold(i, bit, dt_ms)
            elif edges & bit and self._fresh(i):  # up now, a press latched since: a tap?
                if clock.ticks_diff(now, self._latched_at[i]) >= self.lockout_ms:  # pyright: ignore
                    lock[i] = self.lockout_ms
                    self._taken_at[i] = now
                    tapped |= bit  # pressed and let go between two updates
                else:
                    self._edges |= bit  # too young to tell from bounce: the next update
        self._tapped = tapped
        events |= tapped
        if self._mute:
            events = 0
            if self.state:
                self._mute = 2
            elif self._mute == 2 or tapped:
                self._mute = 0
        return events

    def _fresh(self, i):
        """Whether button i's latch came lockout_ms or more after the last edge taken (not
        that edge's bounce)."""
        diff = self.clock.ticks_diff  # pyright: ignore (a latch: a clock)
        return diff(self._latched_at[i], self._taken_at[i]) >= self.lockout_ms

    def mute(self):
        """Swallow events until the next press has been released (the display is dark)."""
        self._mute = 1

    def unmute(self):
        """Report events again (after the release of a button held now)."""
        self._mute = 2 if self.state else 0

    def _hold(self, i, bit, dt_ms):
        """Count hold time for a held button; return long/repeat events due."""
        held = self._held
        if held[i] < _HELD_CAP:
            held[i] += dt_ms
        events = 0
        if self.long_mask & bit:
            if not (self._long_done & bit) and held[i] >= self.long_ms:
                self._long_done |= bit
                events |= bit << LONG_SHIFT
        elif self.repeat_mask & bit and held[i] >= self._next_repeat[i]:
            events |= bit
            nxt = self._next_repeat[i]
            while nxt <= held[i]:
                nxt += self.repeat_ms
            self._next_repeat[i] = nxt
        return events

    def pressed(self):
        """Return the buttons held down now (debounced), and those tapped between the last two
        updates (seen by their latched edge only): the activity the power policy counts."""
        return self.state | self._tapped

    def latched(self):
        """Return the buttons whose press edge the IRQ latched since the last update."""
        return self._edges

    def holding(self):
        """Return the long-capable buttons held now whose tap or hold is not decided yet."""
        if self._mute:
            return 0
        return self.state & self.long_mask & ~self._long_done

    def reset(self):
        """Forget all state (after a long sleep the app may want a clean start)."""
        self.state = 0
        self._long_done = 0
        self._edges = 0
        self.seen = 0
        self._tapped = 0
        self._mute = 0
        for i in range(_COUNT):
            self._lock[i] = 0
            self._held[i] = 0

    def arm_wake(self):
        """Give every pin a hard falling-edge IRQ: it latches the press, with the time, for the
        updates (a tap shorter than a busy loop pass is not lost; needs the clock) and ends a
        light sleep early."""
        if self.pins is None:
            return
        for i in range(_COUNT):
            pin = self.pins[i]
            # (a lambda with defaults, no closure: a closure's cells are passed as arguments,
            # and past a few the call allocates, which an interrupt may not)
            pin.irq(handler=lambda _pin, b=self, i=i: b._irq(i), trigger=pin.IRQ_FALLING, hard=True)

    def _irq(self, i):
        """Pin i fell (runs as the interrupt: small ints only, nothing allocated): latch the
        press with the time, unless it is the bounce of the press latched just before."""
        now = self.clock.ticks_ms()  # pyright: ignore (armed: a clock)
        if (
            not self._edges & (1 << i)
            or self.clock.ticks_diff(now, self._latched_at[i]) >= self.lockout_ms  # pyright: ignore
        ):
            self._latched_at[i] = now
            self._edges |= 1 << i
