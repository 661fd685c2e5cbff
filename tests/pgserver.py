"""A throw-away PostgreSQL server for the tests: `initdb` into a temporary folder, listening on
a free port of 127.0.0.1 (and a Unix socket in that folder), stopped and removed at the end.

Debian's postgresql package keeps initdb and pg_ctl in /usr/lib/postgresql/<version>/bin (the
newest is used). The server refuses to run as root, so under root it runs as "nobody" from a
folder that user owns. Without the package, `skip_reason()` says in one line why the tests skip.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

USER = "dicepod"


def _tool(name: str) -> str | None:
    found = sorted(
        glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
        key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0,
    )
    return found[-1] if found else shutil.which(name)


def skip_reason() -> str | None:
    """Why the PostgreSQL tests cannot run here (None when they can)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (./dev setup installs it): PostgreSQL tests skip"
    if not (_tool("initdb") and _tool("pg_ctl")):
        return "PostgreSQL is not installed (apt-get install postgresql): PostgreSQL tests skip"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PgServer:
    """One server in its own folder: start(), url(dbname), createdb(), restart(), stop()."""

    def __init__(self, fsync: bool = False) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="dicepod-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = _free_port()
        self.fsync = fsync
        self._run_as: dict[str, object] = {}
        if os.geteuid() == 0:
            import pwd

            nobody = pwd.getpwnam("nobody")
            os.chown(self.root, nobody.pw_uid, nobody.pw_gid)
            self._run_as = {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}
        self._databases = 0

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(args), capture_output=True, text=True, check=check, cwd=self.root,
            timeout=120, **self._run_as,  # type: ignore[arg-type]
        )  # fmt: skip

    def start(self) -> PgServer:
        if not self.data.exists():
            self._run(
                _tool("initdb") or "initdb", "-D", str(self.data), "-U", USER, "-A", "trust",
                "-E", "UTF8", "--locale=C.UTF-8", "--no-sync",
            )  # fmt: skip
        options = f"-h 127.0.0.1 -p {self.port} -k {self.root}"
        if not self.fsync:
            options += " -F"
        done = self._run(
            _tool("pg_ctl") or "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o",
            options, "-w", "-t", "60", "start", check=False,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {done.stderr}{self.log.read_text()[-2000:]}")
        return self

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{dbname}"

    def createdb(self) -> str:
        """A new empty database on the server; return its URL."""
        import psycopg

        self._databases += 1
        name = f"league{self._databases}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self, mode: str = "fast") -> None:
        self._run(_tool("pg_ctl") or "pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop",
                  check=False)  # fmt: skip

    def restart(self, down: float = 0.0) -> None:
        """Stop the server (dropping every connection), stay down `down` seconds, start it."""
        self.stop()
        time.sleep(down)
        self.start()

    def close(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)
