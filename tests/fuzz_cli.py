"""The fuzz worker of tests/test_fuzz_cli.py: every verb of `dicepod` with bad, huge, odd and
hostile arguments and files, run through the real cli.main in this process, each under a time
bound. Prints one JSON object: the cases run and, per failing case, its arguments and what went
wrong (a traceback, or a run past its bound).

The verbs and their options are read from the real argument parser (a new verb or option is
fuzzed without a change here): each option gets values of its kind (numbers: nan, inf, -1, 0,
2^63, 10^300, digits by the thousand; names and paths: every file below), each positional the
files, plus a seeded random mix of several at once. The files: missing, a directory, empty,
text, binary, /dev/zero, /dev/null, /dev/full, a FIFO, JSON nested 100,000 deep, a CSV field
over 131,072 characters, a JSON Lines log whose lines carry a valid checksum around values no
device sends (seq 2^63, data [10^300], an unknown kind), and databases edited by hand
(data '5', '[null]', seq 'x', a kind that is a number).

    python tests/fuzz_cli.py WORKDIR [SEED]

A run may end by itself or, for the verbs that run until stopped (log, sim, dash, emulate with
no end), by the Ctrl-C this worker sends after STOP_AFTER seconds; past BOUND seconds it is a
failure (the worker interrupts it and goes on).
"""

import argparse
import contextlib
import io
import json
import os
import random
import signal
import sqlite3
import sys
import threading
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for sub in ("firmware", "host", "tests", "tests/portable"):
    sys.path.insert(0, str(ROOT / sub))

import loggen  # noqa: E402

from dicepod import journal, protocol, protocol_pc  # noqa: E402
from dicepod_host import cli  # noqa: E402
from dicepod_host.store import Store  # noqa: E402

STOP_AFTER = 0.6  # seconds: the Ctrl-C for a verb that runs until stopped
BOUND = 12.0  # seconds: past this a run is a failure
# deploy compiles the firmware, then gives a silent port its 30 s call timeout.
BOUNDS = {"deploy": 45.0}
# Values every option of a verb that runs until stopped is tried with (the rest: a sample).
MUST = ("nan", "inf", "-1", "99999", "9" * 5000, "")
# The verbs that run until Ctrl-C by design (a server, the logger, a lingering emulator).
UNTIL_STOPPED = {"sim", "dash", "log", "emulate"}
# Verbs whose every run takes seconds (each builds the firmware): the MUST values and a sample.
SLOW = {"deploy", "firmware"}
NUMBERS = ["nan", "inf", "-inf", "-1", "0", "1", "65536", "99999", str(2**63), "1e300",
           "9" * 5000, "0x10", "", " ", "1.5", "-0"]  # fmt: skip
WORDS = ["", "x" * 100000, "../../etc/passwd", "a b", "\u00e9\u00e8", "--", "-", "%s%n"]


class PastBound(BaseException):
    """The run went past its bound (raised in it by the alarm)."""


def _signed(seq, game, ms, event, prev="00000000"):
    """An event line with a valid checksum around any values (no bounds: a hostile sender)."""
    kind, data = event
    canon = json.dumps([kind, list(data)], separators=(",", ":")).encode()
    prefix = protocol._event_prefix("d1ce0001", seq, game, ms, canon, prev)
    return protocol._finish(prefix)


