"""``tableside demo``: replay the recorded example games through the rules.

Until the camera loop is ready this is the demo: every ``.ppn`` record in ``fixtures/records`` is replayed move
by move and judged by the rules (legal moves, the first illegal one and why, the final position, the goal).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import rules.ppn as ppn
from rules.base import RecordError
from rules.ppn.games import replay
from tableside.commands.replay import print_replay
from tableside.errors import UserError
from tableside.output import print_json

NAME = "demo"
ORDER = 90
HELP = "replay the recorded example games through the rules"
DESCRIPTION = """\
Replay the example game records (fixtures/records/*.ppn) through the rules and print what the rules say.

  tableside demo                 every record: its moves, the first illegal move if any, the final position
  tableside demo --brief         one line per game
  tableside demo --json          a list of replay results (the shape of `tableside replay --json`, plus "record")
  tableside demo --records DIR   records from another folder
"""

#: The example records shipped with the source tree.
RECORDS_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "records"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--records", type=Path, default=RECORDS_DIR, metavar="DIR",
                   help="folder of .ppn records (default: the examples in fixtures/records)")
    p.add_argument("--brief", action="store_true", help="one line per game instead of every move")
    p.add_argument("--json", action="store_true", help="print the results as JSON")


def run(args: argparse.Namespace) -> int:
    folder: Path = args.records
    if not folder.is_dir():
        raise UserError(f"no records folder at {folder}")
    files = sorted(folder.glob("*.ppn"))
    if not files:
        raise UserError(f"no .ppn records in {folder}")
    results = []
    for path in files:
        try:
            games = ppn.read(path)
            outcomes = [replay(game) for game in games]
        except RecordError as err:
            raise UserError(f"{path.name}: {err}") from None
        for i, outcome in enumerate(outcomes, start=1):
            label = path.name if len(outcomes) == 1 else f"{path.name} (game {i})"
            results.append((label, outcome))
    if args.json:
        print_json([{"record": label, **outcome.to_json()} for label, outcome in results])
        return 0
    for n, (label, outcome) in enumerate(results):
        if args.brief:
            verdict = (f"illegal move {outcome.illegal.number}: {outcome.illegal.reason}" if outcome.illegal
                       else "goal reached" if outcome.goal_reached else "goal not reached")
            print(f"{label}: {len(outcome.moves)} legal moves; {verdict}")
            continue
        if n:
            print()
        print(f"== {label} ==")
        print_replay(outcome)
    return 0
