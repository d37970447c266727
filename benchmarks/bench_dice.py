"""Dice and pawns standing on coins: top faces and kinds read right, uncertain or wrong, per taught edition.

    .venv/bin/python benchmarks/bench_dice.py [--editions default,classic,hand-made,bold] [--seeds 600-611]

Each frame is a 6 x 8 grid of coins (70 % value side up) on the A3 calibration sheet, with 10 dice and 2 pawns
standing on coins two cells apart (as in Roll Out the Barrels, Whack-a-Dummy and Trampo-Land, where a die or a pawn
stands on a coin), on a random table under random room light, seen by the states' game camera (1640x1232, tilted).
Every edition is taught from its own rendered teach photos. ``detect_pieces(kinds=("coin", "pawn", "die"))`` runs on
the frame calibrated from its sheet; each reported die or pawn is matched to the nearest figure of the truth.

Reported per edition: dice and pawns in the truth; reported *right* (kind, suit and a die's top face right, within
3 mm); *uncertain* (a report within 3 mm of a die or a pawn of the truth, as either kind; or a phantom reported
uncertain); **sure wrong** (must be 0: a wrong face or suit,
a die reported as a pawn or the other way round, or a sure piece where no figure stands). Seeds 600-611 were held
out when the die-face rules were chosen (2026-11-22, on seeds 500-511).
"""

from __future__ import annotations

import argparse
import collections
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "vision")]

import state_scenes  # noqa: E402
from detect_scenes import taught_profile  # noqa: E402
from tablescene import Lighting, Scene, coin_grid  # noqa: E402
from tablescene.scene import DiePiece, PawnPiece  # noqa: E402

from calibration.table_calibration import calibrate_from_sheet  # noqa: E402
from rules.pieces import SUITS  # noqa: E402
from vision.detect import detect_pieces  # noqa: E402

EDITIONS = ("default", "classic", "hand-made", "bold")
PITCH_MM = 25.4  # the coin grid's pitch: one inch, as the rooms' coin grids


def dice_frame(edition: str, seed: int, pawns: int = 2):
    """A 6 x 8 coin grid with figures on 12 cells two apart (never side by side, as in the games)."""
    rng = np.random.default_rng([seed, 808])
    cols, rows = 6, 8
    grid = [(SUITS[int(rng.integers(4))], int(rng.integers(6))) for _ in range(cols * rows)]
    origin = (state_scenes.SHEET_CENTRE[0] - 2.5 * PITCH_MM, state_scenes.SHEET_CENTRE[1] - 3.5 * PITCH_MM)
    coins = coin_grid(grid, origin, cols, rng=rng)
    coins = [c if rng.random() < 0.7 else c.moved(side="suit") for c in coins]
    shift = rng.integers(2, size=2)
    cells = [r * cols + c for r in range(shift[0], rows, 2) for c in range(shift[1], cols, 2)]
    rng.shuffle(cells)
    figures = []
    for i, cell in enumerate(cells):
        coin = coins[cell]
        dx, dy = rng.normal(0, 0.6, 2)
        if i >= pawns:
            figures.append(DiePiece(SUITS[int(rng.integers(4))], int(rng.integers(6)), coin.x_mm + dx,
                                    coin.y_mm + dy, float(rng.uniform(-45, 45))))
        else:
            figures.append(PawnPiece(SUITS[int(rng.integers(4))], coin.x_mm + dx, coin.y_mm + dy,
                                     float(rng.uniform(-40, 40))))
    scene = Scene(pieces=coins + figures, table=state_scenes.TABLES[seed % 4], sheet="a3", edition=edition,
                  lighting=Lighting.random(rng))
    return state_scenes._scenes().rendered(scene, state_scenes.game_camera(seed), seed)


def judge(edition: str, seeds: list[int], verbose: bool = False) -> collections.Counter:
    profile = taught_profile(edition)
    tally: collections.Counter = collections.Counter()
    for seed in seeds:
        frame = dice_frame(edition, seed)
        found = detect_pieces(frame.image, calibrate_from_sheet(frame.image), profile, kinds=("coin", "pawn", "die"))
        truth = [t for t in frame.truth if t["kind"] in ("pawn", "die")]
        tally["dice"] += sum(t["kind"] == "die" for t in truth)
        tally["pawns"] += sum(t["kind"] == "pawn" for t in truth)
        for piece in found.pieces + found.uncertain:
            kind = piece.kind.value
            if kind not in ("die", "pawn"):
                continue
            near = min(truth, key=lambda t: math.hypot(t["x_mm"] - piece.x_mm, t["y_mm"] - piece.y_mm))
            at_figure = math.hypot(near["x_mm"] - piece.x_mm, near["y_mm"] - piece.y_mm) < 3.0
            if piece.uncertain:
                tally[f"{near['kind']} uncertain" if at_figure else "phantom uncertain"] += 1
                continue
            right = (at_figure and near["kind"] == kind and piece.suit is not None
                     and piece.suit.value == near["suit"] and (kind != "die" or piece.rank == near["top"]))
            tally[f"{kind} right" if right else "sure wrong"] += 1
            if not right and verbose:
                print(f"  {edition} {seed}: sure {kind} {piece.suit} {piece.rank} at ({piece.x_mm:.0f}, "
                      f"{piece.y_mm:.0f}); nearest truth {near['kind']} {near['suit']} {near.get('top')} "
                      f"{math.hypot(near['x_mm'] - piece.x_mm, near['y_mm'] - piece.y_mm):.1f} mm away")
    return tally


def _seeds(text: str) -> list[int]:
    if "-" in text:
        first, last = (int(v) for v in text.split("-"))
        return list(range(first, last + 1))
    return [int(v) for v in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--editions", default=",".join(EDITIONS))
    parser.add_argument("--seeds", default="600-611", help="first-last or a,b,c")
    parser.add_argument("--verbose", action="store_true", help="print every sure-and-wrong piece")
    args = parser.parse_args(argv)
    editions = [e for e in args.editions.split(",") if e]
    unknown = [e for e in editions if e not in EDITIONS]
    if unknown:
        parser.error(f"unknown edition(s): {', '.join(unknown)} (known: {', '.join(EDITIONS)})")
    seeds = _seeds(args.seeds)
    print(f"seeds {args.seeds}: {len(seeds)} frames per edition, 10 dice and 2 pawns standing on coins each\n")
    print("| edition | dice | die right | die uncertain | pawns | pawn right | pawn uncertain | phantoms uncertain "
          "| **sure wrong** |")
    print("|---|---|---|---|---|---|---|---|---|")
    for edition in editions:
        t = judge(edition, seeds, args.verbose)
        print(f"| {edition} | {t['dice']} | {t['die right']} | {t['die uncertain']} | {t['pawns']} | "
              f"{t['pawn right']} | {t['pawn uncertain']} | {t['phantom uncertain']} | {t['sure wrong']} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
