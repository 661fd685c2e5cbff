"""The PC log: SQLite with devices, games, events and player names, unique on (device,
journal, seq).

Shell (file I/O). Every event a dicepod sends is stored exactly once however often it arrives
(replays, reconnects, back-fills); a different event under a stored (device, journal, seq) is a
conflict and is counted, never stored over the first. A journal is the device's identity for
one run of its flash (protocol "jid"; "" for protocol 1 lines): a wiped or re-flashed device
starts a new journal at seq 1, stored beside the old one. The store also keeps, per journal,
the last seq the device reported (heads) and the events it lost to flash damage (breaks).
Events keep every protocol field, so `dicepod verify` rechecks checksums and the hash chain
from the database alone.

Several programs share one database: it is in WAL mode (readers never block the writer), and a
writer holds the write lock only for the moment of a flush: add_event() and touch_device() queue
rows in memory and flush() writes them in one short transaction (`BEGIN IMMEDIATE` .. `COMMIT`).
flush() returns False when another writer holds the lock past the busy timeout, keeping the rows
for the next try: the logger never exits on "database is locked"; commit() raises UserError
for the one-shot writers (`dicepod players`). Creating the schema is one transaction too, so a
program killed while creating a database, or two creating it at once, leave a whole database.

The schema lives in MIGRATIONS only: one step per version, applied in order in one transaction
when a database is opened. To add a column, append a step with its `ALTER TABLE`.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dicepod import journal
from dicepod_host.errors import LockedError, UserError
from dicepod_host.records import EventLine, StoredEvent

# (version, statements): a database at version N gets the steps after N, in one transaction.
MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (
        1,
        (
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            "CREATE TABLE devices (id TEXT PRIMARY KEY, fw TEXT, first_seen REAL NOT NULL, "
            "last_seen REAL NOT NULL)",
            "CREATE TABLE games (device TEXT NOT NULL REFERENCES devices(id), "
            "game INTEGER NOT NULL, mode TEXT NOT NULL, first_seq INTEGER NOT NULL, "
            "started REAL, PRIMARY KEY (device, game))",
            "CREATE TABLE events (device TEXT NOT NULL REFERENCES devices(id), "
            "seq INTEGER NOT NULL, game INTEGER NOT NULL, ms INTEGER NOT NULL, "
            "kind TEXT NOT NULL, data TEXT NOT NULL, prev TEXT NOT NULL, crc TEXT NOT NULL, "
            "v INTEGER NOT NULL, received REAL NOT NULL, PRIMARY KEY (device, seq)) WITHOUT ROWID",
            "CREATE INDEX events_game ON events (device, game, seq)",
        ),
    ),
    (
        2,
        (
            # Player names kept on the PC: game 0 holds a device's standing names (slot 0 = the
            # first player), a game's own rows override them for that game.
            "CREATE TABLE players (device TEXT NOT NULL, game INTEGER NOT NULL, "
            "slot INTEGER NOT NULL, name TEXT NOT NULL, PRIMARY KEY (device, game, slot))",
        ),
    ),
    (
        3,
        (
            # Journal identities (issue 12): events and games are unique on (device, journal,
            # seq) / (device, journal, game); a wiped or re-flashed device's new journal is
            # stored beside the old one. Rows of earlier databases get journal "" (protocol 1).
            # heads: the last seq and chain head a device reported (hello/pong) per journal;
            # breaks: events a device lost to flash damage (its journal's break lines).
            "CREATE TABLE events3 (device TEXT NOT NULL REFERENCES devices(id), "
            "journal TEXT NOT NULL, seq INTEGER NOT NULL, game INTEGER NOT NULL, "
            "ms INTEGER NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL, prev TEXT NOT NULL, "
            "crc TEXT NOT NULL, v INTEGER NOT NULL, received REAL NOT NULL, "
            "PRIMARY KEY (device, journal, seq)) WITHOUT ROWID",
            "INSERT INTO events3 SELECT device, '', seq, game, ms, kind, data, prev, crc, v, "
            "received FROM events",
            "DROP TABLE events",
            "ALTER TABLE events3 RENAME TO events",
            "CREATE INDEX events_game ON events (device, journal, game, seq)",
            "CREATE TABLE games3 (device TEXT NOT NULL REFERENCES devices(id), "
            "journal TEXT NOT NULL, game INTEGER NOT NULL, mode TEXT NOT NULL, "
            "first_seq INTEGER NOT NULL, started REAL, PRIMARY KEY (device, journal, game))",
            "INSERT INTO games3 SELECT device, '', game, mode, first_seq, started FROM games",
            "DROP TABLE games",
            "ALTER TABLE games3 RENAME TO games",
            "CREATE TABLE heads (device TEXT NOT NULL, journal TEXT NOT NULL, "
            "seq INTEGER NOT NULL, head TEXT NOT NULL, seen REAL NOT NULL, "
            "PRIMARY KEY (device, journal))",
            "CREATE TABLE breaks (device TEXT NOT NULL, journal TEXT NOT NULL, "
            "first INTEGER NOT NULL, last INTEGER NOT NULL, prev TEXT NOT NULL, "
            "PRIMARY KEY (device, journal, first))",
        ),
    ),
    (
        4,
        (
            # Player names per journal and game (issue 47): a device's standing names (game 0)
            # named every later game, co-op ones included, and a re-flashed device's games of
            # both journals; they become the names of the games logged when they were set.
            "CREATE TABLE players4 (device TEXT NOT NULL, journal TEXT NOT NULL, "
            "game INTEGER NOT NULL, slot INTEGER NOT NULL, name TEXT NOT NULL, "
            "PRIMARY KEY (device, journal, game, slot))",
            "INSERT INTO players4 SELECT p.device, g.journal, p.game, p.slot, p.name "
            "FROM players p JOIN games g ON g.device = p.device AND g.game = p.game "
            "WHERE p.game > 0",
            "INSERT INTO players4 SELECT p.device, g.journal, g.game, p.slot, p.name "
            "FROM players p JOIN games g ON g.device = p.device WHERE p.game = 0 AND NOT EXISTS "
            "(SELECT 1 FROM players q WHERE q.device = p.device AND q.game = g.game)",
            "DROP TABLE players",
            "ALTER TABLE players4 RENAME TO players",
        ),
    ),
)
SCHEMA_VERSION = MIGRATIONS[-1][0]
_EVENT_COLUMNS = "device, journal, seq, game, ms, kind, data, prev, crc, v, received"
# Longest player name and most players per device or game kept on the PC.
MAX_PLAYER_NAME = 24
MAX_PLAYERS = 8


def _is_busy(err: Exception) -> bool:
    text = str(err)
    return "locked" in text or "busy" in text


def db_error(path: str, err: Exception) -> UserError:
    """The one mapping of SQLite's errors to a one-line UserError."""
    text = str(err)
    if _is_busy(err):
        return LockedError(f"database {path} is locked by another program")
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return UserError(f"{path} is not a dicepod database (or it is corrupt)")
    return UserError(f"database {path}: {text}")


