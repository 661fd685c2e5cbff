"""Beeper: short non-blocking tones on the optional piezo (PWM).

Driver (shell code). `Beeper(pwm)` takes a built machine.PWM on the piezo pin (or None: every
call does nothing, so the app need not care whether a piezo is fitted). `beep(freq_hz, ms)`
starts a tone and returns at once; `update(dt_ms)` (once per app tick) silences it when due.
"""

from micropython import const

_HALF_DUTY = const(32768)  # 50 % duty: the loudest square wave for a piezo


class Beeper:
    """One tone at a time; a new beep replaces the current one."""

    def __init__(self, pwm=None):
        self.pwm = pwm
        self.left_ms = 0
        if pwm is not None:
            pwm.duty_u16(0)

    def beep(self, freq_hz=2000, ms=30):
        """Start a tone of freq_hz for ms milliseconds."""
        if self.pwm is None:
            return
        self.pwm.freq(freq_hz)
        self.pwm.duty_u16(_HALF_DUTY)
        self.left_ms = ms

    def update(self, dt_ms):
        """Silence the tone when its time is up."""
        if self.left_ms > 0:
            self.left_ms -= dt_ms
            if self.left_ms <= 0 and self.pwm is not None:
                self.left_ms = 0
                self.pwm.duty_u16(0)

    def busy(self):
        """True while a tone is sounding."""
        return self.left_ms > 0
