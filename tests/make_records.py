"""Write the example game records in fixtures/records/ with the rules engines (reproducible: fixed seeds).

    .venv/bin/python tests/make_records.py [OUT_DIR]

Every record is checked by replaying it before it is written. ``tests/test_replay_cli.py`` regenerates them into
a temporary folder and compares, so the fixtures stay in step with the engines and the PPN writer.
"""

from __future__ import annotations

import heapq
import random
import sys
from collections.abc import Callable
from pathlib import Path

import rules.ppn as ppn
from rules import martian_shuffleboard as ms
from rules import plans_of_action as poa
from rules import slides_of_action as soa
from rules.ppn.easy_slider import example_round
from rules.ppn.games import record, replay

OUT_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "records"


def slides_of_action_win() -> ppn.Game:
    """Two players play random legal slides (seed chosen for a game of a few dozen moves) until a suit connects."""
    for seed in range(1000):
        rng = random.Random(seed)
        state = start = soa.State.initial(2)
        moves = []
        while not state.is_over() and len(moves) < 80:
            move = rng.choice(state.legal_moves())
            moves.append(move)
            state = state.apply(move)
        if state.is_over() and 20 <= len(moves) <= 40 and state.winner() in state.players:
            return record("slides-of-action", start, moves,
                          {"Event": f"tableside example: random legal slides (seed {seed})", "Result": state.result()})
    raise RuntimeError("no seed gave a short won game")  # pragma: no cover


def _components(cells: list[tuple[int, int]]) -> int:
    remaining, groups = set(cells), 0
    while remaining:
        groups += 1
        stack = [remaining.pop()]
        while stack:
            x, y = stack.pop()
            for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if n in remaining:
                    remaining.discard(n)
                    stack.append(n)
    return groups


def plans_of_action_solution(coins: str = poa.EXAMPLE_COINS, limit: int = 20000) -> ppn.Game:
    """A best-first search (fewest groups of the best suit, then fewest moves) to the goal: one suit connected."""

    def h(state: poa.State) -> int:
        coin_map = state.coin_map()
        return min(_components([c for c, s in coin_map.items() if s is suit]) for suit in set(coin_map.values()))

    start = poa.State.from_ppn_coins(coins)
    frontier: list[tuple[int, int, int, poa.State, tuple]] = [(h(start), 0, 0, start, ())]
    seen = {start}
    counter = 0
    while frontier and counter < limit:
        _, depth, _, state, path = heapq.heappop(frontier)
        if state.is_solved():
            return record("plans-of-action", start, list(path),
                          {"Event": "tableside example: a best-first search to one suit connected",
                           "Result": state.result()})
        for move, nxt in state.successors():
            if nxt not in seen:
                seen.add(nxt)
                counter += 1
                heapq.heappush(frontier, (h(nxt) * 4 + depth + 1, depth + 1, counter, nxt, path + (move,)))
    raise RuntimeError("no solution found")  # pragma: no cover


#: A two-player game at a 900 x 600 mm table (centre 450, 300): pushes, a tipped piece, pieces off the table.
MARTIAN_SHUFFLEBOARD_GAME = [
    "red-medium>(450.0,300.0,0.0)",
    "blue-small>(478.5,318.2,12.0)",
    "red-small>(430.0,270.5,30.0)",
    "blue-large>(520.0,290.0,5.0) red-medium>(462.0,301.5,8.0)",
    "red-large>flat",
    "blue-medium>off red-small>off",
    "red-large>(500.2,330.0,40.0) blue-small>flat",
    "blue-small>(540.0,310.0,20.0)",
    "red-small>(470.0,335.0,15.0)",
]


def martian_shuffleboard_game() -> ppn.Game:
    start = ms.State.new(["red", "blue"])
    moves = [ms.Move.parse(t) for t in MARTIAN_SHUFFLEBOARD_GAME]
    final = start
    for move in moves:
        final = final.apply(move)
    return record("martian-shuffleboard", start, moves,
                  {"Event": "tableside example: a scripted game with crashes", "Result": final.result()})


def illegal_slide_back() -> ppn.Game:
    """Slides of Action: three legal slides, then a slide back (forbidden: it undoes the slide before it)."""
    rng = random.Random(7)
    state = start = soa.State.initial(2)
    moves = []
    for _ in range(3):
        move = rng.choice(state.legal_moves())
        moves.append(move)
        state = state.apply(move)
    game = record("slides-of-action", start, moves,
                  {"Event": "tableside example: the fourth move slides the coins back (illegal)"})
    back = moves[-1].reverse()
    game.moves.append(ppn.MoveEntry("4.", [ppn.Step([ppn.parse_submove(t) for t in str(back).split()],
                                                    ["no slide backs!"])]))
    return game


def easy_slider_round() -> ppn.Game:
    """The Caller's deal from seed 1, solved to Done by the engine's solver (a few seconds on first use)."""
    return example_round(1)


RECORDS: dict[str, Callable[[], ppn.Game]] = {
    "easy_slider_round.ppn": easy_slider_round,
    "slides_of_action_win.ppn": slides_of_action_win,
    "plans_of_action_goal.ppn": plans_of_action_solution,
    "martian_shuffleboard_game.ppn": martian_shuffleboard_game,
    "illegal_slide_back.ppn": illegal_slide_back,
}


def main(out_dir: Path = OUT_DIR, skip: tuple[str, ...] = ()) -> list[Path]:
    """Write every record (but those named in ``skip``) to ``out_dir``; the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, make in RECORDS.items():
        if name in skip:
            continue
        game = make()
        text = ppn.dumps(game)
        result = replay(ppn.parse(text, name)[0])  # check before writing
        expect_illegal = name.startswith("illegal")
        if (result.illegal is not None) != expect_illegal or (not expect_illegal and not result.goal_reached):
            raise RuntimeError(f"{name}: the record does not replay as intended: {result.illegal}")
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for p in main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT_DIR):
        print(p)
