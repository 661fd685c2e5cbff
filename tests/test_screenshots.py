"""tools/screenshots.py renders every screen to a PNG (the documented command works)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_screenshots_render_every_screen(tmp_path):
    out = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "screenshots.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    files = sorted(tmp_path.glob("*.png"))
    assert len(files) >= 50
    for name in (
        "battle_bust",
        "battle_all_out",
        "battle_again",
        "selftest_done",
        "crash",
        "settings_corrupt",
    ):
        data = (tmp_path / ("%s.png" % name)).read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 500
    listed = [line for line in out.stdout.splitlines() if line.startswith("- `")]
    assert len(listed) == len(files)
    readme = (ROOT / "README.md").read_text()
    for path in files:
        assert path.name in readme, path.name
