"""The PC log on a PostgreSQL server: the same Store (store.py) over a psycopg 3 connection.

Shell (network I/O). `Store("postgresql://user@host:port/dbname")` opens this backend; the
libpq rules apply (PG* environment variables, the password file). Every method of store.Store
works unchanged: its SQL goes through _Connection, which turns SQLite's dialect into
PostgreSQL's (placeholders, INSERT OR IGNORE, BEGIN IMMEDIATE) and the schema's types into
PostgreSQL's, so MIGRATIONS stay the one schema of both backends. Text columns collate as "C"
so every listing sorts as SQLite sorts it.

Exactly once across machines: events are unique on (device, journal, seq) on the server and
every write is an INSERT .. ON CONFLICT DO NOTHING, so a batch replayed after a lost
connection (its COMMIT may or may not have landed) is stored once. A lost server never ends
a logger: flush() keeps its queue and returns False (retried, reconnecting at most every
RETRY seconds), reads fall back to "nothing known" (the logger then asks the device to send
again, and the server drops what it has). The password is never printed: every message names
the URL without it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from dicepod_host.errors import LockedError, UserError
from dicepod_host.pgurl import redact, secrets
from dicepod_host.store import MIGRATIONS, SCHEMA_VERSION, Store

# Seconds between two attempts to reach a lost server.
RETRY = 1.0
# Any number for the advisory lock that serialises creating the schema.
_SCHEMA_LOCK = 0x0D1CE_0045


class ServerLost(LockedError):
    """The server cannot be reached now (down, restarting, network gone): retried later."""


def _schema_sql(sql: str) -> str:
    """A CREATE TABLE of MIGRATIONS in PostgreSQL's types."""
    sql = sql.replace(" WITHOUT ROWID", "")
    sql = re.sub(r"\bREAL\b", "DOUBLE PRECISION", sql)
    sql = re.sub(r"\bINTEGER\b", "BIGINT", sql)
    return re.sub(r"\bTEXT\b", 'TEXT COLLATE "C"', sql)


def _dialect(sql: str) -> str:
    """SQLite's statement as PostgreSQL's (the store's SQL has no ? or % inside literals)."""
    cached = _CACHE.get(sql)
    if cached is not None:
        return cached
    out = sql
    if out.startswith("CREATE TABLE"):
        out = _schema_sql(out)
    if out.startswith("BEGIN IMMEDIATE"):
        out = "BEGIN"
    if out.startswith("INSERT OR IGNORE INTO"):
        out = "INSERT INTO" + out[len("INSERT OR IGNORE INTO") :] + " ON CONFLICT DO NOTHING"
    out = out.replace("?", "%s")
    _CACHE[sql] = out
    return out


_CACHE: dict[str, str] = {}


class _Connection:
    """A psycopg connection that reads SQLite's dialect and reconnects when asked."""

    def __init__(self, url: str, timeout: float) -> None:
        self.url = url
        self.timeout = timeout
        self.conn: Any = None
        self.next_try = 0.0

    def live(self) -> Any:
        """The open connection; connect when there is none (at most every RETRY seconds)."""
        import psycopg

        if self.conn is not None and not self.conn.closed:
            return self.conn
        now = time.monotonic()
        if now < self.next_try:
            raise ServerLost(f"database server {redact(self.url)} is not reachable (retrying)")
        self.next_try = now + RETRY
        try:
            self.conn = psycopg.connect(
                self.url,
                autocommit=True,
                connect_timeout=max(2, int(self.timeout + 0.999)),
                application_name="dicepod",
            )
        except psycopg.OperationalError as err:
            self.conn = None
            raise ServerLost(_message(self.url, err)) from None
        return self.conn

    def drop(self) -> None:
        """Forget a broken connection (the next use reconnects)."""
        conn, self.conn = self.conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # closing a broken connection may fail in any way; it is gone
                pass

    @property
    def in_transaction(self) -> bool:
        from psycopg.pq import TransactionStatus

        conn = self.conn
        if conn is None or conn.closed:
            return False
        return conn.info.transaction_status in (
            TransactionStatus.INTRANS,
            TransactionStatus.INERROR,
        )

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Any:
        return self.live().execute(_dialect(sql), tuple(args) if args else None)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            with self.live().cursor() as cur:
                cur.executemany(_dialect(sql), rows)

    def close(self) -> None:
        self.drop()


