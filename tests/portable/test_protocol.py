"""USB line protocol: device lines round-trip through the PC parser, commands are a fixed set.
Portable: runs under CPython (pytest) and real MicroPython; result_* must match on both."""

from dicepod import journal, protocol, protocol_pc
from dicepod.drivers.memstorage import MemoryStorage

DEV = "e6614c311b7a2f35"
EVENTS = (
    ("new_game", ("battle",)),
    ("set", ("battle.target", 5000)),
    ("roll", (3, 1, 6, 6, 2, 5)),
    ("mod", (-1, "grit.plus")),
    ("undo", ()),
)


def _lines():
    j = journal.Journal(MemoryStorage())
    j.recover()
    return [j.append(100 * i, event) for i, event in enumerate(EVENTS)]


def test_event_line_from_journal_equals_encode():
    prev = journal.GENESIS
    for i, line in enumerate(_lines()):
        entry, body = journal.decode(line)
        seq, game, ms, event, prev_field = entry
        assert prev_field == prev
        wire = protocol.event_line(DEV, line)
        assert wire == protocol_pc.encode_event(DEV, seq, game, ms, event, prev_field)
        assert wire.endswith(b"}\n") and wire.startswith(b'{"v":1,"type":"event","dev":"')
        obj = protocol_pc.parse(wire)
        assert obj["seq"] == i + 1 and obj["event"] == EVENTS[i] and obj["dev"] == DEV
        assert protocol_pc.chain_hash(obj) == journal.chain_hash(body)
        prev = journal.chain_hash(body)


def test_parse_accepts_crlf_and_str():
    wire = protocol.event_line(DEV, _lines()[2])
    assert protocol_pc.parse(wire[:-1] + b"\r\n")["event"] == EVENTS[2]
    assert protocol_pc.parse(wire.decode())["seq"] == 3


def test_parse_rejects_damage():
    wire = protocol.event_line(DEV, _lines()[2])
    bad = [
        b"",
        b"\x00\xff\xfe garbage",
        wire[:40],  # torn
        wire.replace(b'"seq":3', b'"seq":4'),  # checksum no longer matches
        wire.replace(b"[3,1,6,6,2,5]", b"[3,1,6,6,2,6]"),
        wire.replace(b'"v":1', b'"v":2'),
        wire.replace(b'"ms":200', b'"ms":-200'),
        wire.replace(b'"ms":200', b'"ms":2.5'),
        wire.replace(b'"type":"event"', b'"type":"exec"'),
        wire.replace(DEV.encode(), b"dev with space"),
        b"[1,2,3]",
        b"{" + b" " * 2000 + b"}",
        b'{"v":1,"type":"event"}',
    ]
    for line in bad:
        try:
            protocol_pc.parse(line)
        except ValueError:
            continue
        raise AssertionError("accepted %r" % line)


def test_other_device_lines_parse():
    for line, kind in (
        (protocol.hello_line(DEV, "1.28.0", 5, "0badf00d", 123), "hello"),
        (protocol.pong_line(DEV, 5, 124, 7), "pong"),
        (protocol.time_line(DEV, 125, 1764500000), "time"),
        (protocol.end_line(DEV, 5), "end"),
        (protocol.error_line(DEV, "unknown command"), "error"),
    ):
        obj = protocol_pc.parse(line)
        assert obj["type"] == kind and obj["dev"] == DEV


def test_commands_round_trip():
    assert protocol.parse_command(protocol_pc.command("hello")) == ("hello", None)
    assert protocol.parse_command(b"identify\r\n") == ("hello", None)
    assert protocol.parse_command(protocol_pc.command("since", 17)) == ("since", 17)
    assert protocol.parse_command(protocol_pc.command("ping")) == ("ping", None)
    assert protocol.parse_command(protocol_pc.command("ping", 9)) == ("ping", 9)
    assert protocol.parse_command(protocol_pc.command("time", 1764500000)) == ("time", 1764500000)


def test_anything_else_is_rejected():
    for line in (
        b"",
        b"import os",
        b"exec('1')",
        b"since",
        b"since -1",
        b"since 1 2",
        b"since x",
        b"time",
        b"hello 3",
        b"\x03",
        b"ping " + b"9" * 40,
        b"hello" + b" " * 100,
        b"\xff\xfe",
    ):
        try:
            protocol.parse_command(line)
        except ValueError:
            continue
        raise AssertionError("accepted %r" % line)
    for bad in (("reboot", None), ("since", -1), ("since", "1")):
        try:
            protocol_pc.command(bad[0], bad[1])
        except ValueError:
            continue
        raise AssertionError("built %r" % (bad,))


def result_wire_bytes():
    """The exact device lines: identical on both interpreters (fixed key order)."""
    out = [protocol.event_line(DEV, line).decode() for line in _lines()]
    out.append(protocol.hello_line(DEV, "1.28.0", 5, "0badf00d", 123).decode())
    out.append(protocol.error_line(DEV, "unknown command").decode())
    return out


def result_parsed_events():
    return [[o["seq"], o["event"][0], list(o["event"][1])] for o in _parsed()]


def _parsed():
    return [protocol_pc.parse(protocol.event_line(DEV, line)) for line in _lines()]
