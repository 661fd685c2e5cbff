"""The PC log: SQLite with devices, games and events, unique on (device, seq).

Shell (file I/O). Every event a dicepod sends is stored exactly once however often it arrives
(replays, reconnects, back-fills); a different event under a stored (device, seq) is a conflict
and is counted, never stored over the first. Events keep every protocol field, so `dicepod
verify` rechecks checksums and the hash chain from the database alone.
"""

import json
import sqlite3
import time
from pathlib import Path

from dicepod import journal
from dicepod_host.errors import UserError

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS devices (
    id TEXT PRIMARY KEY,
    fw TEXT,
    first_seen REAL NOT NULL,
    last_seen REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    device TEXT NOT NULL REFERENCES devices(id),
    game INTEGER NOT NULL,
    mode TEXT NOT NULL,
    first_seq INTEGER NOT NULL,
    started REAL,
    PRIMARY KEY (device, game)
);
CREATE TABLE IF NOT EXISTS events (
    device TEXT NOT NULL REFERENCES devices(id),
    seq INTEGER NOT NULL,
    game INTEGER NOT NULL,
    ms INTEGER NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    prev TEXT NOT NULL,
    crc TEXT NOT NULL,
    v INTEGER NOT NULL,
    received REAL NOT NULL,
    PRIMARY KEY (device, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS events_game ON events (device, game, seq);
"""


def _db_error(path, err):
    text = str(err)
    if "locked" in text or "busy" in text:
        return UserError("database %s is locked by another program" % path)
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return UserError("%s is not a dicepod database (or it is corrupt)" % path)
    return UserError("database %s: %s" % (path, text))


class Store:
    """One SQLite log file."""

    def __init__(self, path, create=True, timeout=2.0):
        self.path = str(path)
        if not create and not Path(self.path).is_file():
            raise UserError("no such database: %s" % self.path)
        if create and Path(self.path).is_dir():
            raise UserError("%s is a directory, not a database" % self.path)
        try:
            self.db = sqlite3.connect(self.path, timeout=timeout)
            self._check_or_create(create)
            if create:
                # A writer finds out now, not at its first event, when another program holds
                # the database's write lock.
                self.db.execute("BEGIN IMMEDIATE")
                self.db.rollback()
        except sqlite3.DatabaseError as err:
            raise _db_error(self.path, err) from err
        self._seen = {}  # device -> last_seen written (to touch devices rarely)

    def _check_or_create(self, create):
        db = self.db
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "meta" in tables:
            row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None or row[0] != str(SCHEMA_VERSION):
                raise UserError("%s: unsupported dicepod database schema" % self.path)
            return
        if tables:
            raise UserError("%s is not a dicepod database" % self.path)
        if not create:
            raise UserError("%s is not a dicepod database (it is empty)" % self.path)
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(_SCHEMA)
        db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        db.commit()

    def close(self):
        """Commit and close."""
        try:
            self.db.commit()
            self.db.close()
        except sqlite3.DatabaseError as err:
            raise _db_error(self.path, err) from err

    def commit(self):
        """Commit what has been added (the logger batches events between commits)."""
        try:
            self.db.commit()
        except sqlite3.DatabaseError as err:
            raise _db_error(self.path, err) from err

    # --- writing --------------------------------------------------------------------------------

    def touch_device(self, device, fw=None, now=None):
        """Record that device was seen (and its firmware version when known)."""
        now = time.time() if now is None else now
        try:
            self.db.execute(
                "INSERT INTO devices (id, fw, first_seen, last_seen) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET last_seen=excluded.last_seen, "
                "fw=COALESCE(excluded.fw, devices.fw)",
                (device, fw, now, now),
            )
        except sqlite3.DatabaseError as err:
            raise _db_error(self.path, err) from err
        self._seen[device] = now

    def add_event(self, obj, received=None):
        """Store one parsed protocol event; return "new", "duplicate" or "conflict"."""
        received = time.time() if received is None else received
        device = obj["dev"]
        kind, data = obj["event"]
        data_json = json.dumps(list(data), separators=(",", ":"))
        try:
            if device not in self._seen:
                self.touch_device(device, now=received)
            cur = self.db.execute(
                "INSERT OR IGNORE INTO events "
                "(device, seq, game, ms, kind, data, prev, crc, v, received) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    device,
                    obj["seq"],
                    obj["game"],
                    obj["ms"],
                    kind,
                    data_json,
                    obj["prev"],
                    obj["crc"],
                    obj["v"],
                    received,
                ),
            )
            if cur.rowcount == 0:
                row = self.db.execute(
                    "SELECT crc FROM events WHERE device=? AND seq=?", (device, obj["seq"])
                ).fetchone()
                return "duplicate" if row and row[0] == obj["crc"] else "conflict"
            if kind == "new_game" and data:
                self.db.execute(
                    "INSERT OR IGNORE INTO games (device, game, mode, first_seq, started) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (device, obj["game"], str(data[0]), obj["seq"], received),
                )
        except sqlite3.DatabaseError as err:
            raise _db_error(self.path, err) from err
        return "new"

    # --- reading --------------------------------------------------------------------------------

    def devices(self):
        """Return the device ids, sorted."""
        return [r[0] for r in self._query("SELECT id FROM devices ORDER BY id")]

    def games(self, device=None):
        """Return (device, game, mode, first_seq) rows, in order."""
        if device is None:
            sql = "SELECT device, game, mode, first_seq FROM games ORDER BY device, game"
            return self._query(sql)
        sql = "SELECT device, game, mode, first_seq FROM games WHERE device=? ORDER BY game"
        return self._query(sql, (device,))

    def contiguous_seq(self, device):
        """Return the highest S such that events 1..S of device are all stored (0 if none)."""
        row = self._query(
            "SELECT COUNT(*), MAX(seq) FROM events WHERE device=?", (device,), one=True
        )
        count, top = row if row else (0, None)
        if not count:
            return 0
        if count == top:
            return top
        first = self._query("SELECT 1 FROM events WHERE device=? AND seq=1", (device,), one=True)
        if not first:
            return 0
        row = self._query(
            "SELECT e.seq FROM events e WHERE e.device=? AND NOT EXISTS "
            "(SELECT 1 FROM events f WHERE f.device=e.device AND f.seq=e.seq+1) "
            "ORDER BY e.seq LIMIT 1",
            (device,),
            one=True,
        )
        return row[0] if row else 0

    def seqs_above(self, device, seq):
        """Return the stored seqs of device above seq (ascending)."""
        sql = "SELECT seq FROM events WHERE device=? AND seq>? ORDER BY seq"
        return [r[0] for r in self._query(sql, (device, seq))]

    def count(self, device=None):
        """Return the number of stored events (of one device, or all)."""
        if device is None:
            return self._query("SELECT COUNT(*) FROM events", one=True)[0]
        return self._query("SELECT COUNT(*) FROM events WHERE device=?", (device,), one=True)[0]

    def events(self, device=None, received=False):
        """Iterate stored events as protocol dicts, by device then seq (with the PC's receive
        time under "received" when asked)."""
        sql = (
            "SELECT v, device, seq, game, ms, kind, data, prev, crc, received FROM events "
            + ("WHERE device=? " if device is not None else "")
            + "ORDER BY device, seq"
        )
        args = (device,) if device is not None else ()
        try:
            cursor = self.db.execute(sql, args)
            for v, dev, seq, game, ms, kind, data, prev, crc, when in cursor:
                try:
                    values = tuple(json.loads(data))
                except ValueError:
                    values = ("<corrupt>",)
                obj = {
                    "v": v,
                    "type": "event",
                    "dev": dev,
                    "seq": seq,
                    "game": game,
                    "ms": ms,
                    "event": (kind, values),
                    "prev": prev,
                    "crc": crc,
                }
                if received:
                    obj["received"] = when
                yield obj
        except sqlite3.DatabaseError as err:
            raise _db_error(self.path, err) from err

    def _query(self, sql, args=(), one=False):
        try:
            cur = self.db.execute(sql, args)
            return cur.fetchone() if one else cur.fetchall()
        except sqlite3.DatabaseError as err:
            raise _db_error(self.path, err) from err


def head_of(obj):
    """Return the chain hash of a stored or parsed event (what the next prev must be)."""
    body = journal.body_bytes(
        obj["seq"], obj["game"], obj["ms"], obj["prev"], journal.canonical(obj["event"])
    )
    return journal.chain_hash(body)
