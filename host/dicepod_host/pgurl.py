"""PostgreSQL URLs on the command line: which --db values name a server, and the same URL
without its password (for every message), so a password is never printed.

Pure (no I/O but PGPASSWORD, which hide_passwords sets for libpq)."""

from __future__ import annotations

import os
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit


def is_url(path: object) -> bool:
    """True when a --db value names a PostgreSQL server rather than a SQLite file."""
    return isinstance(path, str) and path.startswith(("postgresql://", "postgres://"))


def redact(url: str) -> str:
    """The URL without its password (in the authority or in the query)."""
    if not is_url(url):
        return url
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, host = netloc.rsplit("@", 1)
            netloc = userinfo.split(":", 1)[0] + "@" + host
        query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if k != "password"])
        return urlunsplit(parts._replace(netloc=netloc, query=query))
    except ValueError:
        return "postgresql://(unreadable URL)"


def secrets(url: str) -> list[str]:
    try:
        parts = urlsplit(url)
        found = [parts.password or ""] + [v for k, v in parse_qsl(parts.query) if k == "password"]
    except ValueError:
        found = [url]
    return [s for s in found if s]


def hide_passwords(args: object) -> None:
    """Take the password out of every postgresql:// URL among a command's arguments into
    PGPASSWORD (where libpq finds it), so nothing the command prints can show it. URLs with
    different passwords stay as they are (every message still names them redacted)."""
    found: dict[str, list[tuple[str, int | None]]] = {}
    for name, value in vars(args).items():
        for index, item in enumerate(value) if isinstance(value, list) else [(None, value)]:
            if is_url(item) and secrets(item):
                found.setdefault(secrets(item)[0], []).append((name, index))
    if len(found) != 1:
        return
    ((password, places),) = found.items()
    os.environ["PGPASSWORD"] = password
    for name, index in places:
        if index is None:
            setattr(args, name, redact(getattr(args, name)))
        else:
            getattr(args, name)[index] = redact(getattr(args, name)[index])
