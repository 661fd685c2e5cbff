"""`dicepod log`'s engine: serial bytes in, events stored exactly once, gaps back-filled.

Shell (serial ports, SQLite, clock). Two layers, so the faults can be tested without a port:
- Ingest (one per port): bytes -> lines -> dicepod_host.records.parse_line -> Store. Splits on
  newlines, bounds a line's length, skips and counts anything malformed, torn, oversize or out of
  bounds, stores each (device, seq) once, tracks per device the contiguous prefix it holds, and
  queues the commands to send back (hello and time on connect, `since N` when there is a gap,
  ping now and then).
- Logger: every port at once. Its specs are paths or pyserial URLs (opened at the start, and
  reopened with back-off after an unplug), `auto` (every USB serial port with the Pico's vendor
  id) or a glob pattern (`/tmp/pods/*`): those are scanned again every SCAN_EVERY seconds, so a
  device plugged in later is logged too, and one unplugged is dropped until it is back. One loop
  waits on all ports (select), moves bytes both ways, and flushes the store in short write
  transactions (several loggers share a database: a flush that finds it locked is retried at
  the next one, never an exit).
"""

from __future__ import annotations

import glob
import os
import select
import signal
import time
from collections.abc import Callable
from typing import Any, Protocol

from dicepod import protocol_pc
from dicepod_host import records
from dicepod_host.errors import UserError
from dicepod_host.store import Store

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
_COUNTS = ("lines", "new", "duplicate", "conflict", "malformed", "oversize", "device_errors",
           "reconnects")  # fmt: skip
# Seconds between scans for new ports (auto and glob specs).
SCAN_EVERY = 1.0
# Longest wait for a port to become readable in one loop pass (seconds).
POLL = 0.05


class _Device:
    """What the logger knows about one device's journal."""

    def __init__(self, have: int, above: list[int]) -> None:
        self.have = have  # events 1..have are stored
        self.above = set(above)  # stored seqs above have (a gap lies below them)
        self.top = have  # highest seq the device has told us of
        self.fill_at: float | None = None  # monotonic time of the open `since` request, or None
        self.fill_have = -1  # `have` when the last `since` was sent
        self.missing = 0  # events the device could not send (its journal lacks them)
        self.acked = 0  # `have` when the device was last told (`ack N`) what is stored
        # Break lines waiting for their proof, the event they resume at: {to + 1: (from, prev)};
        # and the proven ones above a gap: {from: to}.
        self.resume: dict[int, tuple[int, str]] = {}
        self.jumps: dict[int, int] = {}
        self.held = 0  # seqs counted as held by proven breaks (lost on the device)


