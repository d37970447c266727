"""The ``tableside`` command line: one sub-command (verb) per module in :mod:`tableside.commands`.

Every verb that reports something has ``--json``. Bad input gives one line on stderr and exit status 2
(``replay`` exits 1 for an illegal move in a record); nothing is half written.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

import tableside.commands as _commands
from calibration.errors import CalibrationError
from rules.base import RulesError
from tableside import __version__
from tableside.errors import UserError
from vision.errors import VisionError

# Errors that are the user's input, not a bug: reported in one line.
_INPUT_ERRORS = (UserError, RulesError, CalibrationError, VisionError, OSError)


def _verb_modules() -> list[ModuleType]:
    modules = []
    for info in sorted(pkgutil.iter_modules(_commands.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{_commands.__name__}.{info.name}")
        if hasattr(mod, "NAME") and hasattr(mod, "run"):
            modules.append(mod)
    return sorted(modules, key=lambda m: getattr(m, "ORDER", 100))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tableside",
        description="A camera table assistant for piecepack and Icehouse games: it sees the pieces, "
        "judges moves with the rules, keeps score and speaks.",
    )
    parser.add_argument("--version", action="version", version=f"tableside {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", title="verbs")
    for mod in _verb_modules():
        p = sub.add_parser(
            mod.NAME,
            help=mod.HELP,
            description=getattr(mod, "DESCRIPTION", mod.HELP),
            # Verbs write their descriptions as paragraphs and examples: keep their line breaks.
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "_run", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error. Point stdout at devnull so the
        # interpreter's final flush does not complain either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except _INPUT_ERRORS as err:
        code = err.code if isinstance(err, UserError) else 2
        message = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        if isinstance(err, OSError) and err.filename:
            message = f"{err.strerror or message}: {err.filename}"
        print(f"tableside {args.verb}: error: {message}", file=sys.stderr)
        return code
    except KeyboardInterrupt:
        print(f"tableside {args.verb}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
