"""The Battle Game's bust table in the firmware (dicepod.rules.busts: ROWS, COUNTS) is what
tools/gen_busts.py writes: the module is its output, to the byte. (That every state's count is
right is tests/portable/test_odds.py's: it counts rolls one by one.)"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import gen_busts  # noqa: E402

from dicepod.rules import busts  # noqa: E402


def test_the_table_is_the_tools_output():
    assert (busts.ROWS, busts.COUNTS) == gen_busts.tables()
    assert len(busts.COUNTS) == 2 * busts.PER_LOOSE * 2 and len(busts.ROWS) == 243 * 2
    assert gen_busts.TARGET.read_text() == gen_busts.source()
    assert gen_busts.main(["--check"]) == 0
