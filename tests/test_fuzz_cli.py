"""Every verb's arguments and files fuzzed (tests/fuzz_cli.py: the options read from the real
parser, hostile and odd values and files, and every case the issue lists): no traceback, and no
run past its bound. Also the logger against lines with a valid checksum around values no device
sends (seq, game or ms of 2^63 and more, data [10^300], unknown kinds): rejected and counted,
never stored, never a crash."""

import json
import subprocess
import sys
from pathlib import Path

import fuzz_cli
import pytest

from dicepod import protocol_pc
from dicepod_host import logger
from dicepod_host.store import Store

HERE = Path(__file__).resolve().parent


@pytest.mark.slow
def test_every_verb_fuzzed_no_traceback_no_run_past_its_bound(tmp_path, record_property):
    out = subprocess.run(
        [sys.executable, str(HERE / "fuzz_cli.py"), str(tmp_path / "work"), "1"],
        capture_output=True, text=True, timeout=900,
        cwd=tmp_path,  # (a verb's default output, `dicepod firmware`'s UF2, lands here)
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    record_property("fuzz", report["tally"])
    print(
        "fuzz: %d cases %s; slowest %s" % (report["cases"], report["tally"], report["slowest"][:3])
    )
    assert report["cases"] >= 800
    assert report["failures"] == [], json.dumps(report["failures"][:5], indent=1)[:4000]


def test_every_listed_case_is_in_the_fuzz(tmp_path):
    files = fuzz_cli.make_files(tmp_path)
    cases = [" ".join(c) for c in fuzz_cli.cases(files)]
    for wanted in (
        "verify {}".format(files["db_data5"]), "verify {}".format(files["db_null"]),
        "verify {}".format(files["db_seqx"]), "verify {}".format(files["csvbig"]),
        "verify {}".format(files["deep"]), "verify /dev/zero", "verify {}".format(files["fifo"]),
        "export {} -o /dev/full".format(files["db"]),
        "emulate --linger nan", "emulate --linger inf",
        "emulate --script {} --linger 0".format(files["script_big"]),
        "emulate --script {} --linger 0".format(files["script_wait"]),
        "sim --port 99999", "sim --port -1", "log --idle-exit nan",
        "import {} --db {}".format(files["hostile"], files["out_new"].as_posix() + ".db"),
        "import {} --db {}".format(files["jsonl"], files["corrupt"]),
        "import {} --db {}".format(files["jsonl"], files["fifo"]),
        "players {} --game 1 d1ce0001 Ada Bo".format(files["db"]),
        "players {} --journal {} d1ce0001 Ada".format(files["db"], "x" * 5000),
    ):  # fmt: skip
        assert wanted in cases, wanted


def test_out_of_bounds_lines_are_rejected_not_stored(tmp_path):
    lines = [
        fuzz_cli._signed(2**63, 1, 0, ("new_game", ("free",))),
        fuzz_cli._signed(1, 2**63, 0, ("new_game", ("free",))),
        fuzz_cli._signed(1, 1, 2**64, ("new_game", ("free",))),
        fuzz_cli._signed(1, 1, 0, ("roll", (10**300,))),
        fuzz_cli._signed(1, 1, 0, ("no_such_kind", (1,))),
        fuzz_cli._signed(1, 2, 0, ("new_game", ("free",))),  # game id above seq
    ]
    for line in lines:
        protocol_pc.parse(line)  # each passes the protocol's own checks (a valid checksum)
    good = fuzz_cli._signed(1, 1, 0, ("new_game", ("free",)))
    with Store(tmp_path / "b.db") as store:
        ingest = logger.Ingest(store)
        ingest.feed(b"".join(lines) + good)
        assert ingest.counts["malformed"] == len(lines) and ingest.counts["new"] == 1
        store.commit()
        assert [o["seq"] for o in store.events()] == [1]