def _message(url: str, err: Exception) -> str:
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    for secret in secrets(url):
        text = text.replace(secret, "***")
    return f"database server {redact(url)}: {text}"


class PgStore(Store):
    """One dicepod log on a PostgreSQL server (made by Store(url); see the module docstring)."""

    def __init__(self, path: str, create: bool = True, timeout: float = 2.0) -> None:  # noqa: D107
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise UserError(
                "a postgresql:// database needs psycopg: pip install 'psycopg[binary]'"
            ) from None
        self.url = str(path)
        self.path = redact(self.url)
        self._events: list[tuple[Any, ...]] = []
        self._keys: dict[tuple[str, str, int], str] = {}
        self._games: list[tuple[Any, ...]] = []
        self._devices: dict[str, tuple[str | None, float]] = {}
        self._heads: dict[tuple[str, str], tuple[Any, ...]] = {}
        self._breaks: list[tuple[Any, ...]] = []
        self._seen: dict[str, float] = {}
        self.timeout = timeout
        self.db: Any = _Connection(self.url, timeout)
        self.db.next_try = 0.0
        try:
            with self.errors():
                self._open(create)
        except UserError:
            self.db.close()
            raise

    @contextmanager
    def errors(self) -> Iterator[None]:
        """Map psycopg's errors inside the block to one-line UserErrors (ServerLost when the
        connection is gone)."""
        import psycopg

        try:
            yield
        except psycopg.Error as err:
            conn = self.db.conn
            if isinstance(err, psycopg.OperationalError) and (conn is None or conn.broken):
                self.db.drop()
                raise ServerLost(_message(self.url, err)) from None
            if self.db.in_transaction:
                try:
                    conn.execute("ROLLBACK")
                except psycopg.Error:
                    self.db.drop()
            raise UserError(_message(self.url, err)) from None

    def _version(self) -> int | None:
        """Return the schema version; None for a database without dicepod's tables."""
        # The catalog read as a table (a fresh snapshot: sees a schema another program just
        # committed while this one waited for the lock).
        found = self.db.execute(
            "SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'meta'"
        ).fetchone()
        if found is None:
            return None
        row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None or not str(row[0]).isdigit() or int(row[0]) > SCHEMA_VERSION:
            raise UserError(f"{self.path}: unsupported dicepod database schema")
        return int(row[0])

    def _open(self, create: bool) -> None:
        version = self._version()
        if version == SCHEMA_VERSION:
            return
        if version is None and not create:
            raise UserError(f"{self.path} is not a dicepod database (it has no dicepod tables)")
        db = self.db
        db.execute("BEGIN")
        try:
            db.execute(f"SELECT pg_advisory_xact_lock({_SCHEMA_LOCK})")
            version = self._version() or 0  # another program may have created it meanwhile
            for step, statements in MIGRATIONS:
                if step > version:
                    for sql in statements:
                        db.execute(sql)
            db.execute(
                "INSERT INTO meta VALUES ('schema', ?) "
                "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (str(SCHEMA_VERSION),),
            )
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        """Write what is queued and close."""
        try:
            self.commit()
        finally:
            self.db.close()

    def flush(self) -> bool:
        """Write the queued rows in one transaction. Return False (rows kept) when the server
        is lost or the transaction must be retried (a deadlock, a restart); raise UserError
        for other errors."""
        import psycopg

        if not (self._events or self._games or self._devices or self._heads or self._breaks):
            return True
        # One order for every writer's upserts of shared rows, so two never deadlock.
        self._devices = dict(sorted(self._devices.items()))
        try:
            return super().flush()
        except ServerLost:
            return False
        except psycopg.OperationalError:
            conn = self.db.conn
            if conn is None or conn.broken:
                self.db.drop()
            elif self.db.in_transaction:
                conn.execute("ROLLBACK")
            return False
        except psycopg.Error as err:
            raise UserError(_message(self.url, err)) from None

    def commit(self) -> None:
        """Write what has been queued; raise UserError when the server does not take it."""
        if not self.flush():
            raise ServerLost(f"database server {self.path} did not take the write (retry)")

    def add_event(self, obj: Any, received: float | None = None, fresh: bool = False) -> str:
        """As Store.add_event; with the server lost, an event is queued unchecked (the
        server keeps the first of two under one key)."""
        try:
            return super().add_event(obj, received, fresh)
        except ServerLost:
            return super().add_event(obj, received, True)

    def contiguous_seq(self, device: str, jid: str = "") -> int:
        """As Store.contiguous_seq; 0 while the server is lost (the device sends again)."""
        try:
            return super().contiguous_seq(device, jid)
        except ServerLost:
            return 0

    def seqs_above(self, device: str, seq: int, jid: str = "") -> list[int]:
        """As Store.seqs_above; none while the server is lost."""
        try:
            return super().seqs_above(device, seq, jid)
        except ServerLost:
            return []


