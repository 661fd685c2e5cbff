"""The whole app under the real MicroPython unix port with a capped heap: the scripted sessions
(recorded as button presses on CPython) are replayed on a minimal board with the firmware
compiled to .mpy as the deploy tool installs it. No MemoryError, no crash, and the journal
MicroPython writes equals CPython's byte for byte (the same presses played the same games).

Measured caps (unix port, .mpy): free roll 72 KB, Tests 80 KB, Battle Game 96 KB, Tyranid
Attack! 104 KB, Rise of the Orks 128 KB; every mode in one session 160 KB. The 96 KB goal
(half a Pico's heap) is met by the first three; the co-op games' rules modules are too big
for it yet (rules/orks.py alone holds ~38 KB of heap once loaded, 11 KB of it its 60 SETTINGS
specs), see tools/bench_app.py."""

import pytest
from app_heap import EVERY_MODE, build_mpy, record, replay

# Guard caps in KB for the co-op games: their measured smallest heap (see the docstring) plus
# 16 KB of headroom, so growth past that is noticed.
_GUARD = {"tyranid": 104 + 16, "orks": 128 + 16}
_GOAL = 96


@pytest.fixture(scope="module")
def mpy(tmp_path_factory):
    return build_mpy(tmp_path_factory.mktemp("mpy"))


def _run(mpy, tmp_path, sessions, heap):
    buttons, journal, _marks = record(sessions)
    out, written = replay(mpy, buttons, tmp_path / "device", heap)
    assert "MemoryError" not in out.stdout + out.stderr, out.stderr[-2000:]
    assert out.returncode == 0, out.stderr[-2000:]
    assert b'"crash"' not in written
    assert written == journal
    return out


def test_every_mode_in_one_session(mpy, tmp_path):
    out = _run(mpy, tmp_path, EVERY_MODE, "176k")  # measured 160 KB, plus headroom
    assert "events %d" % 0 not in out.stdout


@pytest.mark.parametrize("mode", ["free", "tests", "battle"])
def test_mode_within_the_96k_goal(mpy, tmp_path, mode):
    _run(mpy, tmp_path, (mode,), "%dk" % _GOAL)


@pytest.mark.parametrize("mode", ["tyranid", "orks"])
def test_coop_mode_within_its_guard_cap(mpy, tmp_path, mode):
    _run(mpy, tmp_path, (mode,), "%dk" % _GUARD[mode])


@pytest.mark.xfail(reason="the co-op rules modules do not fit the 96 KB goal yet", strict=False)
@pytest.mark.parametrize("mode", ["tyranid", "orks"])
def test_coop_mode_within_the_96k_goal(mpy, tmp_path, mode):
    _run(mpy, tmp_path, (mode,), "%dk" % _GOAL)
