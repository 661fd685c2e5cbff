"""Fake Pico hardware (`machine`, the OLED decoder) for the tests and `dicepod emulate`.

The folder is also put directly on MicroPython's import path (tests/harness.py FAKES), so its
modules import as `machine` and `oled_decode` there; on CPython they import as
`dicepod_host.fakeboard.machine` and `dicepod_host.fakeboard.oled_decode`."""
