"""The journal on MicroPython's real LittleFS (vfs.VfsLfs2 on a RAM block device of 4 KB
blocks, as a Pico's flash), under the real unix port (tests/lfs_journal.py does the work):

- a power cut after every erase and program made while a segment is started or deleted or the
  PC's acknowledgement written (and the append after it) keeps every completed event and
  nothing else (the chain holds, the game in progress starts with its new_game);
- a full flash (64 KB) keeps taking events, 1,000 more: the oldest acknowledged games go, the
  game in progress stays whole, nothing unacknowledged is deleted;
- boot reads a bounded amount: an empty journal, 10,000 events and a full flash recover in
  about the same time (the last segment only)."""

import json

from harness import ROOT, run_micropython


def _run(what, heap="4m"):
    out = run_micropython(
        [str(ROOT / "tests" / "lfs_journal.py"), what], heap=heap, extra_path=[ROOT / "tests"]
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    line = [x for x in out.stdout.splitlines() if x.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT ") :])


def test_power_cut_after_every_flash_op_of_rotation_and_pruning():
    result = _run("powercut")
    assert result["events"] == 1800
    assert result["windows"] >= 20  # segments started, deleted, acknowledgements written
    assert result["cuts_checked"] >= 100
    assert result["first_kept_seq"] > 1  # the flash did fill: old games were deleted


def test_a_full_flash_keeps_playing_1000_more_events():
    result = _run("full")
    assert result["more_events"] == 1000 and result["seq"] >= 1000 + result["filled_at_event"]
    assert result["first_kept_seq"] > 1
    assert result["pruned_unacknowledged"] == 0  # only what the PC had acknowledged went
    assert result["free_bytes"] > 0


def test_boot_time_does_not_grow_with_the_history():
    result = _run("boot")
    assert result["10000_events"]["events"] == 10000
    assert result["full"]["events"] > 1000
    # the last segment only: 10,000 events cost no more than a few segments' worth
    assert result["10000_events"]["boot_ms"] < 40 * max(result["empty"]["boot_ms"], 1.0)
