"""``tableside replay``: replay a PPN game record through the rules."""

from __future__ import annotations

import argparse

import rules.ppn as ppn
from rules.ppn import GAME_TYPES
from rules.ppn.games import Replay, replay
from tableside.errors import UserError
from tableside.output import print_json

NAME = "replay"
ORDER = 60
HELP = "replay a PPN game record through the rules"
DESCRIPTION = """\
Replay a Portable Piecepack Notation (.ppn) record move by move through the game's rules.

  tableside replay game.ppn            the first illegal move and why (exit 1), or the final position and
                                       whether the goal is reached (exit 0)
  tableside replay game.ppn --json     {"game", "moves", "illegal": null or {"move", "reason", ...},
                                        "goal_reached", "final_position"}
  tableside replay file.ppn --game 2   the second game of a file holding several

Games: Easy Slider, Slides of Action, Plans of Action, Martian Shuffleboard (named by the record's GameType).
Epic Funhouse records are not replayed: play it with 'tableside funhouse' (games are saved as JSON).
A record that cannot be read, an unknown game or a missing file: one line on stderr, exit 2.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("record", metavar="RECORD.ppn", help="the game record")
    p.add_argument("--game", type=int, default=1, metavar="N", help="which game of the file (default 1)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def describe(move: object) -> str:
    """A move in words when the game has a description, else its text form."""
    text = str(move)
    words = getattr(move, "describe", None)
    return f"{text}  ({words()})" if callable(words) else text


def print_replay(result: Replay, moves: bool = True, indent: str = "") -> None:
    """The human-readable report of a replay (also used by ``tableside demo``)."""
    title = GAME_TYPES.get(result.game, result.game)
    played = len(result.moves)
    print(f"{indent}{title}: {played} legal move{'s' if played != 1 else ''}")
    if moves:
        for i, move in enumerate(result.moves, start=1):
            print(f"{indent}  {i:>3}. {describe(move)}")
    if result.illegal is not None:
        bad = result.illegal
        where = f" (line {bad.line}, column {bad.column})" if bad.line else ""
        print(f"{indent}illegal move {bad.number}{where}: {bad.move}")
        print(f"{indent}  reason: {bad.reason}")
    print(f"{indent}final position:")
    text = str(result.state)
    # one-line diagrams ("ACSA/SACS/C.SA/ACSC") are rows separated by "/": print them as rows
    for line in text.splitlines() if "\n" in text else text.split("/"):
        print(f"{indent}  {line}")
    summary = getattr(result.state, "result", None)
    extra = f" ({summary()})" if callable(summary) else ""
    print(f"{indent}goal reached: {'yes' if result.goal_reached else 'no'}{extra}")


def run(args: argparse.Namespace) -> int:
    games = ppn.read(args.record)
    if not games:
        raise UserError(f"{args.record}: the record holds no game")
    if not 1 <= args.game <= len(games):
        raise UserError(f"{args.record}: there is no game {args.game} (the file holds {len(games)})")
    result = replay(games[args.game - 1])
    if args.json:
        print_json(result.to_json())
    else:
        print_replay(result)
        if len(games) > 1:
            print(f"(game {args.game} of {len(games)} in {args.record}; choose another with --game N)")
    return 1 if result.illegal is not None else 0
