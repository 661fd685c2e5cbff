"""Issue 12 on the emulated Pico (the real rp2 MicroPython v1.28.0 with dicepod deployed, real
LittleFS on its flash, real TinyUSB CDC): no byte sent over USB stops the game or reaches the
REPL while the app runs (Ctrl-C is off), the game goes on and the journal keeps growing; the
protocol's `repl` hands the line over: `dicepod deploy` onto the running game succeeds, and
the app it starts again resumes that game from the flash. A flash full to its last blocks
keeps playing: the oldest games go, the game in progress and every new event stay. A power cut
after every flash operation while a full flash starts a segment and deletes old ones: the Pico
resumes exactly the completed events, as CPython recovers them. Bytes flipped on the flash:
break lines, the damaged bytes kept, a notice, the game resumes. `dicepod log` acknowledges
what it stored; a full flash deletes those segments first and the PC has every event. A wiped
Pico (the same chip, a fresh flash) logged again into the same database: its new journal
beside the old one, no event lost, `dicepod verify` OK and both journals listed. Skips with
one line when the UF2 / boot ROM are absent."""

import json
import os
import random
import sqlite3
import time

import pytest
from pico_sessions import journal_in
from pico_support import need_pico, start_logger, stop_logger

from dicepod_host.pico import Pico, read_littlefs


def _journal_lines(image):
    data = journal_in(read_littlefs(image.read_bytes()))
    return [line for line in data.splitlines() if line[:1].isdigit()]


@pytest.fixture(scope="module")
def pico(tmp_path_factory):
    need_pico()
    image = tmp_path_factory.mktemp("pico") / "flash.img"
    with Pico(flash=str(image)) as board:
        board.image = image
        board.run_until_frame(max_ms=10_000)
        yield board


def test_bytes_for_the_repl_do_not_stop_the_game(pico):
    for button in ("DOWN", "DOWN", "DOWN", "DOWN", "OK", "OK"):
        pico.tap(button)  # Free roll: a new game, a roll (each OK after it rolls again)
    pico.run_ms(300)
    before = len(_journal_lines(pico.image))
    assert before >= 2
    rng = random.Random(12)
    for chunk in (
        b"\x03",
        b"\x03\x03\x03",
        b"\x01",  # raw REPL
        b"\x01import os\r\nos.remove('main.py')\r\n\x04",
        b"\x02",
        b"\x04",  # soft reset at the friendly REPL
        b"\x05",  # paste mode
        bytes(rng.randrange(256) for _ in range(3000)),
        b"x" * 5000 + b"\n",
    ):
        pico.usb_write(chunk)
        pico.run_ms(150)
    frame = pico.frame()
    pico.tap("OK")  # the game still answers a press
    pico.run_ms(300)
    assert pico.frame() != frame
    after = _journal_lines(pico.image)
    assert len(after) > before, (before, len(after))
    files = read_littlefs(pico.image.read_bytes())
    assert "main.py" in files  # nothing sent was ever executed
    assert pico.boots == 1  # no soft reset either


def test_dicepod_deploy_onto_the_running_game(pico, capsys, monkeypatch):
    # The same Pico, its game still running after the bytes above: `dicepod deploy` asks the
    # app for the line (protocol `repl`, answered once the journal is on the flash), finds
    # every file up to date, and starts the app again, which resumes the game.
    from dicepod_host import deploy
    from dicepod_host.cli import main

    # The emulator on a loaded machine runs slower than a Pico: 120 s per mpremote call.
    real_deploy = deploy.deploy
    monkeypatch.setattr(deploy, "deploy", lambda port, **kw: real_deploy(port, timeout=120, **kw))
    pico.run_ms(3000)  # the app reads what is left of the garbage (128 bytes a tick)
    seq = len(_journal_lines(pico.image))
    with pico.running(realtime=True):
        code = main(["deploy", "--port", pico.usb_port])
        printed = capsys.readouterr()
        assert code == 0, printed.err + printed.out
        assert "the dicepod app handed the USB line over to the REPL" in printed.out
        assert "files already up to date" in printed.out
        assert "deployed" in printed.out.splitlines()[-1]
    assert len(_journal_lines(pico.image)) == seq  # every event was already on the flash
    pico.run_until_frame(max_ms=10_000)  # the app again (soft reboot: main.py)
    frame = pico.frame()
    pico.tap("OK")  # the resumed game answers a press: another event
    pico.run_ms(300)
    assert pico.frame() != frame
    assert len(_journal_lines(pico.image)) == seq + 1


