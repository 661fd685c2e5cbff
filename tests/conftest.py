"""pytest configuration shared by every test: the firmware, host and portable test folders are
importable (see pyproject's pythonpath), and `portable` tests are also collected directly."""

import os
import sys
import tempfile
from pathlib import Path

_PORTABLE = Path(__file__).resolve().parent / "portable"
if str(_PORTABLE) not in sys.path:
    sys.path.insert(0, str(_PORTABLE))

# One scratch folder per pytest run for the portable tests' on-disk journals (inherited by the
# CPython and MicroPython children the comparison starts).
if not os.environ.get("DICEPOD_TEST_TMP"):
    os.environ["DICEPOD_TEST_TMP"] = tempfile.mkdtemp(prefix="dicepod-tests-")
