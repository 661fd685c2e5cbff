"""What `dicepod verify` takes from a log beside its events, and only as far as the device
vouched for it (issue 48):

- A break (events F..T lost to flash damage, the chain resuming at T+1 with prev P) counts only
  when the device's own chain names it: the device appends the app event ("lost", (F, T)) to its
  journal when it marks a break, so that event is covered by the same checksums and chain as
  every move. A break row no chained event names is a finding, never a pass.
- A head (the last seq and chain hash a device reported in hello or pong) must match the event
  the log holds there, and a journal the device reported must have events in the log.
- A device the logger heard say hello (its firmware is known) must have a head for each of its
  journals: deleting the head row cannot hide a cut tail.

Shell (reads a Store); the checks on records are plain functions over dicts.
"""

from __future__ import annotations

from typing import Any

from dicepod import journal, protocol_pc

# The app event a device chains after marking a break: ("lost", (first, last)).
LOST = "lost"


def head_records(store: Any) -> list[dict[str, Any]]:
    """The heads and the logged devices of a database, as verify's records."""
    out: list[dict[str, Any]] = []
    for dev, jid, seq, head in store.db.execute("SELECT device, journal, seq, head FROM heads"):
        out.append({"type": "head", "dev": dev, "jid": jid, "seq": seq, "head": head or ""})
    for (dev,) in store.db.execute("SELECT id FROM devices WHERE fw IS NOT NULL AND fw != ''"):
        out.append({"type": "logged", "dev": dev, "jid": ""})
    return out


def marks(items: list[tuple[int, Any, dict[str, Any]]]) -> set[tuple[int, int]]:
    """The (first, last) of every break a journal's own events name (a lost event after it)."""
    found = set()
    for seq, _line, obj in items:
        kind, data = obj["event"]
        if kind != LOST or len(data) != 2:
            continue
        first, last = data
        if isinstance(first, int) and isinstance(last, int) and first <= last < seq:
            found.add((first, last))
    return found


def vouched(
    items: list[tuple[int, Any, dict[str, Any]]], breaks: dict[int, tuple[int, str]]
) -> tuple[dict[int, tuple[int, str]], list[tuple[int, int]]]:
    """Split a journal's breaks ({first: (last, prev)}) into those its chain vouches for and
    the (first, last) of the others (empty breaks, which lose nothing, are dropped)."""
    named = marks(items)
    trusted: dict[int, tuple[int, str]] = {}
    forged: list[tuple[int, int]] = []
    for first, (last, prev) in sorted(breaks.items()):
        if last < first:
            continue
        if (first, last) in named:
            trusted[first] = (last, prev)
        else:
            forged.append((first, last))
    return trusted, forged


def head_mismatch(items: list[tuple[int, Any, dict[str, Any]]], seq: int, head: str) -> str | None:
    """The chain hash of the journal's event at seq when it is not the head the device
    reported (None when they agree, or either is unknown)."""
    if not head or head == journal.GENESIS:
        return None
    for at, _line, obj in items:
        if at == seq:
            mine = protocol_pc.chain_hash(obj)
            return mine if mine != head else None
    return None


def _marks_of(
    store: Any, device: str | None
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """(breaks, heads) rows of a database, of one device or all."""
    where, args = (" WHERE device=?", (device,)) if device is not None else ("", ())
    breaks = list(
        store.db.execute(
            "SELECT device, journal, first, last, prev FROM breaks" + where + " ORDER BY 1, 2, 3",
            args,
        )
    )
    heads = list(
        store.db.execute(
            "SELECT h.device, h.journal, h.seq, h.head, d.fw FROM heads h LEFT JOIN devices d "
            "ON d.id = h.device" + where.replace("device", "h.device") + " ORDER BY 1, 2",
            args,
        )
    )
    return breaks, heads


def export_lines(store: Any, device: str | None = None) -> list[str]:
    """A database's breaks and heads as the device's own protocol lines (break, hello or pong),
    for a JSON Lines export that verify reads as it reads the database."""
    import json

    breaks, heads = _marks_of(store, device)
    out = []
    for dev, jid, first, last, prev in breaks:
        obj = {"v": 2 if jid else 1, "type": "break", "dev": dev}
        if jid:
            obj["jid"] = jid
        obj.update({"from": first, "to": last, "prev": prev})
        out.append(json.dumps(obj, separators=(",", ":")) + "\n")
    for dev, jid, seq, head, fw in heads:
        obj = {"v": 2 if jid else 1, "type": "hello" if head else "pong", "dev": dev}
        if jid:
            obj["jid"] = jid
        if head:
            obj.update({"fw": fw or "0", "seq": seq, "head": head, "ms": 0})
        else:
            obj.update({"seq": seq, "ms": 0, "token": 0})
        out.append(json.dumps(obj, separators=(",", ":")) + "\n")
    return out


def export_rows(store: Any, device: str | None = None) -> list[tuple[Any, ...]]:
    """A database's breaks and heads as (device, seq, kind, data, prev, journal) for a CSV
    export: kind "#break" (seq its first, data [its last]) or "#head"."""
    breaks, heads = _marks_of(store, device)
    rows = [
        (dev, first, "#break", f"[{last}]", prev, jid) for dev, jid, first, last, prev in breaks
    ]
    rows += [(dev, seq, "#head", "[]", head or "", jid) for dev, jid, seq, head, _fw in heads]
    return rows
