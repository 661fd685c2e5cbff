"""A stand-in board on a pty: MicroPython's WebAssembly port under Node answering on a serial
port like a Pico's REPL, so mpremote and `dicepod deploy` work without hardware (tests, demos).

PC-side shell code. `StandIn()` opens a pty pair, starts `node standin.mjs` and copies bytes
between the pty and Node in two threads; `.port` is the device path to give mpremote (the
way a Pico shows up as /dev/ttyACM0). As a command it prints the port and runs until Ctrl-C:

    python -m dicepod_host.sim.standin
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
import tty
from pathlib import Path

from dicepod_host.errors import UserError
from dicepod_host.sim.server import MP_DIR

SCRIPT = Path(__file__).resolve().parent / "standin.mjs"
HEAP_BYTES = 192 * 1024  # about a Pico's MicroPython heap


class StandIn:
    """A MicroPython REPL on a pty. Use as a context manager or call close()."""

    def __init__(
        self, heap: int = HEAP_BYTES, node: str | None = None, ready_timeout: float = 15.0
    ) -> None:
        node = node or shutil.which("node")
        if not node:
            raise UserError("node is not installed: the stand-in board runs under Node")
        mjs = MP_DIR / "micropython.mjs"
        if not mjs.is_file():
            raise UserError("MicroPython's WebAssembly port is not installed: run ./dev setup")
        self.master, self.slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self.slave)
        self.port = os.ttyname(self.slave)
        self.proc = subprocess.Popen(
            [node, str(SCRIPT), str(mjs), str(heap)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
        )
        self._closed = False
        self.errors = bytearray()
        self._banner = threading.Event()
        threads = (self._to_node, self._from_node, self._stderr)
        self._threads = [threading.Thread(target=t, daemon=True) for t in threads]
        for thread in self._threads:
            thread.start()
        if not self._banner.wait(ready_timeout):
            self.close()
            raise UserError(f"the stand-in board did not start: {self.errors.decode()[-300:]}")

    def _to_node(self):
        while not self._closed:
            try:
                data = os.read(self.master, 4096)
            except OSError:
                time.sleep(0.01)  # no reader on the far side yet (EIO): keep waiting
                continue
            if not data:
                break
            try:
                assert self.proc.stdin is not None  # Popen with stdin=PIPE
                self.proc.stdin.write(data)
            except (BrokenPipeError, ValueError, OSError):
                break

    def _from_node(self):
        assert self.proc.stdout is not None and self.proc.stderr is not None  # PIPEs
        while True:
            try:
                data = os.read(self.proc.stdout.fileno(), 4096)
            except OSError:
                break
            if not data:
                break
            self._banner.set()
            view = memoryview(data)
            while view:
                try:
                    view = view[os.write(self.master, view) :]
                except OSError:
                    break

    def _stderr(self):
        assert self.proc.stderr is not None  # a PIPE
        for line in self.proc.stderr:
            self.errors.extend(line)

    def alive(self) -> bool:
        """True while Node runs."""
        return self.proc.poll() is None

    def close(self) -> None:
        """Stop Node and close the pty."""
        if self._closed:
            return
        self._closed = True
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self) -> StandIn:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def main() -> int:
    """Run a stand-in board until Ctrl-C; print its port."""
    try:
        board = StandIn()
    except UserError as err:
        print(f"dicepod: {err}", file=sys.stderr)
        return 1
    print(f"stand-in board (MicroPython WebAssembly port) on {board.port}  (Ctrl-C stops it)")
    print(f"try: mpremote connect {board.port} ls", flush=True)
    try:
        while board.alive():
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        board.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
