"""board.make()'s options on the fake machine, read by firmware/main.py when this folder is on
the import path (a Pico has no such module): the directory for the flash files
(DICEPOD_FAKE_FLASH) and the virtual clock that bounds a run (DICEPOD_FAKE_TICKS). Never
deployed."""

import machine

OPTIONS = {"flash": machine.FAKE_FLASH, "clock": machine.FAKE_CLOCK}
