"""The `dicepod` command: a dispatch table built from dicepod_host.commands, with one error
handler at the top (a UserError becomes `dicepod: message` on stderr and its exit code)."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from typing import NoReturn

from dicepod_host import commands
from dicepod_host.errors import UsageError, UserError
from dicepod_host.pgurl import hide_passwords


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def _verbs():
    """Yield (name, module) for every verb module, sorted by name."""
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            yield info.name, importlib.import_module("dicepod_host.commands." + info.name)


def _version():
    """Return 'dicepod X (firmware for MicroPython Y)'."""
    from importlib.metadata import PackageNotFoundError, version

    from dicepod import MICROPYTHON_VERSION

    try:
        own = version("dicepod")
    except PackageNotFoundError:
        own = "(not installed)"
    return f"dicepod {own} (firmware for MicroPython {MICROPYTHON_VERSION})"


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level parser with one sub-parser per verb."""
    parser = _Parser(
        prog="dicepod",
        description="dicepod: the PC side of the handheld dice roller and game tracker.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)
    for name, module in _verbs():
        verb = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(verb)
        verb.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `dicepod` command; returns (and exits with) the exit code."""
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        hide_passwords(args)  # a league server's password is never printed
        if not getattr(args, "_run", None):
            parser.print_help()
            return 2
        code = args._run(args)
    except UserError as err:
        print(f"dicepod: {err}", file=sys.stderr)
        code = err.code
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        code = 0
    except OSError as err:
        # The system said no (a name too long, a full disk, no permission): one line too.
        name = f" ({str(err.filename)[:200]})" if getattr(err, "filename", None) else ""
        print(f"dicepod: {err.strerror or err}{name}", file=sys.stderr)
        code = 1
    if argv is None:
        sys.exit(code or 0)
    return code or 0


if __name__ == "__main__":
    main()
