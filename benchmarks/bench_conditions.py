"""How tile and coin detection falls with worse pictures, per taught edition (issue #5: "per edition after
teaching it ... how the figures fall with tilt, blur, noise, JPEG and glare", and "hands/glare make pieces
uncertain, never wrong").

    .venv/bin/python benchmarks/bench_conditions.py [--editions classic,bold] [--frames N] [--verbose] [--json F]

The conditions are bench_detect's (tilt, blur, noise, JPEG, glare, other cameras) plus two with a hand over the
board: a still hand, and a hand moving (motion blur). ``--coin-grids N`` adds N coin grids (Roll Out the Barrels /
Whack-a-Dummy: all 24 coins, a third suit side up, no die; bench_detect's coin-grid seeds 1000...) seen by the
820x616 preview camera (1 px/mm), where a coin's print is a few pixels.

Each condition renders ``--frames`` full Easy Slider boards (bench_detect's seeds 700 + 20 k + i, so the default
edition's rows compare with bench_detect's conditions rows) in the edition, read with the profile taught from that
edition's two teach photos (the built-in profile for the default edition, as bench_detect's conditions do). Pieces
under a hand are not counted as visible; a covered piece read surely and wrong counts in *covered wrong*. *wrong*
and *covered wrong* are the figures that must stay 0.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "tests"), str(ROOT / "tests" / "vision"), str(ROOT)]

import numpy as np  # noqa: E402
from bench_detect import CONDITIONS, EDITIONS, _row, _scored  # noqa: E402
from detect_scenes import board_frame, easy_slider_frame, taught_profile  # noqa: E402
from tablescene import Hand  # noqa: E402

from calibration.profile import default_profile  # noqa: E402

#: skin tones (BGR) of the hands drawn over the board
_SKINS = ((125, 155, 205), (90, 120, 170), (60, 85, 130), (150, 180, 225))


def _hand(seed: int, moving: bool) -> Hand:
    """A hand reaching over the board from the bottom or a side: fingertips somewhere on the tiles."""
    rng = np.random.default_rng(seed)
    motion = tuple(float(v) for v in rng.uniform(-8, 8, 2)) if moving else (0.0, 0.0)
    return Hand(float(rng.uniform(40, 260)), float(rng.uniform(120, 320)), angle_deg=float(rng.uniform(-60, 60)),
                h_mm=float(rng.uniform(5, 40)), pose=str(rng.choice(["flat", "point", "pinch"])),
                skin=_SKINS[int(rng.integers(len(_SKINS)))], motion_px=motion)


def _conditions() -> dict[str, dict]:
    return dict(CONDITIONS) | {"hand over the board": {"hand": False}, "hand moving (motion blur)": {"hand": True}}


def _coin_grid(seed: int, edition: str):
    """bench_detect's coin grid of ``seed`` (the same coins and sides, no die) seen by the 820x616 camera."""
    from tablescene import coin_grid

    from rules.pieces import SUITS

    rng = np.random.default_rng([seed, 11])
    coins = [(SUITS[i // 6], i % 6) for i in rng.permutation(24)]
    pieces = coin_grid(coins, (110.0, 140.0), 4, rng=rng, edition=None)
    flip = rng.random(len(pieces)) < 0.3
    pieces = [p.moved(side="suit") if f else p for p, f in zip(pieces, flip, strict=True)]
    return board_frame(pieces, seed, edition=edition, camera=CONDITIONS["820x616 (1 px/mm)"]["camera"])


def coin_grids(edition: str, frames: int, verbose: bool, offset: int = 0) -> dict:
    profile = default_profile() if edition == "default" else taught_profile(edition)
    seeds = [1000 + offset + i for i in range(frames)]
    total, exact = _scored(((f"coin grid {s}", _coin_grid(s, edition)) for s in seeds), profile, verbose)
    row = _row(f"{edition} / coin grid at 820x616 (1 px/mm)", total, frames, exact)
    print(row, flush=True)
    return row


def conditions(edition: str, frames: int, verbose: bool, offset: int = 0, only: tuple[str, ...] = ()) -> list[dict]:
    """Rows per condition; ``offset`` shifts every condition's seeds (held-out frames: the rules were measured on
    the default seeds), ``only`` keeps the conditions whose name contains one of these words."""
    profile = default_profile() if edition == "default" else taught_profile(edition)
    rows = []
    for k, (name, options) in enumerate(_conditions().items()):
        if only and not any(word in name for word in only):
            continue
        options = dict(options)
        moving = options.pop("hand", None)

        def frame(seed: int, options=options, moving=moving):
            hands = () if moving is None else (_hand(seed, moving),)
            return easy_slider_frame(seed, edition=edition, hands=hands, **options)

        seeds = [700 + offset + 20 * k + i for i in range(frames)]
        total, exact = _scored(((f"{name} {s}", frame(s)) for s in seeds), profile, verbose)
        rows.append(_row(f"{edition} / {name}", total, frames, exact))
        print(rows[-1], flush=True)
    return rows


def _markdown(rows: list[dict]) -> str:
    lines = ["| edition / condition | pieces | right | wrong | uncertain | missed | extra | covered (wrong) "
             "| boards exact |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['pieces']} | {100 * r['accuracy']:.1f} % | {r['wrong']} | {r['uncertain']} "
                     f"| {r['missed']} | {r['extra']} | {r['covered']} ({r['covered_wrong']}) "
                     f"| {r['boards_exact']}/{r['boards']} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--editions", default=",".join(EDITIONS), help="comma-separated editions to measure")
    parser.add_argument("--frames", type=int, default=4, help="frames per condition")
    parser.add_argument("--coin-grids", type=int, default=0, help="coin grids at 1 px/mm per edition")
    parser.add_argument("--skip-easy-slider", action="store_true", help="only the coin grids")
    parser.add_argument("--verbose", action="store_true", help="print what went wrong on every board not exact")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    # held-out frames: an offset of 1000 or more keeps clear of every default seed (conditions 700-979, grids 1000+)
    parser.add_argument("--seed-offset", type=int, default=0,
                        help="shift every frame's seed by this (0: the default frames; 1000, 2000...: held out)")
    parser.add_argument("--only", default="", help="comma-separated words: only the conditions whose name has one")
    args = parser.parse_args()
    editions = tuple(e.strip() for e in args.editions.split(",") if e.strip())
    unknown = [e for e in editions if e not in EDITIONS]
    if unknown:
        parser.error(f"unknown edition {unknown[0]!r}: choose from {', '.join(EDITIONS)}")
    only = tuple(w.strip() for w in args.only.split(",") if w.strip())
    rows = [] if args.skip_easy_slider else [row for edition in editions for row in
                                             conditions(edition, args.frames, args.verbose, args.seed_offset, only)]
    rows += [coin_grids(edition, args.coin_grids, args.verbose, args.seed_offset)
             for edition in editions if args.coin_grids > 0]
    print(_markdown(rows))
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}",
                                               "conditions": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
