"""The SQLite store: schema, exactly-once events, conflicts, contiguous prefix, bad files."""

import sqlite3

import loggen
import pytest

from dicepod import protocol_pc
from dicepod_host.errors import UserError
from dicepod_host.store import Store, head_of


def _objs():
    _storage, lines = loggen.standard()
    return [protocol_pc.parse(line) for line in lines]


def test_events_stored_once_in_order(tmp_path):
    objs = _objs()
    store = Store(tmp_path / "a.db")
    results = [store.add_event(o) for o in objs]
    assert set(results) == {"new"}
    assert {store.add_event(o) for o in objs} == {"duplicate"}
    store.close()
    store = Store(tmp_path / "a.db", create=False)
    back = list(store.events())
    assert [o["seq"] for o in back] == list(range(1, len(objs) + 1))
    for a, b in zip(back, objs):
        assert a["event"] == b["event"] and a["crc"] == b["crc"] and a["prev"] == b["prev"]
    assert store.devices() == [loggen.DEV]
    games = store.games()
    assert [(g[1], g[2]) for g in games] == [(1, "free"), (2, "battle"), (3, "free"), (4, "battle")]
    assert store.count() == len(objs)
    store.close()


def test_conflict_is_counted_not_stored(tmp_path):
    objs = _objs()
    store = Store(tmp_path / "b.db")
    store.add_event(objs[0])
    other = protocol_pc.parse(
        protocol_pc.encode_event(loggen.DEV, 1, 1, 5, ("new_game", ("tests",)), "00000000")
    )
    assert store.add_event(other) == "conflict"
    assert next(store.events())["event"] == objs[0]["event"]


def test_contiguous_seq(tmp_path):
    objs = _objs()
    store = Store(tmp_path / "c.db")
    assert store.contiguous_seq(loggen.DEV) == 0
    for o in objs[1:10]:
        store.add_event(o)
    assert store.contiguous_seq(loggen.DEV) == 0
    store.add_event(objs[0])
    assert store.contiguous_seq(loggen.DEV) == 10
    for o in objs[12:20]:
        store.add_event(o)
    assert store.contiguous_seq(loggen.DEV) == 10
    store.add_event(objs[10])
    store.add_event(objs[11])
    assert store.contiguous_seq(loggen.DEV) == 20


def test_head_of_is_the_next_prev():
    objs = _objs()
    for a, b in zip(objs, objs[1:]):
        assert head_of(a) == b["prev"]


def test_bad_database_files(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello\n" * 100)
    with pytest.raises(UserError, match="not a dicepod database"):
        Store(text)
    other = tmp_path / "other.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE x (a)")
    db.commit()
    db.close()
    with pytest.raises(UserError, match="not a dicepod database"):
        Store(other)
    with pytest.raises(UserError, match="no such database"):
        Store(tmp_path / "missing.db", create=False)
    with pytest.raises(UserError, match="directory"):
        Store(tmp_path)


def test_locked_database(tmp_path):
    path = tmp_path / "d.db"
    Store(path).close()
    holder = sqlite3.connect(path)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(UserError, match="locked"):
            store = Store(path, timeout=0.1)
            store.add_event(_objs()[0])
            store.commit()
    finally:
        holder.rollback()
        holder.close()
