"""Drivers: the imperative shell's hardware and file access. They take built objects (Pins, I2C,
paths), never pin numbers; board.py builds them. The device's own settings are in
dicepod/device.py."""
