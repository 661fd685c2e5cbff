"""Journal identities on the PC (issue 12): a device's real journal and USB link (firmware code,
in-process) talk to the logger's Ingest through byte buffers, into a real SQLite store.

- A wiped device starts a new journal (a new random id) at seq 1: the PC stores it beside the
  old one (never a conflict, never grafted on it), and verify checks each journal's chain.
- verify reports a log that ends before the seq the device last reported (hello/pong).
- Events lost to flash damage come as a break line: stored, and verify passes the marked
  break (with a note) instead of failing the chain.
- The logger acknowledges what it stored (`ack N`); the device remembers it."""

from dicepod import journal, journalfix, protocol
from dicepod.drivers.memstorage import MemoryStorage
from dicepod.drivers.usb import UsbLink
from dicepod_host import logger
from dicepod_host.cli import main
from dicepod_host.store import Store
from dicepod_host.verify import verify_path

DEV = "e6614c311b7a2f35"


class Pipe:
    """One direction of the USB line: the writer appends, the reader takes."""

    def __init__(self):
        self.data = bytearray()

    def write(self, data):
        self.data.extend(data)
        return len(data)

    def read(self, n=1):
        chunk = bytes(self.data[:n])
        del self.data[:n]
        return chunk

    def take(self):
        chunk = bytes(self.data)
        del self.data[:]
        return chunk


class Device:
    """A dicepod's journal and USB link on a storage (a wipe = a new storage)."""

    def __init__(self, jid, storage=None):
        self.storage = storage or MemoryStorage()
        self.journal = journal.Journal(self.storage, lambda: jid)
        self.journal.recover()
        self.to_pc = Pipe()
        self.from_pc = Pipe()
        self.link = UsbLink(DEV, self.journal, out=self.to_pc, inp=self.from_pc, poll=False)
        self.n = 0

    def play(self, count, send=True):
        for _ in range(count):
            event = ("new_game", ("free",)) if self.n % 40 == 0 else ("roll", (self.n % 6 + 1,))
            line = self.journal.append(self.n * 10, event)
            if send:
                self.link.on_entry(line)
            self.n += 1
            self.link.tick(20)


def _session(device, ingest, store, ticks=400):
    """Connect the logger to the device and run both until the line is quiet."""
    ingest.connected()
    for _ in range(ticks):
        for line in ingest.take_outbox():
            device.from_pc.write(line)
        device.link.tick(20)
        ingest.feed(device.to_pc.take())
        ingest.tick()
        if store.flush():
            ingest.acknowledge()


def test_a_wiped_device_logs_a_new_journal_beside_the_old(tmp_path, capsys):
    db = tmp_path / "log.db"
    store = Store(db)
    ingest = logger.Ingest(store)
    old = Device("00000000000000a1")
    old.play(120)
    _session(old, ingest, store)
    wiped = Device("00000000000000b2")  # a fresh flash: seq 1 again, another journal id
    wiped.play(70, send=False)  # played while unplugged: the back-fill brings them
    ingest = logger.Ingest(store)
    _session(wiped, ingest, store)
    assert ingest.counts["conflict"] == 0
    assert store.count() == 190
    journals = [(j, n, first, last) for _d, j, n, first, last, _h in store.journals()]
    assert journals == [("00000000000000a1", 120, 1, 120), ("00000000000000b2", 70, 1, 70)]
    # the device was told what is stored
    assert wiped.journal.acked == 70
    store.close()
    report = verify_path(db)
    assert report.ok, [str(p) for p in report.problems]
    assert report.events == 190 and len(report.journals) == 2
    capsys.readouterr()
    assert main(["verify", str(db)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("OK: 1 device(s)")
    assert "journal 00000000000000a1 of device %s: 120 event(s), seq 1..120" % DEV in out
    assert "journal 00000000000000b2 of device %s: 70 event(s), seq 1..70" % DEV in out
    # Its exports carry each event's journal: verify checks both journals from either.
    for fmt in ("jsonl", "csv"):
        export = tmp_path / ("export." + fmt)
        assert main(["export", str(db), "--format", fmt, "-o", str(export)]) == 0
        report = verify_path(export)
        assert report.ok, (fmt, [str(p) for p in report.problems][:3])
        assert report.events == 190
        assert [j[1:] for j in report.journals] == [
            ("00000000000000a1", 120, 1, 120),
            ("00000000000000b2", 70, 1, 70),
        ]


def test_verify_reports_a_log_that_ends_before_the_reported_head(tmp_path):
    db = tmp_path / "log.db"
    store = Store(db)
    ingest = logger.Ingest(store)
    device = Device("00000000000000c3")
    device.play(50)
    ingest.connected()
    ingest.feed(device.to_pc.take()[:-4] + b"\n")  # the last line damaged: 49 stored
    ingest.feed(protocol.pong_line(DEV, device.journal.seq, 0, 0, device.journal.id))
    store.flush()
    store.close()
    report = verify_path(db)
    assert not report.ok
    assert "the log ends at seq 49 but the device reported seq 50" in str(report.problems[0])


def test_events_lost_to_flash_damage_are_a_marked_break(tmp_path):
    db = tmp_path / "log.db"
    store = Store(db)
    device = Device("00000000000000d4")
    device.play(300, send=False)
    segs = device.storage.segments()
    assert len(segs) >= 2
    seg = segs[0]  # damage in an older segment: event seg + 5 is lost
    data = bytearray(device.storage.segment(seg))
    at = data.find(b"\n%d " % (seg + 5)) + 3
    data[at] ^= 0x20
    device.storage.write(seg, data)
    assert journalfix.check(device.journal, seg)  # the device notices, marks the break
    ingest = logger.Ingest(store)
    _session(device, ingest, store, ticks=600)
    assert store.count() == 300  # 299 events and the device's chained mark of the break
    lost = [o for o in store.events() if o["event"][0] == "lost"]
    assert [o["event"][1] for o in lost] == [(seg + 5, seg + 5)]
    assert store.breaks() == [(DEV, "00000000000000d4", seg + 5, seg + 5, store.breaks()[0][4])]
    store.close()
    report = verify_path(db)
    assert report.ok, [str(p) for p in report.problems]
    assert any("lost to flash damage" in note for note in report.notes)
