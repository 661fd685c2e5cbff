"""`dicepod log`'s engine: serial bytes in, events stored exactly once, gaps back-filled.

Shell (serial port, SQLite, clock). Two layers, so the faults can be tested without a port:
- Ingest: bytes -> lines -> dicepod.protocol.parse -> Store. Splits on newlines, bounds a line's
  length, skips and counts anything malformed, torn or oversize, stores each (device, seq) once,
  tracks per device the contiguous prefix it holds, and queues the commands to send back
  (hello and time on connect, `since N` when there is a gap, ping now and then).
- run(): opens the port (pyserial URL or path, or `auto`: the first USB device with the Pico's
  vendor id), moves bytes both ways, commits in batches, and after an unplug (a read or write
  error) reopens the port with back-off and asks the device for what it missed.
"""

import os
import signal
import time

from dicepod import protocol
from dicepod_host.errors import UserError

PICO_VID = 0x2E8A
# A back-fill request is repeated when its end line has not come within this many seconds.
FILL_TIMEOUT = 3.0
# Seconds between pings (the pong carries the device's last seq: a gap at the tail shows).
PING_EVERY = 1.0
# Commit at least this often (seconds) and every this many events.
COMMIT_EVERY = 0.25
COMMIT_EVENTS = 5000
# Reopen back-off after an unplug: first wait, factor, longest wait (seconds).
BACKOFF = (0.1, 2.0, 2.0)


class _Device:
    """What the logger knows about one device's journal."""

    def __init__(self, have, above):
        self.have = have  # events 1..have are stored
        self.above = set(above)  # stored seqs above have (a gap lies below them)
        self.top = have  # highest seq the device has told us of
        self.fill_at = None  # monotonic time of the open `since` request, or None
        self.fill_have = -1  # `have` when the last `since` was sent
        self.missing = 0  # events the device could not send (its journal lacks them)


class Ingest:
    """Protocol bytes in, events into the store, commands out (see the module docstring)."""

    def __init__(self, store, clock=time.monotonic, on_event=None):
        self.store = store
        self.clock = clock
        self.on_event = on_event  # called with each newly stored event dict
        self.buf = bytearray()
        self.skipping = False  # inside an oversize line: drop bytes up to the next newline
        self.devices = {}
        self.device = None  # the device on the port (from hello or its first event)
        self.outbox = []  # command lines to send
        self.last_ping = None
        self.pending = 0  # events stored since the last commit
        self.last_event = clock()  # when the last event line arrived (for idle_exit)
        self.counts = {
            "lines": 0,
            "new": 0,
            "duplicate": 0,
            "conflict": 0,
            "malformed": 0,
            "oversize": 0,
            "device_errors": 0,
            "reconnects": 0,
        }

    # --- connection -----------------------------------------------------------------------------

    def connected(self):
        """A (re)opened port: forget any half line, ask who is there, give it the time."""
        self.buf = bytearray()
        self.skipping = False
        self.device = None
        self.outbox.append(protocol.command("hello"))
        self.outbox.append(protocol.command("time", int(time.time())))
        self.last_ping = self.clock()
        for state in self.devices.values():
            state.fill_at = None
            state.missing = 0

    def take_outbox(self):
        """Return and clear the command lines to send."""
        out, self.outbox = self.outbox, []
        return out

    def rejects(self):
        """Return the number of lines skipped as malformed, torn or oversize."""
        return self.counts["malformed"] + self.counts["oversize"]

    # --- bytes and lines ------------------------------------------------------------------------

    def feed(self, data):
        """Take bytes from the port."""
        buf = self.buf
        buf.extend(data)
        start = 0
        while True:
            end = buf.find(b"\n", start)
            if end < 0:
                break
            if self.skipping:
                self.skipping = False
            else:
                self._line(bytes(buf[start:end]))
            start = end + 1
        if start:
            del buf[:start]
        if len(buf) > protocol.MAX_LINE:
            if not self.skipping:
                self.counts["oversize"] += 1
            self.skipping = True
            del buf[:]

    def _line(self, line):
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line.strip():
            return
        self.counts["lines"] += 1
        if len(line) > protocol.MAX_LINE:
            self.counts["oversize"] += 1
            return
        try:
            obj = protocol.parse(line)
        except ValueError:
            self.counts["malformed"] += 1
            return
        kind = obj["type"]
        if kind == "event":
            self._event(obj)
        elif kind == "hello":
            self.device = obj["dev"]
            self.store.touch_device(obj["dev"], fw=str(obj.get("fw", "")) or None)
            self._seen_top(obj["dev"], obj["seq"])
        elif kind == "pong":
            self._seen_top(obj["dev"], obj["seq"])
        elif kind == "end":
            self._fill_end(obj["dev"], obj["seq"])
        elif kind == "error":
            self.counts["device_errors"] += 1

    def _state(self, device):
        state = self.devices.get(device)
        if state is None:
            have = self.store.contiguous_seq(device)
            above = self.store.seqs_above(device, have)
            state = self.devices[device] = _Device(have, above)
            if above:
                state.top = max(above)
        return state

    def _event(self, obj):
        device = obj["dev"]
        self.last_event = self.clock()
        if self.device is None:
            self.device = device
        state = self._state(device)
        result = self.store.add_event(obj)
        self.counts[result] += 1
        seq = obj["seq"]
        if seq > state.top:
            state.top = seq
        if result == "new":
            self.pending += 1
            if seq == state.have + 1:
                state.have = seq
                above = state.above
                while state.have + 1 in above:
                    state.have += 1
                    above.discard(state.have)
            elif seq > state.have:
                state.above.add(seq)
            if self.on_event:
                self.on_event(obj)
        self._want_fill(device, state)

    def _seen_top(self, device, seq):
        state = self._state(device)
        if seq > state.top:
            state.top = seq
        self._want_fill(device, state)

    def _fill_end(self, device, seq):
        state = self._state(device)
        if seq > state.top:
            state.top = seq
        was_open = state.fill_at is not None
        state.fill_at = None
        if was_open and state.have < state.top and state.fill_have == state.have:
            # A whole back-fill brought nothing new: the device's journal lacks these events.
            state.missing = state.top - state.have - len(state.above)
            return
        self._want_fill(device, state)

    def _want_fill(self, device, state):
        if state.have >= state.top or device != self.device:
            return
        if state.missing and state.fill_have == state.have:
            return  # given up on this gap until something changes (or a reconnect)
        now = self.clock()
        if state.fill_at is not None and now - state.fill_at < FILL_TIMEOUT:
            return
        state.fill_at = now
        state.fill_have = state.have
        state.missing = 0
        self.outbox.append(protocol.command("since", state.have))

    def tick(self):
        """Periodic work: ping, and repeat a back-fill request that got no end line."""
        now = self.clock()
        if self.last_ping is None or now - self.last_ping >= PING_EVERY:
            self.last_ping = now
            self.outbox.append(protocol.command("ping", 0))
        if self.device is not None:
            state = self.devices.get(self.device)
            if state is not None and state.fill_at is not None:
                if now - state.fill_at >= FILL_TIMEOUT:
                    state.fill_at = None
                    self._want_fill(self.device, state)


