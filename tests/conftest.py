"""pytest configuration shared by every test: the firmware, host and portable test folders are
importable (see pyproject's pythonpath), and `portable` tests are also collected directly."""

import sys
from pathlib import Path

_PORTABLE = Path(__file__).resolve().parent / "portable"
if str(_PORTABLE) not in sys.path:
    sys.path.insert(0, str(_PORTABLE))
