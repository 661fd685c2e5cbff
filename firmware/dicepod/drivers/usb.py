"""The USB link: every journal line out to the PC as a protocol line, the PC's few commands in.

Driver (shell): it writes to and reads from injected streams (on the Pico the USB CDC serial,
`sys.stdout.buffer` / `sys.stdin.buffer`; in tests a pty or BytesIO). Line format and commands:
dicepod.protocol. Contract (docs/ARCHITECTURE.md): `on_entry(line)` after each journal append,
`tick(dt_ms)` once per app tick; neither blocks the game (but for the one wait below).

Not stalling: on rp2 a plain print blocks while the PC holds the port open without reading
(MicroPython issue #9634). So output goes through a bounded queue of lines; each tick writes at
most `tick_bytes`, in chunks of `chunk` bytes, and only while select.poll says the stream is
writable. When the queue is full a new event is dropped (counted in `dropped`), never waited for:
it is in the journal, and the PC asks for it with `since N` when it sees the gap. One wait is
left, as the USB buffer fills while a PC program holds the port open without reading: the port
is writable with one byte free, and a chunk that does not fit waits for the PC to take bytes
(MicroPython's rp2 port gives up after 500 ms without progress; nothing in Python says how
much is free). On the emulated Pico, a Free roll Auto-roll 1000 with nobody reading stalls
once, for about a second.

Back-fill: `since N` replays the journal from seq N+1 a few lines per tick (from the segment
holding N+1, found by its name: no scan from the start), then sends an end line. Damaged lines
are skipped; a break line (events lost to flash damage) goes to the PC as a break line. The
journal's last seq, chain head, identity and last segment are the journal's own state, as
recover() left it and append() keeps it (`log`: the session's journal, set when the session
is made; the link never reads the journal to learn them).

`ack N` tells the journal the PC has stored 1..N (it may delete those when the flash is full).
`repl` sets `repl_asked`: the app hands over to MicroPython's REPL (see dicepod.app) and calls
finish() to send the repl line.
"""

import sys

try:
    import select
except ImportError:  # a port without select (e.g. some WebAssembly builds): no polling
    select = None

from micropython import const

from dicepod import MICROPYTHON_VERSION, journal, protocol

# Journal lines sent per tick by a back-fill: bounds the time of one tick.
_SCAN_LINES = const(48)
# Queue slots kept free for answers to commands (live events and back-fill use the others).
_REPLY_SLOTS = const(3)


