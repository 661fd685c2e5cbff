"""The browser simulator: a local web server (server.py) and a page (web/) that runs the real
firmware on MicroPython's WebAssembly port, with the hardware layer (OLED, buttons, random
source, flash, USB) in JavaScript (web/sim.js) and its Python side in web/simboard.py."""
