"""The Pico's wiring and the one place with pin numbers: make() builds the Board.

Shell code. Importing this module builds nothing (no `machine` import at module level), so it
imports on a PC; make() imports machine and builds every part, and assemble() puts the parts
together, the one way every board is built (the Pico's, the simulator's, the test boards').
Nothing made here refers back to this module (the Board's class is dicepod.parts'), so main.py
drops it once the board is built: its code leaves RAM.
The pin table below is the same as hardware/WIRING.md and hardware/diagram.json
(tests/test_board_wiring.py checks all three):

    signal      GPIO   Pico pin   goes to
    I2C0 SDA    GP4    6          OLED SDA (module has 4.7k-10k pull-ups to 3V3)
    I2C0 SCL    GP5    7          OLED SCL
    UP          GP10   14         button UP, other leg to GND (pin 18)
    DOWN        GP11   15         button DOWN, other leg to GND (pin 18)
    OK          GP12   16         button OK, other leg to GND (pin 18)
    BACK        GP13   17         button BACK, other leg to GND (pin 18)
    PIEZO       GP15   20         piezo +, piezo - to GND (pin 23) (optional)
    VBUS sense  GP24   (internal) high while USB power is present
    VSYS / 3    GP29   (internal) ADC3: VSYS through the Pico's 200k/100k divider

Power: OLED VCC from 3V3 (pin 36), GND (pin 38); battery (optional) through a Schottky diode
into VSYS (pin 39). Buttons use the RP2040/RP2350 internal pull-ups (~50k).
"""

I2C_ID = 0  # GP4/GP5 are I2C0's SDA/SCL
SDA = 4
SCL = 5
# The display bus by the device.fastbus setting: fast mode (the controllers' rating), or 1 MHz
# (over the rating: most modules take it, not all; the RP2040's SCL runs below the rate asked).
I2C_FREQ = (400_000, 1_000_000)
OLED_ADDR = 0x3C  # most modules; 0x3D with the address jumper moved
OLED_ADDR_ALT = 0x3D
BUTTON_PINS = (10, 11, 12, 13)  # UP, DOWN, OK, BACK (bit order of dicepod.drivers.buttons)
PIEZO = 15
VBUS_SENSE = 24
VSYS_ADC = 29  # ADC channel 3


def device_settings(storage, config=None):
    """Device settings as a dict: defaults, then the saved values in range. storage: the
    storage driver (its settings file is read) or the saved {key: int} values already read;
    config: a settings mapping (or Settings) instead of them."""
    from dicepod.device import SETTINGS
    from dicepod.settings import Settings, load

    saved = config
    if saved is None:
        saved = storage if isinstance(storage, dict) else load(storage, [])
    elif not isinstance(saved, dict):
        saved = saved.values  # a dicepod.settings.Settings: its values dict
    device = Settings(SETTINGS)
    for spec in SETTINGS:
        try:
            device.set(spec[0], saved.get(spec[0], spec[1]))
        except ValueError:
            pass  # out of range: the default (the app reports nothing; the device runs on it)
    return device.values


def back_held():
    """True while BACK is held (at power-up: the documented safe boot, no app, the REPL)."""
    import machine

    pin = machine.Pin(BUTTON_PINS[3], machine.Pin.IN, machine.Pin.PULL_UP)
    return pin.value() == 0