class UsbLink:
    """Bounded, non-blocking protocol link over a pair of byte streams."""

    def __init__(
        self,
        device_id,
        log,
        out=None,
        inp=None,
        poll=True,
        queue_lines=16,
        chunk=64,
        tick_bytes=2048,
        fw=MICROPYTHON_VERSION,
    ):
        for ch in device_id:
            if ch not in journal.NAME_CHARS:
                raise ValueError("bad device id")
        self.device_id = device_id
        self.fw = fw
        self.out = out if out is not None else getattr(sys.stdout, "buffer", sys.stdout)
        self.inp = inp if inp is not None else getattr(sys.stdin, "buffer", sys.stdin)
        self._out_poll = None
        self._in_poll = None
        if poll and select is not None:
            self._out_poll = select.poll()
            self._out_poll.register(self.out, select.POLLOUT)
            self._in_poll = select.poll()
            self._in_poll.register(self.inp, select.POLLIN)
        self.chunk = chunk
        self.tick_bytes = tick_bytes
        # The queue: a ring of line slots (no pop(0), no allocation per tick).
        self._slots = [b""] * queue_lines
        self._head = 0
        self._count = 0
        self._line = b""  # the line being written
        self._pos = 0  # bytes of it already written
        # Command input: a fixed buffer; a longer line is discarded up to its newline.
        self._in = bytearray(protocol.MAX_COMMAND)
        self._in_len = 0
        self._in_overflow = False
        # The journal, recovered (the session's: board.assemble passes None, the session sets
        # it when it is made).
        self.log = log  # type: journal.Journal
        # Back-fill state.
        self._fill_since = -1  # -1: no back-fill running
        self._fill_seg = 0  # where it goes on: segment (0: find it from since) and offset
        self._fill_offset = 0
        self.repl_asked = False  # the PC asked for the REPL (`repl`)
        self.ms = 0  # milliseconds since the link started (the device's clock)
        self.epoch = None  # (PC Unix time, self.ms when it was set) from `time`
        self.dropped = 0  # lines dropped because the queue was full
        self.rejected = 0  # command lines answered with an error
        self.sent = 0  # lines written completely

    # --- queue ----------------------------------------------------------------------------------

    def _push(self, line, reserve):
        """Queue a line unless fewer than reserve slots would stay free; return True if queued."""
        if self._count + reserve >= len(self._slots):
            return False
        self._slots[(self._head + self._count) % len(self._slots)] = line
        self._count += 1
        return True

    def queued(self):
        """Return the number of lines waiting (the one being written included)."""
        return self._count + (1 if self._line else 0)

    def busy(self):
        """True while there is work for the next tick: lines to write, a back-fill running (it
        holds a place in a segment, which nothing may rewrite meanwhile), or bytes from the PC
        waiting to be read (a tick reads a bounded number)."""
        return (
            bool(self.queued())
            or self._fill_since >= 0
            or (self._in_poll is not None and self._readable())
        )

    def resend(self, since):
        """Send the journal's lines after seq since, as the PC's `since` would have them sent
        (lines the journal wrote without passing them to on_entry: a mend's lost events)."""
        if self._fill_since < 0 or since < self._fill_since:
            self._fill_since = since
            self._fill_seg = 0
            self._fill_offset = 0

    # --- contract -------------------------------------------------------------------------------

    @property
    def seq(self):
        """The journal's last seq."""
        return self.log.seq

    def on_entry(self, line):
        """Queue a journal line (bytes just appended by the journal) for the PC; never blocks."""
        try:
            wire = protocol.event_line(self.device_id, line, self.log.id)
        except ValueError:
            return
        if not self._push(wire, _REPLY_SLOTS):
            self.dropped += 1

    def tick(self, dt_ms):
        """One bounded step: read commands, back-fill a little, write what it may."""
        self.ms += dt_ms
        self._read_commands()
        if self._fill_since >= 0:
            self._fill()
        self._write()

    def finish(self, write=None):
        """Before the REPL takes the line: the journal's acknowledgement written, everything
        queued, then the repl line, written with write (default: the output stream's; it may
        block: the game has stopped)."""
        from dicepod import journalfix

        journalfix.save(self.log)
        write = write or self.out.write
        if self._line:
            write(self._line[self._pos :])
            self._line = b""
        while self._count:
            write(self._slots[self._head])
            self._slots[self._head] = b""
            self._head = (self._head + 1) % len(self._slots)
            self._count -= 1
        write(protocol.repl_line(self.device_id, self.seq))  # last, even with a full queue

    def wall_time(self, ms):
        """Return the Unix time (s) of device time ms, or None before the PC has sent `time`."""
        if self.epoch is None:
            return None
        return self.epoch[0] + (ms - self.epoch[1]) // 1000

    # --- back-fill ----------------------------------------------------------------------------

    def head(self):
        """Return the chain hash of the last journal line (journal.GENESIS when empty)."""
        return self.log.prev

    def _fill(self):
        """Queue a few journal lines of the running back-fill; finish with an end line."""
        log = self.log
        jid = log.id
        n = 0
        if not self._fill_seg:
            # The segment holding since + 1: the journal's last one (its state) for a recent
            # since, else an older one found by the segments' names (a listing).
            want = self._fill_since + 1
            if log.seg and want >= log.seg:
                self._fill_seg = log.seg
            else:
                for first in log.storage.segments():
                    if first <= want or not self._fill_seg:
                        self._fill_seg = first
            if not self._fill_seg:  # an empty journal
                self._push(protocol.end_line(self.device_id, log.seq, jid), 0)
                self._fill_since = -1
                return
        # (checked: damaged lines go as a break line, a gap as a gap; the journal notes the
        # segment in bad for the scrub to mend and mark)
        lines = log.lines(self._fill_since, self._fill_seg, self._fill_offset, True)
        try:
            for seg, offset, line in lines:
                if n >= _SCAN_LINES:
                    return
                n += 1
                wire = None
                sent = 0
                try:
                    if line[:1] == b"!":
                        wire = protocol.break_line(self.device_id, jid, line)
                        sent = int(line.split(b" ")[2])
                    else:
                        sent = journal.decode(line)[0][0]  # a damaged line is not sent
                        wire = protocol.event_line(self.device_id, line, jid)
                except ValueError:
                    pass
                if wire is not None and not self._push(wire, _REPLY_SLOTS):
                    return  # queue full: resume at this line next tick
                self._fill_seg = seg
                self._fill_offset = offset + len(line)
                if wire is not None:  # the next tick goes on after it (a gap found then
                    self._fill_since = sent  # starts there, not at the PC's since)
        finally:
            lines.close()
        if self._push(protocol.end_line(self.device_id, log.seq, jid), 0):
            self._fill_since = -1

    # --- commands -------------------------------------------------------------------------------

    def _readable(self):
        if self._in_poll is None:
            return True
        for _obj, flags in self._in_poll.poll(0):
            if flags & 1:  # select.POLLIN
                return True
        return False

    def _read_commands(self):
        budget = protocol.MAX_COMMAND * 2  # bytes read per tick
        try:
            while budget > 0 and self._readable():
                byte = self.inp.read(1)
                if not byte:
                    return
                budget -= 1
                self._on_byte(byte[0])
        except OSError:  # an unplugged or closed stream: nothing to read this tick
            return

    def _on_byte(self, b):
        if b == 10:  # "\n" ends a command
            if self._in_overflow:
                self._in_overflow = False
                self._reject("line too long")
            elif self._in_len:
                self._command(bytes(self._in[: self._in_len]))
            self._in_len = 0
        elif b == 13:  # "\r" is ignored
            return
        elif self._in_len < len(self._in):
            self._in[self._in_len] = b
            self._in_len += 1
        else:
            self._in_overflow = True
            self._in_len = 0

    def _reject(self, message):
        self.rejected += 1
        self._push(protocol.error_line(self.device_id, message), 0)

    def _command(self, text):
        try:
            name, arg = protocol.parse_command(text)
        except ValueError as err:
            self._reject(str(err.args[0]) if err.args else "bad command")
            return
        self._answer(name, arg)

    def _answer(self, name, arg):
        dev = self.device_id
        log = self.log
        if name == "hello":
            self._push(protocol.hello_line(dev, self.fw, log.seq, log.prev, self.ms, log.id), 0)
        elif name == "ping":
            self._push(protocol.pong_line(dev, log.seq, self.ms, arg or 0, log.id), 0)
        elif name == "time":
            self.epoch = (arg, self.ms)
            self._push(protocol.time_line(dev, self.ms, arg), 0)
        elif name == "since":
            self._fill_since = arg
            self._fill_seg = 0
            self._fill_offset = 0
        elif name == "ack":  # the journal writes it down at its next segment (or save)
            log.acked = max(log.acked, min(arg, log.seq))
        elif name == "repl":
            self.repl_asked = True

    # --- output ---------------------------------------------------------------------------------

    def _writable(self):
        if self._out_poll is None:
            return True
        for _obj, flags in self._out_poll.poll(0):
            if flags & 4:  # select.POLLOUT
                return True
        return False

    def _write(self):
        budget = self.tick_bytes
        try:
            while budget > 0:
                if not self._line:
                    if not self._count:
                        return
                    self._line = self._slots[self._head]
                    self._slots[self._head] = b""
                    self._head = (self._head + 1) % len(self._slots)
                    self._count -= 1
                    self._pos = 0
                if not self._writable():
                    return
                end = min(self._pos + self.chunk, len(self._line))
                line = self._line
                written = self.out.write(
                    line if end - self._pos == len(line) else line[self._pos : end]
                )
                if not written:  # None: would block (non-blocking stream)
                    return
                self._pos += written
                budget -= written
                if self._pos >= len(self._line):
                    self._line = b""
                    self.sent += 1
        except OSError:  # the PC side went away mid-line: drop that line, keep the game going
            self._line = b""
            self.dropped += 1