def make_files(work):
    """Write the hostile files into work; return {name: path}."""
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    f = {
        "missing": work / "missing.db",
        "dir": work,
        "devnull": Path("/dev/null"),
        "devzero": Path("/dev/zero"),
        "devfull": Path("/dev/full"),
    }
    f["empty"] = work / "empty.jsonl"
    f["empty"].write_bytes(b"")
    f["text"] = work / "notes.txt"
    f["text"].write_text("hello\n" * 50)
    f["binary"] = work / "blob.bin"
    f["binary"].write_bytes(bytes(range(256)) * 64)
    f["deep"] = work / "deep.jsonl"
    f["deep"].write_text("[" * 100000 + "]" * 100000 + "\n" + "{" + '"a":' * 50000 + "\n")
    f["deepobj"] = work / "deep2.jsonl"
    f["deepobj"].write_text('{"v":1,"x":' + "[" * 100000 + "]" * 100000 + "}\n")
    fifo = work / "fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    f["fifo"] = fifo
    _storage, lines = loggen.standard()
    f["jsonl"] = work / "good.jsonl"
    f["jsonl"].write_bytes(b"".join(lines))
    f["csvbig"] = work / "big.csv"
    f["csvbig"].write_text(
        'v,dev,seq,game,ms,kind,data,prev,crc\n1,d1ce0001,1,1,0,new_game,"' + "x" * 140000 + '"\n'
    )
    f["csvodd"] = work / "odd.csv"
    f["csvodd"].write_text(
        "v,dev,seq,game,ms,kind,data,prev,crc\n"
        "1,d1ce0001," + "9" * 5000 + ",1,0,new_game,[],00000000,00000000\n"
        '1,d1ce0001,1,1,0,roll,"' + "[" * 5000 + '",00000000,00000000\n'
        "1,d1ce0001,1\n\x00\x00\n"
    )
    hostile = [
        _signed(2**63, 1, 0, ("new_game", ("free",))),
        _signed(1, 2**63, 0, ("new_game", ("free",))),
        _signed(1, 1, 2**64, ("new_game", ("free",))),
        _signed(2, 1, 0, ("roll", (10**300,))),
        _signed(3, 1, 0, ("no_such_kind", (1,))),
        _signed(4, 1, 0, ("roll", (-(2**70),))),
    ]
    f["hostile"] = work / "hostile.jsonl"
    f["hostile"].write_bytes(b"".join(hostile))
    f["db"] = work / "good.db"
    if not f["db"].exists():
        with Store(f["db"]) as store:
            for line in lines:
                store.add_event(protocol_pc.parse(line))
    for name, sql in (
        ("db_data5", "UPDATE events SET data='5' WHERE seq=3"),
        ("db_null", "UPDATE events SET data='[null]' WHERE seq=3"),
        ("db_seqx", "UPDATE events SET seq='x' WHERE seq=3"),
        ("db_kind", "UPDATE events SET kind=7 WHERE seq=1"),
        ("db_huge", "UPDATE events SET data='[" + "9" * 400 + "]' WHERE seq=5"),
        ("db_deep", "UPDATE events SET data='" + "[" * 3000 + "]" * 3000 + "' WHERE seq=5"),
        ("db_game", "UPDATE games SET mode=NULL"),
        ("db_players", "INSERT INTO players VALUES ('d1ce0001', 7, 'x', 'y', 5)"),
        ("db_schema", "UPDATE meta SET value='99' WHERE key='schema'"),
        ("db_blob", "UPDATE events SET dev=x'00ff' WHERE seq=2"),
    ):
        path = work / (name + ".db")
        if not path.exists():
            data = f["db"].read_bytes()
            path.write_bytes(data)
            con = sqlite3.connect(path)
            try:
                con.execute(sql)
                con.commit()
            except sqlite3.DatabaseError:
                pass
            con.close()
        f[name] = path
    f["foreign"] = work / "foreign.db"
    if not f["foreign"].exists():
        con = sqlite3.connect(f["foreign"])
        con.execute("CREATE TABLE x (a)")
        con.commit()
        con.close()
    f["corrupt"] = work / "corrupt.db"
    f["corrupt"].write_bytes(b"SQLite format 3\x00" + os.urandom(3000))
    f["script_big"] = work / "big.txt"
    f["script_big"].write_text("UP 999999999\n")
    f["script_wait"] = work / "wait.txt"
    f["script_wait"].write_text("WAIT 99999999999\n")
    f["script_ok"] = work / "ok.txt"
    f["script_ok"].write_text("DOWN\nOK\nOK 3\n")
    f["out_new"] = work / "out_new.txt"
    f["out_deep"] = work / "no" / "such" / "folder" / "x.txt"
    f["text2"] = work / "scratch.txt"
    f["text2"].write_text("scratch\n")
    assert journal  # the journal module builds the good logs (through loggen)
    return f