def assemble(
    storage,
    display,
    buttons,
    randbelow,
    device_id="",
    power=None,
    usb=None,
    beeper=None,
    clock=None,
    config=None,
    new_id=None,
):
    """Put a Board together from its parts: the one way every board is built (make() on the
    Pico and the fake machine, the browser simulator's host/dicepod_host/sim/web/simboard.py,
    the replay's device board tests/portable/app_device.py, the simulator's reference
    tests/support/sim_reference.py).

    storage: the storage driver; its settings file is read once (the device's settings, or
      config instead; the players' values go to the app as Board.saved).
    display: the display, or a function(values) -> display (the Pico picks its controller and
      rotation from the device settings); its contrast is set from the settings.
    buttons, randbelow, device_id: as on the Board.
    power: a function(display) -> the power policy (dicepod.drivers.power.Power on that
      display), or None for none; the policy is configured from the settings.
    usb: keyword arguments for dicepod.drivers.usb.UsbLink beside the device id
      (out, inp, poll), or None for no link.
    beeper: the beeper driver (configured from the settings: the volume), or None.
    clock: ticks_ms/ticks_diff/sleep_ms (a module or an object), or None. new_id: () -> 16
      random hex digits, a new journal's identity (None: the journal makes one from what is
      stored: tests).
    """
    from dicepod.parts import Board
    from dicepod.settings import load

    # The settings file, read once: the device's values now, the players' for the app
    # (Board.saved, and the lines to show about a corrupt file, Board.notices).
    notices = []
    saved = load(storage, notices)
    values = device_settings(saved, config)
    if callable(display):
        display = display(values)
    # (pyright narrows a called display to object; it is the display driver)
    display.contrast(values["device.bright"])  # pyright: ignore
    policy = None
    if power is not None:
        policy = power(display)
        policy.configure(values)
    if beeper is not None:
        beeper.configure(values)  # the volume
    link = None
    if usb is not None:
        from dicepod.drivers.usb import UsbLink

        link = UsbLink(device_id, None, **usb)  # its journal: the session's
    board = Board(
        display=display,
        buttons=buttons,
        randbelow=randbelow,
        storage=storage,
        power=policy,
        usb=link,
        beeper=beeper,
        device_id=device_id,
        new_id=new_id,
        settings=values,
        saved=saved,
        notices=notices,
    )
    if clock is not None:
        board.ticks_ms = clock.ticks_ms
        board.ticks_diff = clock.ticks_diff
        board.sleep_ms = clock.sleep_ms
    return board


def make(config=None, flash="", clock=None):
    """Build the Pico's Board. config: settings mapping (or Settings) instead of the saved file;
    flash: the directory of the journal and settings files ("" on a Pico: its root); clock:
    ticks_ms/ticks_diff/sleep_ms (None: the time module; a PC's fake machine brings a virtual
    clock that bounds a run, host/dicepod_host/fakeboard)."""
    import machine

    from dicepod.drivers import beeper, buttons, display, power, rng, storage

    def oled(values):
        fast = values["device.fastbus"]
        while True:
            i2c = machine.I2C(
                I2C_ID, scl=machine.Pin(SCL), sda=machine.Pin(SDA), freq=I2C_FREQ[fast]
            )
            addr = OLED_ADDR
            found = i2c.scan()
            if OLED_ADDR not in found and OLED_ADDR_ALT in found:
                addr = OLED_ADDR_ALT
            rotate = 180 if values["device.rotate"] else 0
            try:
                found = display.make(values["device.display"], i2c, addr, rotate=rotate)
            except OSError:
                if not fast:
                    raise
                fast = 0  # the module did not answer at 1 MHz: its rated rate
                continue
            found.freq = I2C_FREQ[fast]  # (its flush weighs a span's cost in bytes by it)
            return found

    idle = clock is None
    if clock is None:
        import time

        clock = time
    pins = [machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in BUTTON_PINS]
    keys = buttons.Buttons(pins, clock=clock)
    keys.arm_wake()
    try:
        from dicepod.drivers import usb  # noqa: F401  (a port without it: no link)

        link = {}
    except ImportError:
        link = None
    raw = None
    if not flash:  # the Pico's own flash: its blocks, for a journal its file system lost
        try:
            import rp2

            raw = rp2.Flash()
        except ImportError:
            pass
    board = assemble(
        storage.FileStorage(flash, raw),
        oled,
        keys,
        rng.HardwareRandom().randbelow,
        device_id=rng.hexdigits(machine.unique_id()),
        power=lambda oled: power.Power(
            oled,
            adc=machine.ADC(VSYS_ADC),
            vbus=machine.Pin(VBUS_SENSE, machine.Pin.IN),
            sleep=machine.lightsleep,
            buttons=keys,
        ),
        usb=link,
        beeper=beeper.Beeper(machine.PWM(machine.Pin(PIEZO), freq=2000, duty_u16=0)),
        clock=clock,
        config=config,
        new_id=rng.new_id,
    )
    if idle:  # the real clock: the main loop pauses while nothing happens
        from dicepod.drivers import idlesleep

        idlesleep.install(board, clock.sleep_ms, sleep_us=getattr(clock, "sleep_us", None))
    return board
