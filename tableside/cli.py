"""The ``tableside`` command line: one sub-command (verb) per module in :mod:`tableside.commands`.

Every verb that reports something has ``--json``. Bad input gives one line on stderr and exit status 2
(``replay`` exits 1 for an illegal move in a record); nothing is half written.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import tableside.commands as _commands
from calibration.errors import CalibrationError
from rules.base import RulesError
from tableside import __version__
from tableside.errors import UserError
from vision.errors import VisionError

# Errors that are the user's input, not a bug: reported in one line.
_INPUT_ERRORS = (UserError, RulesError, CalibrationError, VisionError, OSError)


@dataclass(frozen=True)
class _Verb:
    name: str
    help: str
    order: int
    module: str


def _constant(tree: ast.Module, name: str) -> object:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    return None


def _verbs() -> list[_Verb]:
    """The verbs, read from their modules' ``NAME``/``HELP``/``ORDER`` constants without importing them.

    Importing every verb (OpenCV, numba, scipy...) made ``tableside --help`` take seconds; only the verb that
    runs is imported (see :func:`build_parser`).
    """
    verbs = []
    for info in pkgutil.iter_modules(_commands.__path__):
        if info.name.startswith("_"):
            continue
        path = Path(_commands.__path__[0]) / f"{info.name}.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        name, help_text = _constant(tree, "NAME"), _constant(tree, "HELP")
        if isinstance(name, str) and isinstance(help_text, str):
            order = _constant(tree, "ORDER")
            verbs.append(_Verb(name, help_text, order if isinstance(order, int) else 100,
                               f"{_commands.__name__}.{info.name}"))
    return sorted(verbs, key=lambda v: (v.order, v.name))


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The parser; the options of ``verb`` (of every verb when None) are loaded from its module."""
    parser = argparse.ArgumentParser(
        prog="tableside",
        description="A camera table assistant for piecepack and Icehouse games: it sees the pieces, "
        "judges moves with the rules, keeps score and speaks.",
    )
    parser.add_argument("--version", action="version", version=f"tableside {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", title="verbs")
    for v in _verbs():
        if verb is not None and v.name != verb:
            sub.add_parser(v.name, help=v.help)
            continue
        mod = importlib.import_module(v.module)
        p = sub.add_parser(
            v.name,
            help=v.help,
            description=getattr(mod, "DESCRIPTION", v.help),
            # Verbs write their descriptions as paragraphs and examples: keep their line breaks.
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def _chosen_verb(argv: Sequence[str]) -> str:
    """The verb named on the command line (the first argument that is not an option), or "" for none."""
    return next((a for a in argv if not a.startswith("-")), "")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_chosen_verb(argv))
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