# --- the port ------------------------------------------------------------------------------------


def find_port():
    """Return the device path of the first USB serial port with the Pico's vendor id."""
    from serial.tools import list_ports

    ports = [p for p in list_ports.comports() if p.vid == PICO_VID]
    if not ports:
        raise UserError("no dicepod found (no USB serial port with vendor id 2E8A); use --port")
    return sorted(p.device for p in ports)[0]


def open_port(spec, timeout=0.05):
    """Open a port by path or pyserial URL; raise UserError when it cannot be opened."""
    import serial

    if "://" not in spec and not os.path.exists(spec):
        raise UserError("no such port: %s" % spec)
    try:
        return serial.serial_for_url(spec, baudrate=115200, timeout=timeout, write_timeout=0.5)
    except (serial.SerialException, OSError, ValueError) as err:
        raise UserError("cannot open port %s: %s" % (spec, err)) from err


class Unplugged(Exception):
    """The port went away (or the user asked for a simulated unplug)."""


def run(spec, store, view=None, clock=time.monotonic, sleep=time.sleep, idle_exit=None):
    """Log from the port until Ctrl-C (or idle_exit seconds without events); return the Ingest.

    spec: "auto", a device path or a pyserial URL. view: object with update(ingest) and
    event(obj) (the live view), or None. SIGUSR1 simulates an unplug (close and reopen);
    SIGTERM ends the run like Ctrl-C (everything received is committed).
    """
    import serial

    ingest = Ingest(store, clock=clock, on_event=view.event if view else None)
    unplug = []

    def _on_usr1(_signum, _frame):
        unplug.append(1)

    def _on_term(_signum, _frame):
        raise KeyboardInterrupt  # SIGTERM stops the logger like Ctrl-C: commit, then exit

    old_handlers = {}
    for name, handler in (("SIGUSR1", _on_usr1), ("SIGTERM", _on_term)):
        if hasattr(signal, name):
            try:
                old_handlers[name] = signal.signal(getattr(signal, name), handler)
            except ValueError:  # not the main thread: no signals here
                pass
    first = True
    wait = BACKOFF[0]
    last_commit = clock()
    port = None
    try:
        while True:
            try:
                port = open_port(find_port() if spec == "auto" else spec)
            except UserError:
                if first:
                    raise
                sleep(wait)
                wait = min(wait * BACKOFF[1], BACKOFF[2])
                continue
            first = False
            wait = BACKOFF[0]
            ingest.connected()
            try:
                while True:
                    if unplug:
                        del unplug[:]
                        raise Unplugged("simulated unplug")
                    for line in ingest.take_outbox():
                        port.write(line)
                    data = port.read(max(1, port.in_waiting))
                    now = clock()
                    if data:
                        ingest.feed(data)
                    elif idle_exit is not None and now - ingest.last_event >= idle_exit:
                        return ingest
                    ingest.tick()
                    if ingest.pending and (
                        ingest.pending >= COMMIT_EVENTS or now - last_commit >= COMMIT_EVERY
                    ):
                        store.commit()
                        ingest.pending = 0
                        last_commit = now
                    if view:
                        view.update(ingest)
            except (serial.SerialException, OSError, Unplugged):
                ingest.counts["reconnects"] += 1
                store.commit()
                ingest.pending = 0
                _close(port)
                port = None
                if view:
                    view.update(ingest)
                sleep(wait)
    except KeyboardInterrupt:
        return ingest
    finally:
        store.commit()
        _close(port)
        for name, handler in old_handlers.items():
            signal.signal(getattr(signal, name), handler)


def _close(port):
    if port is not None:
        try:
            port.close()
        except Exception:  # closing a vanished port may fail in any way; it is gone anyway
            pass
