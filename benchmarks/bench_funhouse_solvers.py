"""Epic Funhouse rooms 4-6: time per position and positions searched for each room's solver.

    .venv/bin/python benchmarks/bench_funhouse_solvers.py [--positions N] [--seed S] [--json results.json]

1. Roll Out the Barrels: N mazes (a shuffled piecepack's 24 coins through the seed's swap procedure), solved
   before the die is placed (every start pose at once) and from a random mid-game position. Also how often
   the exit can be reached and what the swap procedure did.
2. Whack-a-Dummy: the same mazes, the tour searched from the start and from a position after 15 random moves
   (often with corners out of sequence); how often it gave up at the default bound (200,000 positions).
3. Trampo-Land: set-ups from a seeded die roll and coin cast with the four numbers from the Whack-a-Dummy
   position, solved exactly; then positions after 4 random moves. The numba compile (or cache load) is timed
   separately before the runs. The "hint" rows are the same search bounded as the suite's hint is (100,000
   positions): its time, and how far its score is from the exact one.

Every solution is replayed move by move through the rules and checked. Times are wall-clock on this machine
(several processes share two cores), so compare them with each other; CPU seconds are given as a total.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules.epic_funhouse import roll_out_the_barrels as barrels  # noqa: E402
from rules.epic_funhouse import suite, trampo_land, whack_a_dummy  # noqa: E402

ALL_VALUES = [v for v in range(6) for _ in range(4)]
#: The bound of the Trampo-Land hint in rules.epic_funhouse.suite.
HINT_STATES = suite._TRAMPO_HINT_STATES


def summary(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):.4g} / {max(values):.4g}"


def random_play(state, moves: int, rng: random.Random):
    for _ in range(moves):
        legal = state.legal_moves()
        if not legal:
            break
        state = state.apply(rng.choice(legal))
    return state


def replay(state, moves):
    for move in moves:
        state = state.apply(move)
    return state


def bench_barrels(mazes: list[tuple[int, ...]], rng: random.Random) -> dict:
    rows = {"start": [], "mid-game": []}
    reachable = 0
    for grid in mazes:
        start = barrels.State.new(grid)
        mid = random_play(start, rng.randrange(2, 10), rng)
        for label, state in (("start", start), ("mid-game", mid)):
            t = time.perf_counter()
            solution = barrels.solve(state)
            seconds = time.perf_counter() - t
            end = replay(state, solution.moves)
            assert end.score() == solution.score and end.won() == solution.reachable
            rows[label].append((seconds, solution.states_searched))
            if label == "start":
                reachable += solution.reachable
    return {"rows": rows, "reachable_from_start": reachable}


def bench_whack(mazes: list[tuple[int, ...]], rng: random.Random) -> tuple[dict, list[tuple[int, ...]]]:
    rows = {"start": [], "after 15 random moves": []}
    outcomes = {"start": [0, 0, 0], "after 15 random moves": [0, 0, 0]}  # completable, proved not, gave up
    sums = []
    for grid in mazes:
        start = whack_a_dummy.setup(grid)
        messy = random_play(start, 16, rng)  # the start move plus 15 moves
        sums.append(whack_a_dummy.column_sums(messy))
        for label, state in (("start", start), ("after 15 random moves", messy)):
            t = time.perf_counter()
            solution = whack_a_dummy.solve(state)
            seconds = time.perf_counter() - t
            if solution.completable:
                assert replay(state, solution.moves).is_over()
            rows[label].append((seconds, solution.states_searched))
            idx = 0 if solution.completable else (2 if solution.gave_up else 1)
            outcomes[label][idx] += 1
    return {"rows": rows, "outcomes": outcomes}, sums


def bench_trampo(sums: list[tuple[int, ...]], rng: random.Random) -> dict:
    t = time.perf_counter()
    trampo_land.solve(trampo_land.State.from_layout("y.k............"))
    warm = time.perf_counter() - t
    labels = ("set-up", "after 4 random moves")
    labels += tuple(f"{label}, hint" for label in labels)
    rows: dict[str, list[tuple[float, int]]] = {label: [] for label in labels}
    exact = dict.fromkeys(labels, 0)
    scores: dict[str, list[int]] = {label: [] for label in labels}
    for i, numbers in enumerate(sums):
        start = trampo_land.random_setup(numbers, seed=i)
        later = random_play(start, 4, rng)
        for label, state in (("set-up", start), ("after 4 random moves", later)):
            t = time.perf_counter()
            solution = trampo_land.solve(state)
            seconds = time.perf_counter() - t
            assert replay(state, solution.moves).score() == solution.score
            rows[label].append((seconds, solution.states_searched))
            exact[label] += solution.exact
            scores[label].append(solution.score)
            # the suite's hint: the same search bounded to HINT_STATES positions
            t = time.perf_counter()
            hint = trampo_land.solve(state, max_states=HINT_STATES)
            seconds = time.perf_counter() - t
            assert replay(state, hint.moves).score() == hint.score >= solution.score
            rows[f"{label}, hint"].append((seconds, hint.states_searched))
            exact[f"{label}, hint"] += hint.score == solution.score
            scores[f"{label}, hint"].append(hint.score - solution.score)
    return {"rows": rows, "exact": exact, "scores": scores, "warm_up_seconds": warm}


def table(title: str, rows: dict[str, list[tuple[float, int]]], extra: dict[str, str]) -> None:
    print(f"\n### {title}\n")
    print("| positions | n | seconds per position (median / max) | positions searched (median / max) | notes |")
    print("|---|---|---|---|---|")
    for label, data in rows.items():
        secs = [s for s, _ in data]
        states = [float(n) for _, n in data]
        print(f"| {label} | {len(data)} | {summary(secs)} | {summary(states)} | {extra.get(label, '')} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=40, help="mazes / set-ups per room (default 40)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--json", type=Path, help="write the raw figures here")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    cpu0 = time.process_time()
    mazes, passes, swaps = [], [], []
    for _ in range(args.positions):
        values = ALL_VALUES[:]
        rng.shuffle(values)
        built = barrels.settle_maze(values)
        assert built.clean
        mazes.append(built.grid)
        passes.append(built.passes)
        swaps.append(len(built.swaps))

    print(f"machine: {platform.machine()}, Python {platform.python_version()}, {args.positions} positions per room, "
          f"seed {args.seed}")
    print(f"swap procedure: every maze clean; scans median {statistics.median(passes)}, max {max(passes)}; "
          f"swaps median {statistics.median(swaps)}, max {max(swaps)}")

    b = bench_barrels(mazes, rng)
    table("Roll Out the Barrels (breadth-first over cell x die pose)", b["rows"],
          {"start": f"exit reachable in {b['reachable_from_start']}/{len(mazes)} mazes (all 24 start poses)"})

    w, sums = bench_whack(mazes, rng)
    notes = {k: f"completed {v[0]}, proved impossible {v[1]}, gave up {v[2]}" for k, v in w["outcomes"].items()}
    table("Whack-a-Dummy (best-first by penalties, bound 200,000 positions)", w["rows"], notes)

    t = bench_trampo(sums, rng)
    notes = {k: f"exact {t['exact'][k]}/{len(sums)}; best score 0 in {t['scores'][k].count(0)}, max "
                f"{max(t['scores'][k])}" for k in t["rows"] if not k.endswith("hint")}
    notes |= {k: f"bound {HINT_STATES:,}: the best score in {t['exact'][k]}/{len(sums)}, worst "
                 f"{max(t['scores'][k])} above it" for k in t["rows"] if k.endswith("hint")}
    table(f"Trampo-Land (numba reachability; compile or cache load {t['warm_up_seconds']:.2f} s first)",
          t["rows"], notes)
    print(f"\nCPU seconds, whole run: {time.process_time() - cpu0:.1f}")

    if args.json:
        args.json.write_text(json.dumps({"barrels": b, "whack": w, "trampo": t, "seed": args.seed}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