class Ingest:
    """Protocol bytes in, events into the store, commands out (see the module docstring)."""

    def __init__(
        self,
        store: Store,
        clock: Callable[[], float] = time.monotonic,
        on_event: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.on_event = on_event  # called with each newly stored event dict
        self.buf = bytearray()
        self.skipping = False  # inside an oversize line: drop bytes up to the next newline
        # What is known of each journal, by (device, journal id): the PC keys events on
        # (device, journal, seq), so a wiped device's new journal is another entry.
        self.devices: dict[tuple[str, str], _Device] = {}
        self.device: str | None = None  # the device on the port (from hello or its first event)
        self.key: tuple[str, str] | None = None  # (device, journal) on the port
        self.outbox: list[bytes] = []  # command lines to send
        self.last_ping: float | None = None
        self.pending = 0  # events stored since the last commit
        self.last_event = clock()  # when the last event line arrived (for idle_exit)
        self.counts: dict[str, int] = dict.fromkeys(_COUNTS, 0)
        # Events each journal lost to flash damage: {key: {first seq: how many}} (break lines).
        self.lost: dict[tuple[str, str], dict[int, int]] = {}

    # --- connection -----------------------------------------------------------------------------

    def connected(self) -> None:
        """A (re)opened port: forget any half line, ask who is there, give it the time."""
        self.buf = bytearray()
        self.skipping = False
        self.device = None
        self.key = None
        self.outbox.append(protocol_pc.command("hello"))
        self.outbox.append(protocol_pc.command("time", int(time.time())))
        self.last_ping = self.clock()
        for state in self.devices.values():
            state.fill_at = None
            state.missing = 0

    def take_outbox(self) -> list[bytes]:
        """Return and clear the command lines to send."""
        out, self.outbox = self.outbox, []
        return out

    def rejects(self) -> int:
        """Return the number of lines skipped as malformed, torn or oversize."""
        return self.counts["malformed"] + self.counts["oversize"]

    # --- bytes and lines ------------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
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
        if len(buf) > protocol_pc.MAX_LINE:
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
        if len(line) > protocol_pc.MAX_LINE:
            self.counts["oversize"] += 1
            return
        try:
            obj = records.parse_line(line)
        except ValueError:
            self.counts["malformed"] += 1
            return
        kind = obj["type"]
        key = (obj["dev"], obj.get("jid", ""))
        if kind == "event":
            self._event(obj, key)
        elif kind == "hello":
            self.device = obj["dev"]
            self.key = key
            self.store.touch_device(obj["dev"], fw=str(obj.get("fw", "")) or None)
            self.store.note_head(key[0], key[1], obj["seq"], str(obj.get("head", "")))
            self._seen_top(key, obj["seq"])
        elif kind == "pong":
            self.store.note_head(key[0], key[1], obj["seq"], None)
            self._seen_top(key, obj["seq"])
        elif kind == "end":
            self._fill_end(key, obj["seq"])
        elif kind == "break":
            # Events the device lost to flash damage: stored as such, and as far as the
            # back-fill is concerned they are there (it will never get them) once the event the
            # chain resumes at is stored with the break's prev: a line without that proof never
            # moves what the logger acknowledges.
            self.store.add_break(obj)
            self.lost.setdefault(key, {})[obj["from"]] = obj["to"] - obj["from"] + 1
            state = self._state(key)
            if obj["to"] >= obj["from"]:
                state.resume[obj["to"] + 1] = (obj["from"], obj["prev"])
        elif kind == "error":
            self.counts["device_errors"] += 1

    def _state(self, key):
        state = self.devices.get(key)
        if state is None:
            have = self.store.contiguous_seq(key[0], key[1])
            above = self.store.seqs_above(key[0], have, key[1])
            state = self.devices[key] = _Device(have, above)
            if above:
                state.top = max(above)
        return state

    def _have(self, state, seq):
        if seq == state.have + 1:
            state.have = seq
            self._absorb(state)
        elif seq > state.have:
            state.above.add(seq)

    def _absorb(self, state):
        """Move `have` up over the stored seqs and proven breaks that continue it."""
        above, jumps = state.above, state.jumps
        while True:
            if state.have + 1 in above:
                state.have += 1
                above.discard(state.have)
                continue
            starts = [first for first in jumps if first <= state.have + 1]
            if not starts:
                return
            for first in starts:
                state.have = max(state.have, jumps.pop(first))
            for seq in [seq for seq in above if seq <= state.have]:
                above.discard(seq)

    def _proven(self, state, obj):
        """A stored event that a waiting break line resumes at (its prev the break's): the
        events the break names count as held."""
        first, prev = state.resume.get(obj["seq"], (0, ""))
        if not first or obj["prev"] != prev:
            return
        del state.resume[obj["seq"]]
        state.held += obj["seq"] - first
        if first <= state.have + 1:
            state.have = max(state.have, obj["seq"] - 1)
            self._absorb(state)
        else:
            state.jumps[first] = obj["seq"] - 1

    def acknowledge(self) -> None:
        """After a flush: tell the device on the port what of its journal is stored (it may
        delete that when its flash is full)."""
        state = self.devices.get(self.key) if self.key is not None else None
        if state is not None and state.have > state.acked:
            state.acked = state.have
            self.outbox.append(protocol_pc.command("ack", state.have))

    def _event(self, obj, key):
        device = obj["dev"]
        self.last_event = self.clock()
        if self.device is None:
            self.device = device
        if self.key is None:
            self.key = key
        state = self._state(key)
        seq = obj["seq"]
        fresh = seq > state.have and seq not in state.above
        result = self.store.add_event(obj, fresh=fresh)
        self.counts[result] += 1
        if seq > state.top:
            state.top = seq
        if result == "new":
            self.pending += 1
            self._have(state, seq)
            if self.on_event:
                self.on_event(obj)
        if result != "conflict" and state.resume:
            self._proven(state, obj)
        self._want_fill(key, state)

    def _seen_top(self, key, seq):
        state = self._state(key)
        if seq > state.top:
            state.top = seq
        self._want_fill(key, state)

    def _fill_end(self, key, seq):
        state = self._state(key)
        if seq > state.top:
            state.top = seq
        was_open = state.fill_at is not None
        state.fill_at = None
        if was_open and state.have < state.top and state.fill_have == state.have:
            # A whole back-fill brought nothing new: the device's journal lacks these events.
            state.missing = state.top - state.have - len(state.above)
            return
        self._want_fill(key, state)

    def _want_fill(self, key, state):
        if state.have >= state.top or key != self.key:
            return
        if state.missing and state.fill_have == state.have:
            return  # given up on this gap until something changes (or a reconnect)
        now = self.clock()
        if state.fill_at is not None and now - state.fill_at < FILL_TIMEOUT:
            return
        state.fill_at = now
        state.fill_have = state.have
        state.missing = 0
        self.outbox.append(protocol_pc.command("since", state.have))

    def tick(self) -> None:
        """Periodic work: ping, and repeat a back-fill request that got no end line."""
        now = self.clock()
        if self.last_ping is None or now - self.last_ping >= PING_EVERY:
            self.last_ping = now
            self.outbox.append(protocol_pc.command("ping", 0))
        if self.key is not None:
            state = self.devices.get(self.key)
            if state is not None and state.fill_at is not None:
                if now - state.fill_at >= FILL_TIMEOUT:
                    state.fill_at = None
                    self._want_fill(self.key, state)


# --- the ports -----------------------------------------------------------------------------------


class View(Protocol):
    """What the logger tells a live view."""

    def event(self, obj: dict[str, Any]) -> None:
        """A newly stored event."""

    def update(self, ingest: Any) -> None:
        """Now and then: redraw from the counters (ingest: the Logger)."""


def pico_ports() -> list[str]:
    """Return the device paths of the USB serial ports with the Pico's vendor id, sorted."""
    from serial.tools import list_ports

    return sorted(p.device for p in list_ports.comports() if p.vid == PICO_VID)


def find_port() -> str:
    """Return the device path of the first USB serial port with the Pico's vendor id."""
    ports = pico_ports()
    if not ports:
        raise UserError("no dicepod found (no USB serial port with vendor id 2E8A); use --port")
    return ports[0]


def is_scan(spec: str) -> bool:
    """True for a spec that names ports to look for again and again (auto or a glob)."""
    return spec == "auto" or ("://" not in spec and any(c in spec for c in "*?["))


def scan(spec: str) -> list[str]:
    """Return the ports an auto or glob spec names now."""
    if spec == "auto":
        return pico_ports()
    return sorted(p for p in glob.glob(spec) if not os.path.isdir(p))


def open_port(spec: str, timeout: float = POLL) -> Any:
    """Open a port by path or pyserial URL; raise UserError when it cannot be opened."""
    import serial

    if "://" not in spec and not os.path.exists(spec):
        raise UserError(f"no such port: {spec}")
    try:
        return serial.serial_for_url(spec, baudrate=115200, timeout=timeout, write_timeout=0.5)
    except (serial.SerialException, OSError, ValueError) as err:
        raise UserError(f"cannot open port {spec}: {err}") from err


class Unplugged(Exception):
    """The port went away (or the user asked for a simulated unplug)."""


class Port:
    """One port the logger reads: its name, the open handle (or None), its Ingest."""

    def __init__(self, name: str, ingest: Ingest, scanned: bool) -> None:
        self.name = name
        self.ingest = ingest
        self.scanned = scanned  # found by a scan: dropped when it goes away, found again later
        self.handle: Any = None
        self.wait = BACKOFF[0]  # next reopen back-off
        self.delay = 0.0  # the back-off being waited out
        self.retry_at = 0.0  # monotonic time of the next reopen attempt


class Logger:
    """Every port of the specs into one store, until Ctrl-C (or idle_exit seconds without an
    event). SIGUSR1 simulates an unplug of every port (close and reopen); SIGTERM ends the run
    like Ctrl-C (everything received is written)."""

    def __init__(
        self,
        specs: str | list[str],
        store: Store,
        view: View | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        idle_exit: float | None = None,
    ) -> None:
        self.specs = [specs] if isinstance(specs, str) else list(specs)
        self.store = store
        self.view = view
        self.clock = clock
        self.sleep = sleep
        self.idle_exit = idle_exit
        self.ports: dict[str, Port] = {}
        self.reconnects = 0
        self.busy = 0  # flushes that found the database locked (retried)
        self.last_commit = clock()
        self.last_scan: float | None = None
        self.started = clock()
        self.unplug: list[int] = []

    # --- what the views and the summary read ----------------------------------------------

    @property
    def counts(self) -> dict[str, int]:
        """The counters of every port's Ingest, added up (plus reconnects and busy flushes)."""
        total: dict[str, int] = dict.fromkeys(_COUNTS, 0)
        for port in self.ports.values():
            for key, value in port.ingest.counts.items():
                total[key] = total.get(key, 0) + value
        total.setdefault("new", 0)
        total["reconnects"] = self.reconnects
        total["busy"] = self.busy
        return total

    def rejects(self) -> int:
        """Lines skipped as malformed, torn, oversize or out of bounds, on every port."""
        return sum(port.ingest.rejects() for port in self.ports.values())

    @property
    def device(self) -> str | None:
        """The devices on the open ports (comma-separated), or None."""
        names = sorted({p.ingest.device for p in self.ports.values() if p.ingest.device})
        return ", ".join(names) if names else None

    @property
    def last_event(self) -> float:
        """When the last event line arrived on any port (the start when none did)."""
        return max([self.started] + [p.ingest.last_event for p in self.ports.values()])

    # --- the steps ------------------------------------------------------------------------

    def run(self) -> Logger:
        """Log until Ctrl-C, SIGTERM or idle_exit; return self (the counters)."""
        old = self._install_signals()
        try:
            self.open_first()
            while not self.idle():
                self.scan_for_ports()
                self.reopen_due()
                self.pump(self.readable())
                self.commit_if_due()
                if self.view:
                    self.view.update(self)
        except KeyboardInterrupt:
            pass
        finally:
            self.finish()
            for name, handler in old.items():
                signal.signal(getattr(signal, name), handler)
        return self

    def _install_signals(self) -> dict[str, Any]:
        def _on_usr1(_signum: int, _frame: Any) -> None:
            self.unplug.append(1)

        def _on_term(_signum: int, _frame: Any) -> None:
            raise KeyboardInterrupt  # SIGTERM stops the logger like Ctrl-C: write, then exit

        old: dict[str, Any] = {}
        for name, handler in (("SIGUSR1", _on_usr1), ("SIGTERM", _on_term)):
            if hasattr(signal, name):
                try:
                    old[name] = signal.signal(getattr(signal, name), handler)
                except ValueError:  # not the main thread: no signals here
                    pass
        return old

    def _port(self, name: str, scanned: bool) -> Port:
        port = self.ports.get(name)
        if port is None:
            on_event = self.view.event if self.view else None
            ingest = Ingest(self.store, clock=self.clock, on_event=on_event)
            port = self.ports[name] = Port(name, ingest, scanned)
        return port

    def open_first(self) -> None:
        """Open every fixed port (a failure is an error) and what the scans find (none found
        at all is an error too: nothing to log)."""
        for spec in self.specs:
            if is_scan(spec):
                continue
            self.connect(self._port(spec, scanned=False), first=True)
        self.scan_for_ports()
        if not self.ports:
            if "auto" in self.specs:
                find_port()  # raises the one-line "no dicepod found"
            raise UserError("no port matches {}".format(" ".join(self.specs)))

    def connect(self, port: Port, first: bool = False) -> bool:
        """Open a port; True when it is open (False: retried after its back-off)."""
        try:
            port.handle = open_port(port.name)
        except UserError:
            if first:
                raise
            self._back_off(port)
            port.wait = min(port.wait * BACKOFF[1], BACKOFF[2])
            return False
        port.wait = BACKOFF[0]
        port.ingest.connected()
        return True

    def _back_off(self, port: Port) -> None:
        port.delay = port.wait
        port.retry_at = self.clock() + port.delay

    def scan_for_ports(self) -> None:
        """Every SCAN_EVERY seconds: open the ports the auto and glob specs name now."""
        now = self.clock()
        if self.last_scan is not None and now - self.last_scan < SCAN_EVERY:
            return
        self.last_scan = now
        for spec in self.specs:
            if not is_scan(spec):
                continue
            for name in scan(spec):
                port = self.ports.get(name)
                if port is None or (port.handle is None and port.scanned):
                    self.connect(self._port(name, scanned=True))

    def reopen_due(self) -> None:
        """Reopen the fixed ports whose back-off has passed. With no port open and nothing to
        scan for there is nothing else to do: sleep out the back-off first."""
        closed = [p for p in self.ports.values() if p.handle is None and not p.scanned]
        if not closed:
            return
        if not any(p.handle is not None for p in self.ports.values()) and not any(
            is_scan(s) for s in self.specs
        ):
            self.sleep(min(p.delay for p in closed))
            for port in closed:
                self.connect(port)
            return
        now = self.clock()
        for port in closed:
            if now >= port.retry_at:
                self.connect(port)

    def readable(self) -> list[Port]:
        """Wait up to POLL seconds for input; return the open ports to read."""
        open_ports = [p for p in self.ports.values() if p.handle is not None]
        if not open_ports:
            if any(is_scan(s) for s in self.specs):
                self.sleep(POLL)  # (with fixed ports only, reopen_due sleeps the back-off)
            return []
        try:
            fds = {p.handle.fileno(): p for p in open_ports}
        except (AttributeError, OSError, ValueError):
            return open_ports  # a URL or a test port without a descriptor: read with timeouts
        if any(p.ingest.outbox for p in open_ports) or any(
            getattr(p.handle, "in_waiting", 0) for p in open_ports
        ):
            return open_ports
        try:
            ready, _w, _x = select.select(list(fds), [], [], POLL)
        except (OSError, ValueError):
            return open_ports  # a descriptor went away: the read names the port
        return [fds[fd] for fd in ready] or open_ports[:0]

    def pump(self, ports: list[Port]) -> None:
        """Move bytes both ways on each port; an unplug closes it (reopened later)."""
        import serial

        if self.unplug:
            del self.unplug[:]
            for port in self.ports.values():
                if port.handle is not None:
                    self.unplugged(port)
            return
        for port in ports:
            try:
                self.exchange(port)
            except (serial.SerialException, OSError, Unplugged):
                self.unplugged(port)
        for port in self.ports.values():
            if port.handle is not None:
                port.ingest.tick()

    def exchange(self, port: Port) -> None:
        """Write the port's queued commands; read and feed what it has."""
        handle = port.handle
        for line in port.ingest.take_outbox():
            handle.write(line)
        data = handle.read(max(1, handle.in_waiting))
        if data:
            port.ingest.feed(data)

    def unplugged(self, port: Port) -> None:
        """A port went away: write what it sent, close it, reopen after the back-off."""
        self.reconnects += 1
        self.flush()
        _close(port.handle)
        port.handle = None
        self._back_off(port)
        if self.view:
            self.view.update(self)

    def flush(self) -> None:
        """Write the queued events in one short transaction; a locked database waits."""
        if self.store.flush():
            self.last_commit = self.clock()
            for port in self.ports.values():
                port.ingest.pending = 0
                port.ingest.acknowledge()
        else:
            self.busy += 1

    def commit_if_due(self) -> None:
        """Flush every COMMIT_EVERY seconds or COMMIT_EVENTS events."""
        pending = self.store.pending()
        if pending and (
            pending >= COMMIT_EVENTS or self.clock() - self.last_commit >= COMMIT_EVERY
        ):
            self.flush()

    def idle(self) -> bool:
        """True when idle_exit seconds have passed without an event line."""
        return self.idle_exit is not None and self.clock() - self.last_event >= self.idle_exit

    def finish(self) -> None:
        """Write everything (waiting out a lock, a few seconds at most) and close the ports."""
        for _ in range(20):
            if self.store.flush():
                break
            self.sleep(0.25)
        for port in self.ports.values():
            _close(port.handle)
            port.handle = None


def run(
    spec: str | list[str],
    store: Store,
    view: View | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    idle_exit: float | None = None,
) -> Logger:
    """Log from the ports until Ctrl-C (or idle_exit seconds without events); return the
    Logger (its counts). spec: one spec or a list (see the module docstring)."""
    return Logger(spec, store, view, clock, sleep, idle_exit).run()


def _close(port: Any) -> None:
    if port is not None:
        try:
            port.close()
        except Exception:  # closing a vanished port may fail in any way; it is gone anyway
            pass
