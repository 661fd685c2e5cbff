"""A whole new screen costs the display's bus no more than one full-frame write, on the emulated
Pico (the real firmware, an SSD1306 at the bus rate an RP2040 really makes, timing typical):
the boot's first frame goes out as micropython-lib's driver sends a frame (the window, one
1,025-byte data write, page addressing again), a screen opened by a press takes no longer on the
bus than that, from its first byte to its last, at either bus rate, and a small change goes as
its changed spans only."""

import pytest
from pico_support import need_pico

from dicepod_host import pico as pico_module


def _frame_writes(board, since_ns):
    """The display's I2C writes since since_ns: (data bytes, bus ns) each."""
    return [
        (e["data"], e["t1"] - e["t0"])
        for e in board.events("i2c", since_ns=since_ns)
        if e["addr"] == 0x3C
    ]


def _whole(writes):
    """The bus ns of a whole-frame write among writes and of everything written with it (the
    window and page addressing commands); None when no write holds the whole frame."""
    for i, (data, ns) in enumerate(writes):
        if data[:1] == b"\x40" and len(data) == 1025:
            window, back = writes[i - 1], writes[i + 1]
            assert window[0] == bytes((0x00, 0x20, 0x00, 0x21, 0, 127, 0x22, 0, 7)), window
            assert back[0] == bytes((0x00, 0x20, 0x02)), back
            return ns, window[1] + ns + back[1]
    return None


@pytest.mark.timeout(300)
@pytest.mark.parametrize("fast", (0, 1), ids=("400kHz", "1MHz"))
def test_a_new_screen_costs_no_more_bus_time_than_one_full_frame_write(fast):
    need_pico()
    settings = b'{"device.fastbus":%d}\n' % fast
    with pico_module.Pico(
        firmware="dicepod", timing="typical", files={"settings.json": settings}
    ) as board:
        board.run_until_frame(max_ms=20_000)
        boot = _whole(_frame_writes(board, 0))
        assert boot is not None
        data_ns, all_ns = boot
        # the window and page addressing: 12 bytes more than the frame's 1,026 on the bus
        assert all_ns <= data_ns * 1.02, (data_ns, all_ns)

        board.run_ms(1000)  # (the modules a press may open load after the first frame)
        down, _up = board.press("DOWN")  # the menu's cursor: two rows change
        # (the pass that answers: the first idle moment after the edge can be the settle
        # before it, Pico.run_until_handled)
        board.run_until_handled(down)
        writes = _frame_writes(board, down)
        assert writes and _whole(writes) is None
        assert sum(len(data) for data, _ns in writes) < 600, [len(d) for d, _ns in writes]

        board.run_ms(300)
        down, up = board.press("UP")
        board.run_until_idle(after_ns=up)
        board.run_ms(300)
        down, up = board.press("OK")  # Battle Game: a new screen, as spans or whole
        board.run_until_idle(after_ns=up)
        board.run_ms(500)
        writes = _frame_writes(board, up)
        assert sum(len(data) for data, _ns in writes) > 700  # (most of the screen changed)
        assert sum(ns for _data, ns in writes) <= all_ns, (all_ns, [len(d) for d, _ns in writes])
        # and from its first byte to its last, the code between its writes included: spans
        # are sent only when they take no longer than the frame whole
        events = [e for e in board.events("i2c", since_ns=up) if e["addr"] == 0x3C]
        took = events[-1]["t1"] - events[0]["t0"]
        assert took <= all_ns * 1.02, (took, all_ns, [len(d) for d, _ns in writes])


def _rate_khz(data_ns, nbytes=1026):
    """The SCL rate of a write of nbytes (9 clocks a byte: eight bits and the acknowledge)."""
    return nbytes * 9 * 1e6 / data_ns


@pytest.mark.timeout(300)
def test_the_fast_bus_setting_sends_a_frame_in_under_half_the_time():
    """Settings → Device → Display bus → 1 MHz: the frame goes at the rate an RP2040 makes of
    1 MHz (its SCL counts, plus the rise through the module's pull-ups), where the default
    runs the controllers' rated 400 kHz as about 356 kHz."""
    need_pico()
    frames = {}
    for fast in (0, 1):
        settings = b'{"device.fastbus":%d}\n' % fast
        with pico_module.Pico(
            firmware="dicepod", timing="typical", files={"settings.json": settings}
        ) as board:
            board.run_until_frame(max_ms=20_000)
            boot = _whole(_frame_writes(board, 0))
            assert boot is not None
            frames[fast] = boot[0]
    slow, fast = _rate_khz(frames[0]), _rate_khz(frames[1])
    assert 330 < slow < 400, slow
    assert 700 < fast < 1000, fast
    assert frames[1] < frames[0] / 2, frames
