"""Sliding-puzzle solver: solution length against the published optimum, and time per board.

    .venv/bin/python benchmarks/bench_solver.py [--instances N] [--easy N] [--beam-width W] [--json results.json]

1. The 50 random 24-puzzle instances of Korf & Felner (2002) with their proven optimal lengths
   (benchmarks/data/korf_felner_24puzzle.txt): found length, ratio to the optimum, seconds per board.
2. Random Easy Slider boards dealt by the Caller (``Setup.from_seed(seed)``, seeds 0..N-1): seconds per board
   and par (the solver's solution length; the true optimum of these boards is not known).

Every solution is replayed move by move and checked to reach the goal. The pattern databases are loaded (or
built and cached) before timing starts, and that one-off cost is printed separately. Times are wall-clock on
this machine (several processes share two cores here), so compare them with each other, not across machines;
CPU seconds are given too.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules import easy_slider, sliding  # noqa: E402

DATA = ROOT / "benchmarks" / "data" / "korf_felner_24puzzle.txt"


def load_instances(limit: int) -> list[tuple[int, int, list[int]]]:
    rows = []
    for line in DATA.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            number, optimum, *cells = (int(x) for x in line.split())
            rows.append((number, optimum, cells))
    return rows[:limit]


def warm_up(beam_width: int) -> float:
    """Compile the numba functions and load/build the pattern databases both parts use."""
    start = time.perf_counter()
    goal = list(range(25))
    near = [1, 0] + goal[2:]
    sliding.solve(near, goal, 5, beam_width=beam_width)
    s = easy_slider.Setup.from_seed(0).state()
    labels_state = s.apply(s.legal_moves()[0])
    easy_slider._solve.cache_clear()
    labels_state.solution()
    easy_slider._solve.cache_clear()
    return time.perf_counter() - start


def bench_korf(limit: int, beam_width: int) -> list[dict]:
    goal = list(range(25))
    rows = []
    print("| # | optimal | found | ratio | seconds |")
    print("|---|---|---|---|---|")
    for number, optimum, cells in load_instances(limit):
        t0, c0 = time.perf_counter(), time.process_time()
        moves = sliding.solve(cells, goal, 5, beam_width=beam_width)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        assert sliding.apply_moves(cells, moves, 5) == goal, f"instance {number}: the solution does not solve it"
        ratio = len(moves) / optimum
        rows.append({"number": number, "optimal": optimum, "found": len(moves), "ratio": ratio, "seconds": wall,
                     "cpu_seconds": cpu})
        print(f"| {number} | {optimum} | {len(moves)} | {ratio:.3f} | {wall:.2f} |", flush=True)
    return rows


def bench_easy(count: int) -> list[dict]:
    rows = []
    for seed in range(count):
        state = easy_slider.Setup.from_seed(seed).state()
        easy_slider._solve.cache_clear()
        t0, c0 = time.perf_counter(), time.process_time()
        moves = state.solution()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        end = state
        for m in moves:
            end = end.apply(m)
        assert end.is_over(), f"seed {seed}: the solution does not solve the board"
        rows.append({"seed": seed, "par": len(moves), "seconds": wall, "cpu_seconds": cpu})
    return rows


def summary(values: list[float]) -> str:
    return (f"mean {statistics.mean(values):.3f}, median {statistics.median(values):.3f}, "
            f"min {min(values):.3f}, max {max(values):.3f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--instances", type=int, default=50, help="how many Korf-Felner instances (default 50)")
    parser.add_argument("--easy", type=int, default=100, help="how many random Easy Slider boards (default 100)")
    parser.add_argument("--beam-width", type=int, default=sliding.BEAM_WIDTH, help="boards kept per depth")
    parser.add_argument("--json", type=Path, help="also write the raw figures to this file")
    args = parser.parse_args(argv)

    print(f"# Sliding-puzzle solver ({platform.python_implementation()} {platform.python_version()}, "
          f"{platform.machine()}, beam width {args.beam_width})\n")
    print(f"Warm-up (numba compile + pattern databases from {sliding.cache_dir()}): {warm_up(args.beam_width):.1f} s\n")

    results: dict = {"beam_width": args.beam_width}
    if args.instances:
        print(f"## 24-puzzle: {args.instances} Korf-Felner instances\n")
        korf = bench_korf(args.instances, args.beam_width)
        results["korf"] = korf
        print()
        print(f"ratio to optimal: {summary([r['ratio'] for r in korf])}")
        print(f"seconds per board: {summary([r['seconds'] for r in korf])}")
        print(f"CPU seconds per board: {summary([r['cpu_seconds'] for r in korf])}")
        optimal = sum(1 for r in korf if r["found"] == r["optimal"])
        print(f"optimal solutions found: {optimal} of {len(korf)}\n")
    if args.easy:
        print(f"## Easy Slider: {args.easy} boards dealt by the Caller (seeds 0..{args.easy - 1})\n")
        easy = bench_easy(args.easy)
        results["easy_slider"] = easy
        print(f"par (moves): {summary([float(r['par']) for r in easy])}")
        print(f"seconds per board: {summary([r['seconds'] for r in easy])}")
        print(f"CPU seconds per board: {summary([r['cpu_seconds'] for r in easy])}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
