"""The USB link never stalls the game: real MicroPython writes thousands of events to a pty whose
other end is held open and never read (what blocks a Pico's print, MicroPython issue #9634). The
run must finish quickly, drop what does not fit, and leave only whole lines on the wire."""

import os
import subprocess
import time
import tty

from harness import mp_command

from dicepod import protocol_pc

SCRIPT = """
import sys
from dicepod import journal
from dicepod.drivers.storage import FileStorage
from dicepod.drivers.usb import UsbLink
storage = FileStorage(sys.argv[1])
j = journal.Journal(storage)
j.recover()
link = UsbLink("abcd", j)
link.on_entry(j.append(0, ("new_game", ("free",))))
for i in range(int(sys.argv[2])):
    link.on_entry(j.append(i, ("roll", (i % 6 + 1,))))
    link.tick(10)
sys.stderr.write("done sent=%d dropped=%d\\n" % (link.sent, link.dropped))
"""


def test_unread_pty_never_blocks_the_game(tmp_path):
    script = tmp_path / "stall.py"
    script.write_text(SCRIPT)
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        start = time.monotonic()
        out = subprocess.run(
            **mp_command([script, tmp_path, "3000"], heap="190k"),
            stdin=master,
            stdout=master,
            stderr=subprocess.PIPE,
            timeout=60,
        )
        elapsed = time.monotonic() - start
        assert out.returncode == 0, out.stderr.decode()[-2000:]
        report = out.stderr.decode()
        assert "done" in report
        sent = int(report.split("sent=")[1].split()[0])
        dropped = int(report.split("dropped=")[1].split()[0])
        assert dropped > 0 and sent + dropped <= 3001
        assert elapsed < 30
        os.set_blocking(slave, False)
        data = b""
        while True:
            try:
                chunk = os.read(slave, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            data += chunk
        lines = data.split(b"\n")
        seqs = [protocol_pc.parse(x)["seq"] for x in lines[:-1]]
        assert seqs == list(range(1, sent + 1))
        # the process ended with at most the start of the next line written (it would be
        # finished when the PC reads): never a line with a hole in it
        assert lines[-1] == b"" or lines[-1].startswith(b'{"v":1,"type":"event"')
    finally:
        os.close(master)
        os.close(slave)
