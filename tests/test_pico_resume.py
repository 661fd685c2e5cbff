"""The game in progress resumed from its checkpoint on the emulated Pico (both builds of the
real firmware, flash timing typical): a journal of 2,000 events whose last game, a Free roll
of 300 rolls, is in progress. The first power-on folds all 300; in the quiet while after it the
firmware saves the game whole (dicepod.resume, the side file journal/game); the next power-on
reads it, folds nothing, shows the very same screen sooner, and the game goes on: the next
roll is chained to the journal's last line."""

import pytest
from pico_support import need_pico

from dicepod_host import pico as pico_module

EVENTS = 2000
GAME = 300  # events of the game in progress


def _journal_files():
    """{path: bytes}: free-roll games of 300 events written by dicepod.journal on CPython, the
    last one in progress (as tools/bench_journal.py writes its boots)."""
    from dicepod import journal
    from dicepod.drivers.memstorage import MemoryStorage

    storage = MemoryStorage()
    log = journal.Journal(storage, lambda: "0123456789abcdef")
    log.recover()
    for n in range(EVENTS):
        start = n == EVENTS - GAME or (n < EVENTS - GAME and n % 300 == 0)
        log.append(n * 10, ("new_game", ("free",)) if start else ("roll", (n % 6 + 1, 3)))
    files = {"journal/%d" % seg: storage.segment(seg) for seg in storage.segments()}
    files["journal/ack"] = storage.side("ack")
    return files


def _last_line(files):
    from dicepod import journal

    last = max(int(name[8:]) for name in files if name[8:].isdigit())
    line = files["journal/%d" % last].splitlines(True)[-1]
    return journal.decode(line)[0]  # (seq, game, ms, event, prev)


# The boot with the checkpoint read, at most (emulated ms): dicepod's build runs its code in
# place; the stock build loads it from the file system into the heap first.
RESUMED_MS = {"dicepod": 400, "stock": 650}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("firmware", ["dicepod", "stock"])
def test_a_power_on_resumes_the_game_from_its_checkpoint(tmp_path, firmware):
    need_pico()
    path = tmp_path / "flash.img"
    with pico_module.Pico(
        files=_journal_files(), firmware=firmware, timing="typical", flash=str(path)
    ) as board:
        folded_ms = board.run_until_frame(max_ms=20_000)
        screen = board.frame()
        assert "journal/game" not in pico_module.read_littlefs(pico_module.flash_image(path))
        board.run_ms(6_000)  # a quiet while: the game saved whole
        files = pico_module.read_littlefs(pico_module.flash_image(path))
        saved = files.get("journal/game", b"")
        assert saved.startswith(b"0123456789abcdef %d " % EVENTS), saved[:80]
        assert b'"rolls": %d' % (GAME - 1) in saved, saved[:300]

        off = board.now_ms
        board.power_cycle()
        resumed_ms = board.run_until_frame(max_ms=20_000) - off
        assert board.frame() == screen  # the same game on the same screen
        # (the game's 300 events are no longer folded)
        assert resumed_ms < folded_ms - 200, (folded_ms, resumed_ms)
        print("folded %.1f ms, resumed %.1f ms" % (folded_ms, resumed_ms))
        assert resumed_ms < RESUMED_MS[firmware], resumed_ms

        board.run_ms(300)
        board.play("OK")  # a roll: the game goes on from the checkpoint's state
        board.run_ms(500)
        files = pico_module.read_littlefs(pico_module.flash_image(path))
        seq, game, _ms, event, _prev = _last_line(files)
        assert seq == EVENTS + 1 and event[0] == "roll", (seq, event)
        assert board.frame() != screen