def _count(db):
    try:
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=1)
    except sqlite3.OperationalError:
        return 0
    try:
        return con.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


def test_a_wiped_pico_logged_again_into_the_same_database(tmp_path, capsys):
    need_pico()
    from dicepod_host.cli import main

    db = tmp_path / "log.db"
    dev = "e6614c311b7a2f35"
    logged = []  # (journal id, its event lines) of each flash
    # The same chip twice: the second time its flash wiped (a fresh image: seq 1 again), and
    # another power-up's random bits (the emulator's seed) for the new journal's identity.
    for seed in (1, 2):
        image = tmp_path / ("flash%d.img" % seed)
        with Pico(flash=str(image), device_id=dev, seed=seed) as pico:
            pico.image = image
            pico.run_until_frame(max_ms=10_000)
            with start_logger(pico.usb_port, db) as logger:
                for button in ("OK", "OK", "OK", "DOWN", "OK", "OK"):
                    pico.tap(button)
                lines = _journal_lines(image)
                assert len(lines) >= 3
                want = sum(len(x[1]) for x in logged) + len(lines)
                end = time.monotonic() + 120
                while _count(db) < want and time.monotonic() < end:
                    pico.run_ms(200)
                stop_logger(logger)
            data = journal_in(read_littlefs(image.read_bytes()))
            jid = data.split(b" ", 2)[1].decode()  # the first segment's header: "@ ID ..."
            logged.append((jid, lines))
    assert logged[0][0] != logged[1][0]
    assert _count(db) == len(logged[0][1]) + len(logged[1][1])  # 0 lost, 0 dropped
    capsys.readouterr()
    assert main(["verify", str(db)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("OK: 1 device(s)"), out
    for jid, lines in logged:
        assert "journal %s of device %s: %d event(s), seq 1..%d" % (
            jid, dev, len(lines), len(lines)) in out, out  # fmt: skip


def _full_flash(tmp_path):
    """A flash image with the firmware, about 900 KB of journal (free-roll games of 300
    events, the last one in progress, its segment a few events from its end) and a filler
    file taking the rest but a few blocks: less free than the journal keeps in reserve."""
    import littlefs

    from dicepod import journal
    from dicepod.drivers.memstorage import MemoryStorage
    from dicepod_host import pico as pico_module

    storage = MemoryStorage()
    log = journal.Journal(storage, lambda: "00000000000000f1")
    log.recover()
    n = 0
    while storage.used() < 900_000 or storage.size(log.seg) < 8192 - 3 * 60:
        log.append(n * 10, ("new_game", ("free",)) if n % 300 == 0 else ("roll", (n % 6 + 1,)))
        n += 1
    files = pico_module.deployed_files()
    files.update({"journal/%d" % seg: storage.segment(seg) for seg in storage.segments()})
    files["journal/ack"] = storage.side("ack")
    region = pico_module.littlefs_image(files)
    fs = littlefs.LittleFS(
        block_size=pico_module.FS_BLOCK, block_count=pico_module.FS_BLOCKS,
        prog_size=pico_module.FS_PROG, read_size=32, cache_size=pico_module.FS_PROG,
        lookahead_size=32, mount=False,
    )  # fmt: skip
    fs.context.buffer[:] = region
    fs.mount()
    free_blocks = pico_module.FS_BLOCKS - fs.used_block_count
    files["filler.bin"] = bytes((free_blocks - 4) * 4000)
    image = tmp_path / "full.img"
    pico_module.build_flash(image, files=files, deploy=False)
    return image, log.seq, storage.segments()


def _last_seq(image):
    return int(_journal_lines(image)[-1].split(b" ")[0])


def test_a_full_flash_keeps_playing(tmp_path):
    need_pico()
    image, seq, segs = _full_flash(tmp_path)
    with Pico(flash=str(image)) as pico:
        pico.run_until_frame(max_ms=10_000)  # the game in progress, resumed
        assert len(_journal_lines(image)) == seq
        # Rolls: the segment rotates with no room for a new one: the oldest games go, with a
        # notice (a screen a press closes), and the rolls go on.
        presses = 0
        while len(_journal_lines(image)) and _last_seq(image) < seq + 8 and presses < 20:
            pico.tap("OK")
            presses += 1
        assert _last_seq(image) == seq + 8, presses
    files = read_littlefs(image.read_bytes())
    after = sorted(int(k[8:]) for k in files if k.startswith("journal/") and k[8:].isdigit())
    lines = _journal_lines(image)
    # The newest events all there, in order (the journal goes on where it was); the oldest
    # segments deleted for room (old finished games), the game in progress kept whole.
    newest = [int(x.split(b" ")[0]) for x in lines[-28:]]
    assert newest == list(range(seq - 19, seq + 9))
    assert after[-1] > segs[-1]  # a new segment started
    assert after[0] > segs[0]  # and the oldest went
    first_of_game = (seq - 1) // 300 * 300 + 1  # the new_game line of the game in progress
    assert any(x.startswith(b"%d " % first_of_game) and b"new_game" in x for x in lines)
    assert "filler.bin" in files and "main.py" in files


# -- power cuts while a full flash rotates and prunes ----------------------------------------


def _journal_image(tmp_path, name, files, journal_bytes, acked_at, free_blocks, tests=False):
    """A flash image holding files (the firmware, a main.py), about journal_bytes of journal
    (free-roll games of 300 events; the game in progress started a few events before the end of
    the last segment, which has room for less than any roll line: the next event starts a
    segment), the PC's acknowledgement of everything up to the first acked_at bytes, and a
    filler taking the flash's free space but free_blocks. tests: self-tests of the dice (their
    counts) instead of rolls: longer lines, fewer events a segment. Returns (image, journal)."""
    import littlefs

    from dicepod import journal
    from dicepod.drivers.memstorage import MemoryStorage
    from dicepod_host import pico as pico_module

    storage = MemoryStorage()
    log = journal.Journal(storage, lambda: "00000000000000f1")
    log.recover()
    n = started = 0
    while True:
        late = storage.used() >= journal_bytes
        room = 8192 - storage.size(log.seg)
        if n % 300 == 0 or (late and room < 600 and started != log.seg):
            log.append(n * 10, ("new_game", ("free",)))
            started = log.seg
        else:
            count = 10_000 + n
            event = ("selftest", (6 * count,) + (count,) * 6) if tests else ("roll", (n % 6 + 1,))
            log.append(n * 10, event)
        n += 1
        if storage.used() > acked_at and not log.acked:
            log.acked = log.seq
        if late and started == log.seg and 8192 - storage.size(log.seg) < 40:
            break
    files = dict(files)
    files.update({"journal/%d" % seg: storage.segment(seg) for seg in storage.segments()})
    files["journal/ack"] = storage.side("ack")
    fs = littlefs.LittleFS(
        block_size=pico_module.FS_BLOCK, block_count=pico_module.FS_BLOCKS,
        prog_size=pico_module.FS_PROG, read_size=32, cache_size=pico_module.FS_PROG,
        lookahead_size=32, mount=False,
    )  # fmt: skip
    fs.context.buffer[:] = pico_module.littlefs_image(files)
    fs.mount()
    files["filler.bin"] = bytes((pico_module.FS_BLOCKS - fs.used_block_count - free_blocks) * 4000)
    image = tmp_path / name
    pico_module.build_flash(image, files=files, deploy=False)
    return image, log


def _segments(files):
    """{seg: bytes} of a flash's journal segments (side files and journal/tmp left out)."""
    return {int(k[8:]): v for k, v in files.items() if k.startswith("journal/") and k[8:].isdigit()}


def _events(segments):
    """The event lines of {seg: bytes}, in order."""
    out = []
    for seg in sorted(segments):
        out += [x for x in segments[seg].splitlines(True) if x[:1].isdigit()]
    return out


@pytest.mark.timeout(1200)
def test_power_cuts_while_a_full_flash_rotates_and_prunes(tmp_path):
    """The real firmware (the lockstep main, CPython's seeded dice) on a flash that is full: its
    next roll starts a segment, and first deletes the oldest (acknowledged) segments for room.
    That roll is played once whole, counting its flash erases and programs (T of them); then,
    each time from the same full flash on a fresh chip, the power goes right after each one of
    them, 1..T: through the deletes, the ack file (the PC's acknowledgement and the hint naming
    the last segment) in its temporary file and renamed (naming a segment not there yet), the
    new segment's header, and the roll's line. After each cut the Pico is powered on: its
    journal is exactly what CPython's Journal recovers from the same flash (the same LittleFS,
    read on the host), it holds every completed event and nothing else (the roll only once its
    line was written; only acknowledged segments went), and the screen is the game CPython's
    app resumes, pixel for pixel. The flash states pass through every stage, in order."""
    import shutil

    need_pico()
    from pico_sessions import Player, lockstep_files
    from pico_support import UNTIMED, diff_image

    from dicepod_host import pico as pico_module

    files = pico_module.deployed_files()
    files.update(lockstep_files())
    image0, log = _journal_image(
        tmp_path, "full.img", files,
        journal_bytes=250_000, acked_at=100_000, free_blocks=4,
    )  # fmt: skip
    acked = log.acked
    files = read_littlefs(image0.read_bytes())
    segs0 = sorted(_segments(files))
    before = _events(_segments(files))
    # CPython's twin of the full flash plays the same press (no flash limit: it deletes
    # nothing): the events before it and with it.
    board, app = _twin(_segments(files), {"ack": files["journal/ack"]})
    screen = bytes(board.display.buffer)
    start = len(board.pins)
    board.finger(app, [4])  # OK: a roll
    presses = board.pins[start:]
    after = _events({s: board.storage.segment(s) for s in board.storage.segments()})
    assert len(after) == len(before) + 1
    stages = ("pruning", "ack in tmp", "ack ahead", "header in tmp", "header", "line")

    def play(image, cut):
        """A fresh chip on a copy of the full flash: boot, the roll (the power cut armed after
        `cut` flash operations of it, if any). Returns (pico, player, operations done)."""
        shutil.copyfile(image0, image)
        # (what the cuts leave, not how long the flash takes: tests/test_pico_sessions.py's
        # power cut mid-game runs on the chip's timing)
        pico = pico_module.Pico(flash=str(image), usb="events", timing=UNTIMED)
        player = Player(pico)
        player.boot()
        assert pico.frame() == screen
        done = pico.flash_ops
        if cut:
            pico.power_cut(after_flash_ops=cut)
        for mask in presses:
            if player.tick(mask) == "power_cut":
                break
        return pico, player, pico.flash_ops - done

    # The whole roll, no cut: T operations, and the journal CPython's twin wrote, but for the
    # deleted (acknowledged) segments.
    pico, _player, total = play(tmp_path / "whole.img", None)
    pico.close()
    whole = _segments(read_littlefs((tmp_path / "whole.img").read_bytes()))
    kept = _events(whole)
    first = int(kept[0].split(b" ")[0])
    assert first - 1 <= acked and first in segs0 and first > segs0[0]
    assert kept == [x for x in after if int(x.split(b" ")[0]) >= first]
    assert total > len(stages), total
    seen = []
    for cut in range(1, total + 1):
        image = tmp_path / ("cut%d.img" % cut)
        pico, player, ops = play(image, cut)
        try:
            assert ops == cut, (cut, ops)
            cut_files = read_littlefs(image.read_bytes())
            segments = _segments(cut_files)
            last = max(segments)
            hint = int(cut_files["journal/ack"].split()[2])
            tmp = cut_files.get("journal/tmp", b"").split()
            state = (
                "line" if _events(segments)[-1] != before[-1] else
                "header" if last > segs0[-1] else
                "header in tmp" if tmp[:1] == [b"@"] and int(tmp[2]) > last else
                "ack ahead" if hint > last else
                "ack in tmp" if tmp[2:] and tmp[0] != b"@" and int(tmp[2]) > last else
                "pruning" if len(segments) < len(segs0) else "before"
            )  # fmt: skip
            seen.append(state)
            print("cut after operation %d of %d: %s" % (cut, total, state), flush=True)
            # What CPython's journal recovers from this flash, and the screen its app shows.
            reference, _app = _twin(segments, {"ack": cut_files["journal/ack"]})
            pico.power_on()
            player.boot()
            got = _segments(read_littlefs(image.read_bytes()))
            assert got == {s: reference.storage.segment(s) for s in reference.storage.segments()}
            assert pico.frame() == bytes(reference.display.buffer), (cut, state) + (
                diff_image(pico.frame(), bytes(reference.display.buffer)),
            )
            # Every completed event, nothing else: the roll only when its line was written,
            # and the oldest events gone only where the PC had acknowledged them.
            kept = _events(got)
            first = int(kept[0].split(b" ")[0])
            assert first - 1 <= acked and first in segs0, (cut, state)
            want = after if state == "line" else before
            assert kept == [x for x in want if int(x.split(b" ")[0]) >= first], (cut, state)
        finally:
            pico.close()
        image.unlink()
    print("flash operations of the roll:", total, "states after each cut:", seen)
    # Every stage of the rotation was cut into, in order; the last cut leaves the roll's line.
    order = ("before",) + stages
    assert [order.index(s) for s in seen] == sorted(order.index(s) for s in seen), seen
    assert set(stages) - {"header in tmp"} <= set(seen), seen
    assert seen[-1] == "line", seen


# -- bytes flipped on the flash --------------------------------------------------------------


def _twin(segments, side):
    """CPython's app (the test board, the lockstep's seeded dice) started on a flash's
    journal: {seg: bytes} and side files {name: bytes}."""
    from app_board import LineStorage
    from pico_sessions import FingerBoard

    from dicepod.app import App

    storage = LineStorage()
    for seg, data in segments.items():
        storage.write(seg, data)
    for name, data in side.items():
        storage.write(name, data)
    board = FingerBoard(storage=storage)
    app = App(board)
    app.start()
    return board, app


def test_bytes_flipped_in_an_older_and_the_current_segment(tmp_path):
    """A game in progress that began in the segment before the last; one byte flipped (on the
    flash image, in LittleFS's data blocks) in a line of each of the two segments, neither
    their last line. The Pico boots to a notice: recovery marks the current segment's damaged
    line with a break line, and the game's fold, meeting the older segment's one, has that
    segment mended the same way; both damaged lines are kept aside in journal/damaged, every
    other event is kept. Its screen is CPython's, pixel for pixel, on the same flash; OK
    closes the notice on the game, and the next roll is written after the break lines."""
    need_pico()
    from pico_sessions import Player, lockstep_files
    from pico_support import diff_image

    from dicepod import journal
    from dicepod.drivers.memstorage import MemoryStorage
    from dicepod_host import pico as pico_module

    storage = MemoryStorage()
    log = journal.Journal(storage, lambda: "00000000000000f2")
    log.recover()
    n = 0
    while not (n % 300 > 200 and storage.size(log.seg) > 2000 and log.game_seg < log.seg):
        log.append(n * 10, ("new_game", ("free",)) if n % 300 == 0 else ("roll", (n % 6 + 1,)))
        n += 1
    older, current = storage.segments()[-2:]
    assert log.game_seg == older
    files = pico_module.deployed_files()
    files.update(lockstep_files())
    files.update({"journal/%d" % seg: storage.segment(seg) for seg in storage.segments()})
    files["journal/ack"] = storage.side("ack")
    image = tmp_path / "flips.img"
    pico_module.build_flash(image, files=files, deploy=False)
    data = bytearray(image.read_bytes())
    region = (pico_module.FS_OFFSET, pico_module.FS_OFFSET + 352 * 4096)
    flipped = []  # the lines as written
    changed = []  # and with their byte flipped
    for seg in (older, current):
        lines = storage.segment(seg).splitlines(True)
        for line in lines[len(lines) // 2 : -1]:  # after the game's new_game, not the last
            at = data.find(line, *region)
            if b'["roll"' in line and at >= 0 and data.find(line, at + 1, region[1]) < 0:
                digit = at + line.index(b"]]") - 1  # the die's value: the checksum fails
                data[digit] ^= 1
                flipped.append(line)
                changed.append(bytes(data[at : at + len(line)]))
                break
    assert len(flipped) == 2
    image.write_bytes(bytes(data))
    seqs = [int(x.split(b" ")[0]) for x in flipped]
    on_flash = read_littlefs(bytes(data))
    assert _events(_segments(on_flash)) != _events(_segments(files))  # the flips are in files
    board, app = _twin(_segments(on_flash), {"ack": on_flash["journal/ack"]})
    notice = app.stack[-1].lines
    assert notice.count("Journal damaged:") == 2 and notice.count("1 event(s) lost") == 2
    with pico_module.Pico(flash=str(image), usb="events") as pico:
        player = Player(pico)
        player.boot()
        assert pico.frame() == bytes(board.display.buffer), diff_image(
            pico.frame(), bytes(board.display.buffer)
        )
        files = read_littlefs(image.read_bytes())
        got = _segments(files)
        assert got == {s: board.storage.segment(s) for s in board.storage.segments()}
        # The later events kept, each damaged line replaced by a break line of its seq, the
        # damaged bytes kept for the PC.
        original = _events({s: storage.segment(s) for s in storage.segments()})
        # and each break chained by its ("lost", (seq, seq)) event after them (the current
        # segment's found first, at recovery)
        assert _events(got)[:-2] == [x for x in original if x not in flipped]
        marks = [json.loads(x.split(b" ")[4]) for x in _events(got)[-2:]]
        assert marks == [["lost", [seqs[1], seqs[1]]], ["lost", [seqs[0], seqs[0]]]]
        breaks = [x for seg in sorted(got) for x in got[seg].splitlines() if x[:1] == b"!"]
        assert [x.split(b" ")[1:3] for x in breaks] == [[b"%d" % s] * 2 for s in seqs]
        damaged = files["journal/damaged"]
        assert damaged == board.storage.side("damaged")
        # (the current segment's first: recovery found it, then the game's fold the other)
        assert damaged == changed[1] + changed[0]
        # OK closes the notice: the game; OK again rolls, on both.
        start = len(board.pins)
        board.finger(app, [4, 4])
        for mask in board.pins[start:]:
            player.tick(mask)
        assert pico.frame() == board.frames[-1], diff_image(pico.frame(), board.frames[-1])
        files = read_littlefs(image.read_bytes())
        assert _segments(files)[current] == board.storage.segment(current)
        assert _events(_segments(files))[-1].split(b" ")[0] == b"%d" % (log.seq + 3)  # 2 marks


# -- the PC's acknowledgement --------------------------------------------------------------


def _logged_events(db):
    """(seq, game, ms, prev, kind, data) of a `dicepod log` database's events, by seq."""
    con = sqlite3.connect(str(db))
    try:
        rows = con.execute("SELECT seq, game, ms, prev, kind, data FROM events ORDER BY seq")
        return [row[:5] + (tuple(json.loads(row[5])),) for row in rows.fetchall()]
    finally:
        con.close()


def _line_fields(line):
    from dicepod import journal

    seq, game, ms, event, prev = journal.decode(line)[0]
    return (seq, game, ms, prev, event[0], event[1])


def test_a_full_flash_deletes_what_dicepod_log_acknowledged(tmp_path):
    """The real firmware on a full flash whose next roll starts a segment, nothing of its
    journal acknowledged yet. `dicepod log` on the Pico's USB back-fills the journal into its
    database and acknowledges what it stored; the roll then deletes the oldest segments for
    room, without a notice (the PC has them), and the ack file the new segment starts with
    holds the acknowledged seq. The database has every event, those deleted from the flash
    included, as the flash had them (0 lost), and `dicepod verify` passes it."""
    need_pico()
    from dicepod_host import pico as pico_module
    from dicepod_host.cli import main

    image, log = _journal_image(
        tmp_path, "acked.img", pico_module.deployed_files(),
        journal_bytes=9_000, acked_at=1 << 30, free_blocks=4, tests=True,
    )  # fmt: skip
    assert log.acked == 0
    written = _events(_segments(read_littlefs(image.read_bytes())))
    db = tmp_path / "log.db"
    with Pico(flash=str(image)) as pico:
        pico.run_until_frame(max_ms=10_000)
        with start_logger(pico.usb_port, db) as logger:
            end = time.monotonic() + 120
            while _count(db) < log.seq and time.monotonic() < end:
                pico.run_ms(200)
            assert _count(db) == log.seq
            pico.run_ms(1500)  # the logger's flush, its ack, the device takes it
            frame = pico.frame()
            pico.tap("OK")  # a roll: a new segment, the oldest ones deleted for room
            pico.run_ms(300)
            end = time.monotonic() + 60
            while _count(db) < log.seq + 1 and time.monotonic() < end:
                pico.run_ms(200)
            after = pico.frame()
            stop_logger(logger)
    files = read_littlefs(image.read_bytes())
    segments = _segments(files)
    acked, _jid, seg = files["journal/ack"].split()
    assert int(seg) == log.seq + 1 == max(segments)  # the new segment, its ack file
    assert int(acked) == log.seq  # the PC had stored every event before the roll
    first = min(segments)
    assert first > 1  # segments went: every one of them acknowledged
    kept = _events(segments)
    assert kept[:-1] == [x for x in written if int(x.split(b" ")[0]) >= first]
    assert after != frame  # the roll is on the screen, no notice in its way
    # The database: every event, the deleted ones included, as written on the flash.
    assert _logged_events(db) == [_line_fields(x) for x in written + kept[-1:]]
    assert main(["verify", str(db)]) == 0


# -- 1,000 more events on a full flash, logged ----------------------------------------------

# The finger of the 1,000-event test: a press held 3 ticks (60 ms), let go 3 (60 ms), about
# eight taps a second. The fewest ticks the buttons driver takes as a tap: after each edge it
# locks the button out for 30 ms (two 20 ms ticks), so a press and its release are each seen
# at the earliest in the third tick after the edge before (tests/pico_sessions.py's finger
# holds 4 and waits 3).
_QUICK_DOWN = 3
_QUICK_UP = 3


@pytest.mark.timeout(1800)
@pytest.mark.skipif(
    not os.environ.get("DICEPOD_PICO_1000"),
    reason="~6 minutes of one core (8.6 G emulated cycles), over the suite's 15-minute budget: "
    "set DICEPOD_PICO_1000=1 to run it",
)
def test_a_full_flash_keeps_playing_for_1000_more_events(tmp_path, capsys):
    """A flash full to its last blocks: about 250 KB of free-roll games of 300 events, a
    filler leaving 4 blocks free, and the PC's acknowledgement of all but the last ~110
    events (the PC's log holds those: it was unplugged as the flash filled). `dicepod log` is
    attached again on the Pico's USB from the boot on. 1,000 more events pressed at the pins
    (the lockstep main, the real buttons driver, a quick finger): DOWN five times (one die: a
    setting event each), then 995 rolls. Every press writes its event (no notice or crash
    screen in the way: the last screen is CPython's, pixel for pixel, after the same presses);
    the logger back-fills what it lacked, stores the live events and acknowledges as it goes
    (the device writes that down as each segment starts), and the full flash deletes the
    oldest segments for room, only acknowledged ones. At the end the flash holds the newest
    events (the game in progress whole, from its new_game line), exactly CPython's lines; the
    database holds every event once, field for field as written, the deleted ones included
    (every seq is in it); `dicepod verify` passes it."""
    need_pico()
    from pico_sessions import Player, lockstep_files
    from pico_support import diff_image

    from dicepod import protocol
    from dicepod_host import pico as pico_module
    from dicepod_host.cli import main
    from dicepod_host.logger import Ingest
    from dicepod_host.store import Store

    dev = "e6614c311b7a2f36"
    files = pico_module.deployed_files()
    files.update(lockstep_files())
    image, log = _journal_image(
        tmp_path, "full.img", files,
        journal_bytes=250_000, acked_at=245_000, free_blocks=4,
    )  # fmt: skip
    seq, acked = log.seq, log.acked
    flash = read_littlefs(image.read_bytes())
    before = _events(_segments(flash))
    assert len(before) == seq and 0 < acked < seq
    # The PC's log: the events it acknowledged (stored by the logger's own ingest).
    db = tmp_path / "log.db"
    with Store(db) as store:
        Ingest(store).feed(b"".join(protocol.event_line(dev, x, log.id) for x in before[:acked]))
        store.commit()
    assert _count(db) == acked
    # The presses, and CPython's twin playing them on the same journal (no flash limit).
    codes = [2] * 5 + [4] * 995  # DOWN x5 (6 dice -> 1), then OK: a roll each
    masks = []
    for code in codes:
        masks += [code] * _QUICK_DOWN + [0] * _QUICK_UP
    board, app = _twin(_segments(flash), {"ack": flash["journal/ack"]})
    for mask in masks:
        board.mask = mask  # the pins its buttons driver reads
        app.tick(20)
    twin = _events({s: board.storage.segment(s) for s in board.storage.segments()})
    assert len(twin) == seq + 1000 and all(b'"roll",[' in x for x in twin[-995:])
    with Pico(flash=str(image), device_id=dev) as pico:
        player = Player(pico)
        started = time.monotonic()
        player.boot()
        boot = time.monotonic() - started
        # The display's bytes arrive whole, without the bus time of each (the CPU would spin
        # through it in the I2C driver: ~8 % of the emulated cycles of a roll).
        pico.call("wire", on=False)
        with start_logger(pico.usb_port, db) as logger:
            per = 10 * (_QUICK_DOWN + _QUICK_UP)  # ten presses a command
            for at in range(0, len(masks), per):
                player.play(masks[at : at + per])
            played = time.monotonic() - started
            # Idle ticks while the logger catches up (back-fill, the last acknowledgement).
            end = time.monotonic() + 120
            while _count(db) < seq + 1000 and time.monotonic() < end:
                player.play([0] * 25)
            caught = time.monotonic() - started
            stop_logger(logger, timeout=60, pump=lambda: player.play([0] * 5))
        frame = pico.frame()
        figures = (
            "boot %.1f s, 1,000 presses %.1f s, the logger's last events %.1f s (wall); "
            "%.0f M cycles awake" % (boot, played - boot, caught - played, pico.cycles / 1e6)
        )
    assert frame == bytes(board.display.buffer), diff_image(frame, bytes(board.display.buffer))
    files = read_littlefs(image.read_bytes())
    segments = _segments(files)
    lines = _events(segments)
    seqs = [int(x.split(b" ")[0]) for x in lines]
    assert seqs == list(range(seqs[0], seq + 1001))  # every press wrote its event, no gap
    assert lines == twin[seqs[0] - 1 :]  # the newest events, exactly as CPython wrote them
    assert min(segments) > 1  # segments went for room
    new_game = max(i for i, x in enumerate(twin) if b'"new_game"' in x)
    assert seqs[0] <= new_game + 1  # the game in progress whole, from its new_game line
    assert "journal/damaged" not in files and "filler.bin" in files
    # Only acknowledged events went: the ack the device wrote down covers them.
    ack = int(files["journal/ack"].split()[0])
    assert seqs[0] - 1 <= ack  # the deleted ones all acknowledged
    assert seq < ack <= seq + 1000  # acknowledgements of the new events, written down
    # The PC's log: every event once, field for field as written, the deleted ones included.
    assert _logged_events(db) == [_line_fields(x) for x in twin]
    capsys.readouterr()
    assert main(["verify", str(db)]) == 0, capsys.readouterr().out
    with capsys.disabled():
        print(figures)
