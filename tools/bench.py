"""Run the project's benchmarks and print their numbers: every tools/bench_*.py in turn
(or only those whose name contains one of the words given: `./dev bench odds log`)."""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


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
