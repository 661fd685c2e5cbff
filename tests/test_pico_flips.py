"""Issue 48 on the emulated Pico (dicepod's firmware build, the app in its ROMFS, the journal
and settings on its LittleFS; `dicepod log` on its USB, `dicepod verify`): one bit flipped on
the flash, then a power-on. A flip in a journal segment or in the settings file: the device
boots into dicepod (its game, or its own notice first) and answers OK, the journal is not
wiped, and every event it lost is marked (a break its chain vouches for, which the PC stores
and verify passes); a flip in the settings loses no event. A flip in the root directory's first
commit (its superblock entry) makes LittleFS fall back to the pair's other block, the root as it
was formatted, empty: the firmware reads the journal back from the raw flash (dicepod.salvage),
says so on its screen, and loses nothing. Seeded
trials of tools/bench_flips_pico.py (which runs more, on both builds, and writes the table);
set DICEPOD_PICO_FLIPS=1 for the long run. Skips with one line when the UF2 / boot ROM are
absent."""

import json
import os
import random
import sys
from pathlib import Path

import pytest
from pico_support import UNTIMED, need_pico

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import bench_flips_pico as flips  # noqa: E402

flips.TIMING = UNTIMED  # what a flip leaves, not how long its boot takes

EVENTS = 200  # two segments: an older one and the current one
FIRMWARE = "dicepod"  # the build a dicepod ships with (its app runs whatever LittleFS holds)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    need_pico()
    folder = tmp_path_factory.mktemp("flips")
    path, jid, events = flips.base_image(folder, FIRMWARE, events=EVENTS)
    return folder, path, jid, events, flips.regions(path.read_bytes())


def _check(result):
    """The properties that hold today for a flip in a segment or in the settings."""
    what = json.dumps(result)
    assert result["frame"] and result["answers"], what  # dicepod (or its notice) runs
    assert not result["repl"] and not result["wiped"], what
    assert result["unmarked"] == 0, what  # every event lost is marked
    assert result["verify"], what
    if result["region"] == "settings":
        assert result["lost"] == 0, what


def test_single_bit_flips_in_segments_and_settings(base):
    folder, path, jid, events, spans = base
    rng = random.Random(48)
    for region in ("segments", "settings"):
        result = flips.trial(rng, path, jid, events, region, folder, FIRMWARE, spans[region])
        print(result)
        _check(result)


def test_a_flip_in_the_root_directory_keeps_the_journal(base):
    folder, path, jid, events, _spans = base
    at = flips.superblock_magic(path.read_bytes())
    result = flips.trial(random.Random(1), path, jid, events, "metadata", folder, FIRMWARE, at=at)
    print(result)
    assert result["frame"] and result["answers"] and result["notice"], result
    assert not result["wiped"] and result["lost"] == result["unmarked"] == 0, result
    assert result["verify"], result


@pytest.mark.timeout(3600)
@pytest.mark.skipif(
    not os.environ.get("DICEPOD_PICO_FLIPS"),
    reason="about 15 s of wall time a trial: set DICEPOD_PICO_FLIPS=1 for 10 flips a region",
)
def test_ten_flips_a_region(base):
    folder, path, jid, events, spans = base
    for region in ("segments", "settings"):
        rng = random.Random("flips %s" % region)
        for _ in range(10):
            result = flips.trial(rng, path, jid, events, region, folder, FIRMWARE, spans[region])
            print(result)
            _check(result)
