"""The whole app under the real MicroPython unix port with a capped heap: the scripted sessions
(recorded as button presses on CPython) are replayed on a minimal board with the firmware
compiled to .mpy as the deploy tool installs it (the code loaded into the heap, as on the stock
firmware: one mode's code at a time, dicepod.ram). No MemoryError, no crash, and the journal
MicroPython writes equals CPython's byte for byte (the same presses played the same games).

An early warning on a port that is not the device (64-bit: objects twice a Pico's size): each
bound is the smallest heap measured (tools/bench_app.py, figures in docs/MEASUREMENTS.md) with a
little room for the checkout's folder, and larger caps are run too (more room must never fail).
The device's own gates are on the real Pico firmware in the emulated RP2040
(tests/test_pico_sessions.py). app_heap.replay reaches the device directory through a link of a
fixed name: the same bytes in RAM wherever the test runs."""

import pytest
from app_heap import EVERY_MODE, build_mpy, record, replay

# Single modes, every mode in one session, every mode on the device board (app_device.py: the
# Pico's drivers and USB link on stand-ins): the smallest heap measured (KB) and a little room.
_SINGLE_BOUND = 131
_EVERY_BOUND = 137
_DEVICE_BOUND = 192


@pytest.fixture(scope="module")
def mpy(tmp_path_factory):
    return build_mpy(tmp_path_factory.mktemp("mpy"))


@pytest.fixture(scope="module")
def every_mode():
    return record(EVERY_MODE)


def _run(mpy, tmp_path, recorded, heap_kb, device=False):
    buttons, journal, _marks = recorded
    out, written = replay(mpy, buttons, tmp_path / "device", "%dk" % heap_kb, device=device)
    assert "MemoryError" not in out.stdout + out.stderr, out.stderr[-2000:]
    assert out.returncode == 0, out.stderr[-2000:]
    assert b'"crash"' not in written
    assert written == journal
    events = len([line for line in journal.splitlines() if line[:1].isdigit()])
    assert "events %d" % events in out.stdout
    return out


@pytest.mark.parametrize("mode", ["free", "tests", "battle", "orks", "tyranid"])
def test_mode_within_its_bound(mpy, tmp_path, mode):
    _run(mpy, tmp_path, record((mode,)), _SINGLE_BOUND)


def test_every_mode_in_one_session_within_its_bound(mpy, tmp_path, every_mode):
    _run(mpy, tmp_path, every_mode, _EVERY_BOUND)


@pytest.mark.parametrize("heap_kb", [140, 148, 160])
def test_every_mode_in_one_session_at_larger_heaps_too(mpy, tmp_path, every_mode, heap_kb):
    # More room must never fail where less room passed (fragmentation once made it so).
    _run(mpy, tmp_path, every_mode, heap_kb)


@pytest.mark.parametrize("heap_kb", [_DEVICE_BOUND, 200, 224])
def test_every_mode_on_the_device_board_within_its_bound(mpy, tmp_path, every_mode, heap_kb):
    _run(mpy, tmp_path, every_mode, heap_kb, device=True)