class Store:
    """One SQLite log file (a context manager: `with Store(path) as store:` closes it); a
    postgresql:// URL opens the same store on a server instead (store_pg.PgStore)."""

    def __new__(cls, path: str | Path, *args: Any, **kwargs: Any) -> Store:
        if cls is Store and str(path).startswith(("postgresql://", "postgres://")):
            from dicepod_host.store_pg import PgStore

            return object.__new__(PgStore)
        return super().__new__(cls)

    def __init__(self, path: str | Path, create: bool = True, timeout: float = 2.0) -> None:
        self.path = str(path)
        p = Path(self.path)
        if not create and not p.is_file():
            if p.exists() and not p.is_dir():
                raise UserError(f"{self.path} is not a regular file, not a database")
            raise UserError(f"no such database: {self.path}")
        if p.is_dir():
            raise UserError(f"{self.path} is a directory, not a database")
        if p.exists() and not p.is_file():
            raise UserError(f"{self.path} is not a regular file, not a database")
        self._events: list[tuple[Any, ...]] = []  # queued event rows (see the docstring)
        self._keys: dict[tuple[str, str, int], str] = {}  # (device, journal, seq) -> queued crc
        self._games: list[tuple[Any, ...]] = []
        self._devices: dict[str, tuple[str | None, float]] = {}  # device -> (fw, last seen)
        self._heads: dict[tuple[str, str], tuple[Any, ...]] = {}  # (device, journal) -> row
        self._breaks: list[tuple[Any, ...]] = []
        self._seen: dict[str, float] = {}  # device -> last_seen written (to touch rarely)
        self.timeout = timeout
        with self.errors():
            self.db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
        try:
            with self.errors():
                self._open(create)
        except UserError:
            self.db.close()
            raise

    # --- opening --------------------------------------------------------------------------------

    @contextmanager
    def errors(self) -> Iterator[None]:
        """Map SQLite's errors inside the block to one-line UserErrors."""
        try:
            yield
        except sqlite3.DatabaseError as err:
            raise db_error(self.path, err) from err

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _version(self) -> int | None:
        """Return the schema version; None for an empty file; raise for a foreign one."""
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master")}
        if "meta" in tables:
            row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None or not str(row[0]).isdigit() or int(row[0]) > SCHEMA_VERSION:
                raise UserError(f"{self.path}: unsupported dicepod database schema")
            return int(row[0])
        if tables:
            raise UserError(f"{self.path} is not a dicepod database")
        return None

    def _open(self, create: bool) -> None:
        version = self._version()
        if version == SCHEMA_VERSION:
            return
        if version is None and not create:
            raise UserError(f"{self.path} is not a dicepod database (it is empty)")
        if version is None:
            # Before the transaction (SQLite cannot switch inside one); kept in the file.
            self._wal()
        self.db.execute("BEGIN IMMEDIATE")
        try:
            version = self._version() or 0  # another program may have created it meanwhile
            for step, statements in MIGRATIONS:
                if step > version:
                    for sql in statements:
                        self.db.execute(sql)
            self.db.execute(
                "INSERT INTO meta VALUES ('schema', ?) "
                "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (str(SCHEMA_VERSION),),
            )
            self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise

    def _wal(self) -> None:
        """Switch a new file to WAL. SQLite answers "database is locked" at once, without
        waiting for the busy timeout, while another program creating the same file holds a
        lock (three `dicepod log` starting together: one of them failed): retried until the
        timeout."""
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as err:
                if not _is_busy(err) or time.monotonic() >= deadline:
                    raise
                time.sleep(0.02)

    def close(self) -> None:
        """Write what is queued and close."""
        try:
            self.commit()
        finally:
            self.db.close()

    # --- writing --------------------------------------------------------------------------------

    def pending(self) -> int:
        """Return the number of queued event rows."""
        return len(self._events)

    def flush(self) -> bool:
        """Write the queued rows in one short transaction. Return False (rows kept) when another
        program holds the write lock past the busy timeout; raise UserError for other errors."""
        if not (self._events or self._games or self._devices or self._heads or self._breaks):
            return True
        db = self.db
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                if self._devices:
                    db.executemany(
                        "INSERT INTO devices (id, fw, first_seen, last_seen) VALUES (?, ?, ?, ?) "
                        "ON CONFLICT(id) DO UPDATE SET last_seen=excluded.last_seen, "
                        "fw=COALESCE(excluded.fw, devices.fw)",
                        [(d, fw, now, now) for d, (fw, now) in self._devices.items()],
                    )
                db.executemany(
                    f"INSERT OR IGNORE INTO events ({_EVENT_COLUMNS}) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    self._events,
                )
                db.executemany(
                    "INSERT OR IGNORE INTO games (device, journal, game, mode, first_seq, "
                    "started) VALUES (?, ?, ?, ?, ?, ?)",
                    self._games,
                )
                db.executemany(
                    "INSERT INTO heads (device, journal, seq, head, seen) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT(device, journal) DO UPDATE SET seq=excluded.seq, "
                    "head=excluded.head, seen=excluded.seen",
                    list(self._heads.values()),
                )
                db.executemany(
                    "INSERT OR IGNORE INTO breaks (device, journal, first, last, prev) "
                    "VALUES (?, ?, ?, ?, ?)",
                    self._breaks,
                )
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except sqlite3.OperationalError as err:
            if _is_busy(err):
                return False
            raise db_error(self.path, err) from err
        except sqlite3.DatabaseError as err:
            raise db_error(self.path, err) from err
        self._events.clear()
        self._keys.clear()
        self._games.clear()
        self._devices.clear()
        self._heads.clear()
        del self._breaks[:]
        return True

    def commit(self) -> None:
        """Write what has been queued; raise UserError when the database stays locked."""
        if not self.flush():
            raise LockedError(f"database {self.path} is locked by another program")

    def touch_device(self, device: str, fw: str | None = None, now: float | None = None) -> None:
        """Record that device was seen (and its firmware version when known)."""
        now = time.time() if now is None else now
        old = self._devices.get(device)
        self._devices[device] = (fw if fw is not None else (old[0] if old else None), now)
        self._seen[device] = now

    def add_event(self, obj: EventLine, received: float | None = None, fresh: bool = False) -> str:
        """Queue one parsed protocol event; return "new", "duplicate" or "conflict".

        fresh: the caller knows the database had no event under this (device, seq) when it
        last looked (the logger tracks what it stored), so only the queue is checked."""
        received = time.time() if received is None else received
        device = obj["dev"]
        jid = obj.get("jid", "")
        seq = obj["seq"]
        key = (device, jid, seq)
        crc = self._keys.get(key)
        if crc is None and not fresh:
            with self.errors():
                row = self.db.execute(
                    "SELECT crc FROM events WHERE device=? AND journal=? AND seq=?", key
                ).fetchone()
            crc = row[0] if row else None
        if crc is not None:
            return "duplicate" if crc == obj["crc"] else "conflict"
        if device not in self._seen:
            self.touch_device(device, now=received)
        kind, data = obj["event"]
        data_json = json.dumps(list(data), separators=(",", ":"))
        self._keys[key] = obj["crc"]
        self._events.append(
            (device, jid, seq, obj["game"], obj["ms"], kind, data_json, obj["prev"], obj["crc"],
             obj["v"], received)
        )  # fmt: skip
        if kind == "new_game" and data:
            self._games.append((device, jid, obj["game"], str(data[0]), seq, received))
        return "new"

    def note_head(
        self, device: str, jid: str, seq: int, head: str | None, now: float | None = None
    ) -> None:
        """Queue the last seq (and chain head, from hello) a device reported for a journal."""
        old = self._heads.get((device, jid))
        if head is None:
            head = old[3] if old and old[2] == seq else ""
        self._heads[(device, jid)] = (device, jid, seq, head, time.time() if now is None else now)

    def add_break(self, obj: dict[str, Any]) -> None:
        """Queue a parsed break line: events from..to of a journal lost to flash damage."""
        self._breaks.append((obj["dev"], obj.get("jid", ""), obj["from"], obj["to"], obj["prev"]))

    def journals(self, device: str | None = None) -> list[tuple[Any, ...]]:
        """Return (device, journal, events, first seq, last seq, reported seq) per journal, in
        the order each was first received."""
        sql = (
            "SELECT e.device, e.journal, COUNT(*), MIN(e.seq), MAX(e.seq), "
            "(SELECT h.seq FROM heads h WHERE h.device=e.device AND h.journal=e.journal) "
            "FROM events e "
            + ("WHERE e.device=? " if device is not None else "")
            + "GROUP BY e.device, e.journal ORDER BY e.device, MIN(e.received)"
        )
        return self._query(sql, (device,) if device is not None else ())

    def heads(self) -> dict[tuple[str, str], int]:
        """Return {(device, journal): the last seq the device reported}."""
        return {(d, j): s for d, j, s in self._query("SELECT device, journal, seq FROM heads")}

    def breaks(self) -> list[tuple[Any, ...]]:
        """Return (device, journal, first, last, prev) rows of lost events."""
        return self._query("SELECT device, journal, first, last, prev FROM breaks ORDER BY 1, 2, 3")

    def set_players(
        self, device: str, names: Sequence[str], game: int = 0, jid: str | None = None
    ) -> list[tuple[str, int, str]]:
        """Name the players of one game of a device (in journal jid, needed only when the game
        id is in several), or with game 0 of every game of the device logged so far that has no
        names yet (games logged later stay unnamed until named). Return the (journal, game,
        mode) named; UserError when there is no such game or it is ambiguous."""
        names = list(names)
        if len(names) > MAX_PLAYERS:
            raise UserError(f"at most {MAX_PLAYERS} players")
        for name in names:
            if not name or len(name) > MAX_PLAYER_NAME or not name.isprintable():
                raise UserError(f"a player's name is 1 to {MAX_PLAYER_NAME} printable characters")
        self.flush()
        with self.errors():
            self.db.execute("BEGIN IMMEDIATE")
            try:
                sql = "SELECT journal, game, mode FROM games WHERE device=?"
                args: list[Any] = [device]
                if jid is not None:
                    sql += " AND journal=?"
                    args.append(jid)
                if game:
                    sql += " AND game=?"
                    args.append(game)
                else:
                    sql += (
                        " AND NOT EXISTS (SELECT 1 FROM players p WHERE p.device=games.device "
                        "AND p.journal=games.journal AND p.game=games.game)"
                    )
                targets = [tuple(r) for r in self.db.execute(sql + " ORDER BY 1, 2", args)]
                if game and len(targets) > 1:
                    raise UserError(
                        f"game {game} is in {len(targets)} journals of {device}: choose one with"
                        " --journal ({})".format(", ".join(repr(t[0]) for t in targets))
                    )
                if game and not targets:
                    raise UserError(f"no game {game} of {device}" + (
                        f" in journal {jid!r}" if jid is not None else ""))  # fmt: skip
                for journal_id, number, _mode in targets:
                    self.db.execute(
                        "DELETE FROM players WHERE device=? AND journal=? AND game=?",
                        (device, journal_id, number),
                    )
                    self.db.executemany(
                        "INSERT INTO players (device, journal, game, slot, name) "
                        "VALUES (?, ?, ?, ?, ?)",
                        [(device, journal_id, number, slot, n) for slot, n in enumerate(names)],
                    )
                self.db.execute("COMMIT")
                return targets
            except BaseException:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise

    # --- reading --------------------------------------------------------------------------------

    def players(self) -> dict[tuple[str, str, int], list[str]]:
        """Return {(device, journal, game): [names by slot]}."""
        out: dict[tuple[str, str, int], list[str]] = {}
        for device, jid, game, _slot, name in self._query(
            "SELECT device, journal, game, slot, name FROM players "
            "ORDER BY device, journal, game, slot"
        ):
            key = (str(device), str(jid), game if isinstance(game, int) else 0)
            out.setdefault(key, []).append(str(name))
        return out

    def devices(self) -> list[str]:
        """Return the device ids, sorted."""
        return [r[0] for r in self._query("SELECT id FROM devices ORDER BY id")]

    def games(self, device: str | None = None) -> list[tuple[Any, ...]]:
        """Return (device, game, mode, first_seq) rows, in order."""
        if device is None:
            sql = "SELECT device, game, mode, first_seq FROM games ORDER BY device, game"
            return self._query(sql)
        sql = "SELECT device, game, mode, first_seq FROM games WHERE device=? ORDER BY game"
        return self._query(sql, (device,))

    def contiguous_seq(self, device: str, jid: str = "") -> int:
        """Return the highest S such that events 1..S of a device's journal are all stored
        (0 if none)."""
        key = (device, jid)
        row = self._query(
            "SELECT COUNT(*), MAX(seq) FROM events WHERE device=? AND journal=?", key, one=True
        )
        count, top = row if row else (0, None)
        if not count or top is None:
            return 0
        if count == top:
            return int(top)
        first = self._query(
            "SELECT 1 FROM events WHERE device=? AND journal=? AND seq=1", key, one=True
        )
        if not first:
            return 0
        row = self._query(
            "SELECT e.seq FROM events e WHERE e.device=? AND e.journal=? AND NOT EXISTS "
            "(SELECT 1 FROM events f WHERE f.device=e.device AND f.journal=e.journal "
            "AND f.seq=e.seq+1) ORDER BY e.seq LIMIT 1",
            key,
            one=True,
        )
        return row[0] if row else 0

    def seqs_above(self, device: str, seq: int, jid: str = "") -> list[int]:
        """Return the stored seqs of a device's journal above seq (ascending)."""
        sql = "SELECT seq FROM events WHERE device=? AND journal=? AND seq>? ORDER BY seq"
        return [r[0] for r in self._query(sql, (device, jid, seq))]

    def count(self, device: str | None = None) -> int:
        """Return the number of stored events (of one device, or all)."""
        if device is None:
            return self._query("SELECT COUNT(*) FROM events", one=True)[0]
        return self._query("SELECT COUNT(*) FROM events WHERE device=?", (device,), one=True)[0]

    def changes(self) -> tuple[int, int]:
        """Return (events stored, highest received time): a cheap "has anything changed"."""
        row = self._query("SELECT COUNT(*), MAX(received) FROM events", one=True)
        return int(row[0]), row[1] or 0

    def events(self, device: str | None = None, received: bool = False) -> Iterator[StoredEvent]:
        """Iterate stored events as protocol dicts, by device then seq (with the PC's receive
        time under "received" when asked). A row edited by hand into something no device sends
        comes out as it is (data it cannot decode as ("<corrupt>",)): verify names it."""
        self.flush()
        sql = (
            "SELECT v, device, seq, game, ms, kind, data, prev, crc, received, journal "
            "FROM events "
            + ("WHERE device=? " if device is not None else "")
            + "ORDER BY device, journal, seq"
        )
        args = (device,) if device is not None else ()
        with self.errors():
            cursor = self.db.execute(sql, args)
            for v, dev, seq, game, ms, kind, data, prev, crc, when, jid in cursor:
                obj = _event_dict(v, dev, seq, game, ms, kind, data, prev, crc, when, received)
                if jid:
                    obj["jid"] = jid
                yield obj

    def _query(self, sql: str, args: Sequence[Any] = (), one: bool = False) -> Any:
        self.flush()
        with self.errors():
            cur = self.db.execute(sql, args)
            return cur.fetchone() if one else cur.fetchall()


def _decode_data(data: Any) -> tuple[Any, ...]:
    try:
        values = json.loads(data) if isinstance(data, str) and len(data) <= 4096 else None
    except (ValueError, RecursionError):
        values = None
    if not isinstance(values, list):
        return ("<corrupt>",)
    return tuple(values)


def _event_dict(
    v: Any, dev: Any, seq: Any, game: Any, ms: Any, kind: Any, data: Any, prev: Any, crc: Any,
    when: Any, received: bool,
) -> StoredEvent:  # fmt: skip
    obj: StoredEvent = {
        "v": v,
        "type": "event",
        "dev": dev,
        "seq": seq,
        "game": game,
        "ms": ms,
        "event": (kind, _decode_data(data)),
        "prev": prev,
        "crc": crc,
    }
    if received:
        obj["received"] = when
    return obj


def head_of(obj: EventLine) -> str:
    """Return the chain hash of a stored or parsed event (what the next prev must be)."""
    body = journal.body_bytes(
        obj["seq"], obj["game"], obj["ms"], obj["prev"], journal.canonical(obj["event"])
    )
    return journal.chain_hash(body)
