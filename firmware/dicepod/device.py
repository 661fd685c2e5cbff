"""The device's own settings group ("device"): the same spec shape as the rules modules'
SETTINGS (see dicepod/settings.py), listed by the Settings screen ("Device") and stored with the
others; board.make() reads them at boot and Power.configure() applies the power ones at run time
(Beeper.configure() the volume).
Changing the display controller, the rotation or the display bus takes effect at the next
start. A time of 0 is "never" (a display in a lesson stays on). VALUE_NAMES names the values of
the multiple-choice ones for the settings screen.

A module of its own (not the drivers package): the app loads it only while a settings screen
needs it, so the table is not in RAM during a game. Pure data.
"""

SETTINGS = (
    ("device.display", 0, 0, 1, "Display"),  # 0 SSD1306 (0.96"), 1 SH1106 (1.3"); at restart
    ("device.rotate", 0, 0, 1, "Upside down"),  # 1: panel mounted rotated 180; at restart
    ("device.battery", 0, 0, 1, "Battery fitted"),  # 1: show the level read from VSYS
    ("device.bright", 207, 1, 255, "Brightness"),  # OLED contrast while awake (0xCF default)
    ("device.dim_s", 30, 0, 3600, "Dim after seconds"),  # idle s before dimming; 0 never
    ("device.off_s", 120, 0, 7200, "Off after seconds"),  # idle s before off + sleep; 0 never
    # The display's I2C at 1 MHz, past the controllers' 400 kHz rating: a new screen reaches the
    # panel in about half the time; most modules take it, and one that fails at boot gets 400 kHz.
    ("device.fastbus", 0, 0, 1, "Display bus"),  # at restart
    ("device.volume", 2, 0, 3, "Sound"),  # the piezo's loudness (drivers/beeper.py); 0 mute
)

VALUE_NAMES = (
    ("device.display", ("SSD1306", "SH1106")),
    ("device.rotate", ("No", "Yes")),
    ("device.battery", ("No", "Yes")),
    ("device.dim_s", ("Never",)),  # 0 names "never"; other values are seconds
    ("device.off_s", ("Never",)),
    ("device.volume", ("Mute", "Soft", "Medium", "Loud")),
    ("device.fastbus", ("400 kHz (rated)", "1 MHz (over spec)")),
)