def _verbs(parser):
    """Yield (path of verb words, parser) for every verb and sub-verb."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                nested = list(_verbs(sub))
                if nested:
                    for words, p in nested:
                        yield [name] + words, p
                else:
                    yield [name], sub


def _option_values(action, files, rng):
    if action.choices:
        return [str(c) for c in action.choices] + ["nope", ""]
    dest = action.dest.lower()
    paths = [str(p) for n, p in files.items() if not n.startswith("out_")]
    if any(w in dest for w in ("output", "png", "flash", "link")):
        outputs = ["devfull", "devnull", "dir", "fifo", "missing", "out_new", "out_deep", "text2"]
        return [str(files[n]) for n in outputs] + WORDS[:3]
    if any(w in dest for w in ("db", "log", "script", "path")):
        return paths + WORDS[:3]
    if dest in ("port",):
        return NUMBERS + paths + ["auto", "loop://", "socket://127.0.0.1:1", "rfc2217://x:1",
                                  "/tmp/none*"]  # fmt: skip
    return NUMBERS + WORDS


def cases(files, seed=1, mixed=150):
    """Return the argument lists to run."""
    rng = random.Random(seed)
    parser = cli.build_parser()
    out = []
    for words, sub in _verbs(parser):
        positionals = [a for a in sub._actions if not a.option_strings]
        options = [
            a for a in sub._actions if a.option_strings and not isinstance(a, argparse._HelpAction)
        ]
        base = []
        for a in positionals:
            if a.nargs in ("*", "?"):
                continue
            if a.dest in ("dice",):
                base.append("1")
            else:
                base.append(str(files["db"]))
        required = []
        for a in options:
            if a.required:
                required += [a.option_strings[0], "1"]
        for a in positionals:
            values = (
                [str(p) for n, p in files.items() if not n.startswith("out_") and n != "text2"]
                if a.dest not in ("dice",)
                else NUMBERS
            )
            for value in values:
                args = list(base)
                index = positionals.index(a)
                if index < len(args):
                    args[index] = value
                else:
                    args.append(value)
                out.append(words + args + required)
        for a in options:
            flag = a.option_strings[-1]
            if a.nargs == 0:
                out.append(words + base + required + [flag])
                continue
            values = _option_values(a, files, rng)
            if words[0] in UNTIL_STOPPED or words[0] in SLOW:
                values = [v for v in values if v in MUST] + rng.sample(values, min(6, len(values)))
            for value in values:
                rest = [x for i, x in enumerate(required) if not (
                    x == flag or (i and required[i - 1] == flag))]  # fmt: skip
                out.append(words + base + rest + [flag, value])
        for _ in range(mixed // 10):
            args = list(base) + list(required)
            for a in rng.sample(options, min(len(options), 3)):
                if a.nargs == 0:
                    args.append(a.option_strings[-1])
                else:
                    args += [a.option_strings[-1], rng.choice(_option_values(a, files, rng))]
            out.append(words + args)
    for name in ("deep", "deepobj", "binary", "text", "empty"):
        out.append(["combos", "--batch", "<" + str(files[name])])
    unique = {}
    for case in out + listed(files):
        unique.setdefault(tuple(case), case)  # a verb with few options repeats its mixes
    return list(unique.values())


def listed(files):
    """The cases the issue names, each run for certain (not left to the sampling)."""
    f = {k: str(v) for k, v in files.items()}
    out = []
    for verb in ("verify", "stats", "games", "export", "players", "dash"):
        for name in ("db_data5", "db_null", "db_seqx", "db_kind", "db_huge", "db_deep", "csvbig",
                     "deep", "deepobj", "devzero", "fifo", "hostile", "csvodd"):  # fmt: skip
            out.append([verb, f[name]])
    out += [
        ["export", f["db"], "-o", "/dev/full"],
        ["export", f["db"], "--format", "csv", "-o", "/dev/full"],
        ["export", f["db"], "--table", "games", "-o", f["fifo"]],
        ["emulate", "--linger", "nan"],
        ["emulate", "--linger", "inf"],
        ["emulate", "--script", f["script_big"], "--linger", "0"],
        ["emulate", "--script", f["script_wait"], "--linger", "0"],
        ["emulate", "--script", f["script_ok"], "--linger", "0"],
        ["emulate", "--script", f["devzero"], "--linger", "0"],
        ["emulate", "--script", f["fifo"], "--linger", "0"],
        ["sim", "--port", "99999"],
        ["sim", "--port", "-1"],
        ["dash", f["db"], "--port", "99999"],
        ["log", "--idle-exit", "nan"],
        ["log", "--idle-exit", "inf", "--port", f["devzero"]],
        ["log", "--port", f["fifo"], "--idle-exit", "1"],
        ["log", "--port", f["hostile"], "--idle-exit", "1"],
    ]
    # import: every odd file into a new database, a good log into every odd database.
    for name in ("db_data5", "db_null", "db_seqx", "db_kind", "db_huge", "db_deep", "csvbig",
                 "deep", "deepobj", "devzero", "fifo", "hostile", "csvodd", "corrupt", "foreign",
                 "binary", "empty", "jsonl", "db"):  # fmt: skip
        out.append(["import", f[name], "--db", f["out_new"] + ".db"])
    for name in ("db_data5", "db_schema", "db_players", "corrupt", "foreign", "dir", "devnull",
                 "devfull", "fifo", "text", "out_deep", "jsonl"):  # fmt: skip
        out.append(["import", f["jsonl"], "--db", f[name]])
    out.append(["import", f["jsonl"], f["hostile"], f["jsonl"], "--db", f["out_new"] + "2.db"])
    # players: the options before, between and after the names; odd journals, games, names.
    dev = "d1ce0001"
    out += [
        ["players", f["db"], "--game", "1", dev, "Ada", "Bo"],
        ["players", f["db"], dev, "--game", "1", "Ada", "--journal", "", "Bo"],
        ["players", f["db"], "--journal", "x" * 5000, dev, "Ada"],
        ["players", f["db"], "--journal", "\x00", "--game", "1", dev, "Ada"],
        ["players", f["db"], "--game", str(2**40), dev, "Ada"],
        ["players", f["db"], "--game", "1", dev],
        ["players", f["db"], "--game", "1"],
        ["players", f["db"], dev, '=HYPERLINK("x")', "@SUM(A1)", "-1", "+1"],
        ["players", f["db"], dev, *["p%d" % i for i in range(20)]],
        ["players", f["db"], dev, "x" * 100000],
        ["players", f["db"], dev, "Ada", "--", "--game"],
        ["players", f["db_players"], dev, "Ada"],
        ["players", f["db_players"]],
        ["players", f["db_game"], dev, "Ada"],
        ["players", f["db_schema"], dev, "--game", "1", "Ada"],
    ]
    return out


def _run(argv):
    """Run one case; return (outcome, detail): ok, stopped (by the Ctrl-C), traceback, bound."""
    stdin = None
    if argv and argv[-1].startswith("<"):
        stdin = open(argv[-1][1:], "rb")  # noqa: SIM115
        argv = argv[:-1]
    verb = argv[0]
    timers = []
    stopped = []

    def ctrl_c():
        stopped.append(1)
        os.kill(os.getpid(), signal.SIGINT)

    def past_bound(_signum, _frame):
        raise PastBound()

    if verb in UNTIL_STOPPED:
        timers.append(threading.Timer(STOP_AFTER, ctrl_c))
    bound = BOUNDS.get(verb, BOUND)
    old = signal.signal(signal.SIGALRM, past_bound)
    signal.setitimer(signal.ITIMER_REAL, bound)
    for t in timers:
        t.start()
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(stdin, encoding="utf-8", errors="strict")
    start = time.monotonic()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(argv)
            except SystemExit as exc:  # --help
                code = exc.code
        outcome = "stopped" if stopped else "ok"
        detail = f"exit {code}"
    except PastBound:
        outcome, detail = "bound", f"still running after {bound:.0f} s"
    except KeyboardInterrupt:
        outcome, detail = "stopped", "interrupted"
    except BaseException:
        outcome, detail = "traceback", traceback.format_exc()[-1500:]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        for t in timers:
            t.cancel()
        sys.stdin = old_stdin
        if stdin is not None:
            stdin.close()
    if outcome == "stopped" and verb not in UNTIL_STOPPED:
        outcome, detail = "bound", "needed a Ctrl-C"
    if "Traceback" in err.getvalue():
        outcome, detail = "traceback", err.getvalue()[-1500:]
    return outcome, detail, time.monotonic() - start


def main(argv):
    work = Path(argv[1])
    seed = int(argv[2]) if len(argv) > 2 else 1
    files = make_files(work)
    todo = cases(files, seed)
    only = os.environ.get("FUZZ_ONLY")
    if only:
        todo = [c for c in todo if c[0] == only]
    tally = {}
    failures = []
    slowest = []
    for args in todo:
        outcome, detail, seconds = _run(args)
        tally[outcome] = tally.get(outcome, 0) + 1
        slowest.append((round(seconds, 2), " ".join(a[:60] for a in args)))
        if outcome in ("traceback", "bound"):
            failures.append({"args": [a[:200] for a in args], "outcome": outcome, "detail": detail})
    slowest.sort(reverse=True)
    print(json.dumps({"cases": len(todo), "tally": tally, "failures": failures,
                      "slowest": slowest[:8]}))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