def copy(src: Store, dst: Store) -> dict[str, int]:
    """Copy every row of one dicepod database into another (any backends), in one
    transaction on dst; rows already there stay as they are (run twice, stored once). Return
    counts: events new / already stored / conflicting, and rows of the other tables read."""
    src.flush()
    dst.flush()
    read = src._query
    devices = read("SELECT id, fw, first_seen, last_seen FROM devices ORDER BY id")
    events = read(
        "SELECT device, journal, seq, game, ms, kind, data, prev, crc, v, received FROM events "
        "ORDER BY device, journal, seq"
    )
    games = read(
        "SELECT device, journal, game, mode, first_seq, started FROM games ORDER BY 1, 2, 3"
    )
    heads = read("SELECT device, journal, seq, head, seen FROM heads ORDER BY 1, 2")
    breaks = read("SELECT device, journal, first, last, prev FROM breaks ORDER BY 1, 2, 3")
    players = read("SELECT device, journal, game, slot, name FROM players ORDER BY 1, 2, 3, 4")
    stored: dict[tuple[str, str, int], str] = {}
    for device in sorted({e[0] for e in events}):
        for dev, jid, seq, crc in dst._query(
            "SELECT device, journal, seq, crc FROM events WHERE device=?", (device,)
        ):
            stored[(dev, jid, seq)] = crc
    counts = {"new": 0, "duplicate": 0, "conflict": 0}
    for e in events:
        crc = stored.get((e[0], e[1], e[2]))
        counts["new" if crc is None else "duplicate" if crc == e[8] else "conflict"] += 1
    db = dst.db
    with dst.errors():
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany(
                "INSERT INTO devices (id, fw, first_seen, last_seen) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET fw=COALESCE(devices.fw, excluded.fw), "
                "first_seen=CASE WHEN excluded.first_seen < devices.first_seen "
                "THEN excluded.first_seen ELSE devices.first_seen END, "
                "last_seen=CASE WHEN excluded.last_seen > devices.last_seen "
                "THEN excluded.last_seen ELSE devices.last_seen END",
                devices,
            )
            db.executemany(
                "INSERT INTO events (device, journal, seq, game, ms, kind, data, prev, crc, v, "
                "received) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                events,
            )
            db.executemany(
                "INSERT INTO games (device, journal, game, mode, first_seq, started) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                games,
            )
            db.executemany(
                "INSERT INTO heads (device, journal, seq, head, seen) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(device, journal) DO UPDATE SET seq=excluded.seq, "
                "head=excluded.head, seen=excluded.seen WHERE excluded.seq > heads.seq",
                heads,
            )
            db.executemany(
                "INSERT INTO breaks (device, journal, first, last, prev) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                breaks,
            )
            db.executemany(
                "INSERT INTO players (device, journal, game, slot, name) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(device, journal, game, slot) DO UPDATE SET name=excluded.name",
                players,
            )
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
    counts.update(games=len(games), players=len(players), heads=len(heads), breaks=len(breaks))
    return counts
