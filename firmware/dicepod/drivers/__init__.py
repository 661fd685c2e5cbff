"""Drivers: the imperative shell's hardware and file access. They take built objects (Pins, I2C,
paths), never pin numbers; board.py builds them.

SETTINGS are the device's own settings (same spec shape as the rules modules' SETTINGS, see
dicepod/settings.py), listed by the Settings screen and stored with the others; board.make()
reads them at boot and Power.configure() applies the power ones at run time. Changing the
display controller or its rotation takes effect at the next boot.
"""

SETTINGS = (
    ("device.display", 0, 0, 1, "Display 0=SSD1306 1=SH1106"),
    ("device.rotate", 0, 0, 1, "Screen upside down"),
    ("device.battery", 0, 0, 1, "Battery fitted"),
    ("device.bright", 207, 1, 255, "Brightness"),
    ("device.dim_s", 30, 5, 3600, "Dim after s"),
    ("device.off_s", 120, 10, 7200, "Screen off after s"),
)
