"""Run the project's benchmarks and print their numbers: every tools/bench_*.py in turn
(or only those whose name contains one of the words given: `./dev bench odds log`)."""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


class _Tee:
    """stdout that also keeps what is written."""

    def __init__(self, out):
        self.out = out
        self.kept = []

    def write(self, text):
        self.kept.append(text)
        return self.out.write(text)

    def flush(self):
        self.out.flush()


def recorded(section, main, *args):
    """Run a benchmark's main(*args), printing as it goes, and write what it printed to
    docs/MEASUREMENTS.md's section (tools/measurements.py); return main's exit code."""
    import contextlib

    from measurements import record

    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        code = main(*args)
    lines = "".join(tee.kept).rstrip("\n").split("\n")
    if not code:
        record(section, ["```"] + lines + ["```"], note="`.venv/bin/python tools/%s.py`" % section)
    return code


def main(words):
    """Run the selected benchmark scripts; return non-zero if any failed."""
    failed = 0
    for script in sorted(HERE.glob("bench_*.py")):
        if words and not any(w in script.stem for w in words):
            continue
        print("== %s" % script.stem, flush=True)
        failed += subprocess.call([sys.executable, str(script)]) != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
