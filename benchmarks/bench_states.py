"""Done-check verdicts and Martian Shuffleboard scores from rendered photos, against the truth.

    .venv/bin/python benchmarks/bench_states.py [--boards 40] [--editions default,classic] [--shuffleboard 12]
                                               [--states 3] [--games roll-out-the-barrels,whack-a-dummy]
                                               [--json out.json]

Easy Slider: ``--boards`` frames per edition, cycling through the Done-check cases of tests/test_reading.py
(``solved``, ``swap`` two tiles, ``hole`` in rows 1-4, ``null-up`` a null tile above the bottom row, ``hand``
a solved board under a hand), each with a random deal of pawns and coins, random room light and table, on an A3
sheet, 1640x1232 from 80 cm (tests/vision/detect_scenes.GAME_CAMERA). Every edition is taught first from its two
rendered teach photos (the profile is cached). Each frame goes the way ``tableside check`` takes it: calibrated
from the sheet in the frame, ``detect_pieces(kinds=tile, coin, pawn)``, :func:`tableside.reading.check_easy_slider`.
Boards are seeded ``--first-board`` + i (1000... were looked at while building the Done check; 3000... are held
out). Counted: verdicts (correct / fumble / unsure), **wrong verdicts** (a verdict that is neither the truth nor
"unsure"; a hand over a solved board may be judged correct, never a fumble), and cells declared wrong that are
not (must both be 0).

Martian Shuffleboard: ``--shuffleboard`` random scatters (tests/tablescene ``shuffleboard_scatter``), calibrated
from the sheet, ``detect_pieces(kinds=pyramid)``, :func:`tableside.reading.score_shuffleboard`; compared with
``rules.martian_shuffleboard.score_positions`` on the true positions: frames whose scores equal the truth's,
frames that differ only by points flagged "too close to call" or hinging on an unreadable pyramid, and the rest.

States (``--states`` positions per game/room and edition, seeds ``--first-seed`` + 7k: 100, 107, 114, 121 were
looked at while building the reading; 128 and 135 are held out): every game and Epic Funhouse room whose state a
photo shows (tests/state_scenes.py: positions built through the rules engine's ``from_layout``, 1640x1232 from
70-90 cm, tilted 8-14 degrees, random room light), read the way ``tableside state`` reads them (sheet calibration,
the game's kinds detected, :func:`tableside.reading.read_state`): **exact** (the rules engine's text and state
equal the truth's), abstained (a one-line reason) or **wrong** (must be 0).

Renders are cached (``$TABLESIDE_RENDER_CACHE``, default /tmp/vision-cache); times are detection and reading
only, per frame.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "vision")]

from test_reading import DONE_CASES, done_check_frame, taught_profile  # noqa: E402

from calibration.errors import CalibrationError  # noqa: E402
from calibration.profile import load_profile  # noqa: E402
from calibration.table_calibration import calibrate_from_sheet  # noqa: E402
from tableside.frame_input import _detect  # noqa: E402
from tableside.reading import check_easy_slider, score_shuffleboard  # noqa: E402
from vision.detect import detect_pieces  # noqa: E402
from vision.errors import VisionError  # noqa: E402


def bench_done_checks(boards: int, editions: list[str], first_board: int = 1000) -> dict:
    rows = {}
    for edition in editions:
        t0 = time.perf_counter()
        try:
            profile = load_profile(taught_profile(edition))
        except CalibrationError as err:  # teaching refused the edition's teach photos: nothing to judge with
            rows[edition] = {"not_taught": str(err)}
            continue
        teach_s = time.perf_counter() - t0
        counts = {"correct": 0, "fumble": 0, "unsure": 0, "error": 0}
        by_case = {case: {"correct": 0, "fumble": 0, "unsure": 0, "error": 0} for case in DONE_CASES}
        wrong_verdicts, wrong_cells, times, errors = [], 0, [], []
        for i in range(boards):
            case = DONE_CASES[i % len(DONE_CASES)]
            seed = first_board + i
            frame, state, expected = done_check_frame(case, seed, edition)
            t = time.perf_counter()
            try:
                calibration = calibrate_from_sheet(frame.image)
                detection = detect_pieces(frame.image, calibration, profile, kinds=("tile", "coin", "pawn"))
                verdicts = check_easy_slider(detection)
                verdict = verdicts[0]
                got = verdict.verdict if len(verdicts) == 1 else "error"
            except (VisionError, CalibrationError) as err:  # NotReadable is a VisionError
                got, verdict = "error", None
                errors.append(f"{case} {seed}: {err}")
            times.append(time.perf_counter() - t)
            counts[got] += 1
            by_case[case][got] += 1
            truth = "correct" if state.done_check().correct else "fumble"
            if got in ("correct", "fumble") and got != truth:
                wrong_verdicts.append((case, seed, got, truth, verdict.reason))
            if verdict is not None:
                truly = {w.cell.name for w in state.done_check().wrong_cells}
                wrong_cells += sum(1 for c in verdict.wrong_cells if c.name not in truly)
        rows[edition] = {"boards": boards, "counts": counts, "by_case": by_case, "wrong_verdicts": wrong_verdicts,
                         "cells_wrongly_declared_wrong": wrong_cells, "errors": errors, "teach_s": round(teach_s, 1),
                         "s_per_frame": round(float(np.mean(times)), 2)}
    return rows


def bench_states(positions: int, editions: list[str], first_seed: int = 100, games: list[str] | None = None) -> dict:
    """States per game/room and edition (see the module docstring); ``games``: only these (names of
    ``state_scenes.STATE_GAMES``), all when None."""
    import state_scenes as ss

    from tableside.frame_input import GAME_KINDS
    from tableside.reading import read_state

    rows: dict = {}
    for edition in editions:
        try:
            profile = load_profile(taught_profile(edition))
        except CalibrationError as err:
            rows[edition] = {"not_taught": str(err)}
            continue
        for name in ss.STATE_GAMES:
            if name == "martian-shuffleboard":  # scored below (pyramids do not depend on the edition)
                continue
            if games is not None and name not in games:
                continue
            row = rows.setdefault(edition, {}).setdefault(name, {"exact": 0, "abstained": 0, "wrong": 0,
                                                                  "times": [], "reasons": [], "wrong_cases": []})
            for i in range(positions):
                seed = first_seed + 7 * i
                case = ss.state_case(name, edition, seed)
                options = _options(case.argv)
                game = "epic-funhouse" if name in ss.ROOMS else name
                t = time.perf_counter()
                try:
                    calibration = calibrate_from_sheet(case.frame.image)
                    detection = _detect(case.frame.image, calibration, profile, GAME_KINDS[name])
                    reading = read_state(detection, game, name if game == "epic-funhouse" else None, **options)
                    exact = reading.text == case.text and ss.state_json(reading.state) == case.state
                    row["exact" if exact else "wrong"] += 1
                    if not exact:
                        row["wrong_cases"].append(seed)
                except (VisionError, CalibrationError) as err:
                    row["abstained"] += 1
                    row["reasons"].append(f"{seed}: {err}")
                row["times"].append(time.perf_counter() - t)
    for by_name in rows.values():
        for row in by_name.values():
            if isinstance(row, dict) and "times" in row:
                row["s_per_frame"] = round(float(np.mean(row.pop("times"))), 2)
    return rows


def _options(argv: list[str]) -> dict:
    options = {}
    if "--grid" in argv:
        options["grid"] = argv[argv.index("--grid") + 1]
    if "--die-coin" in argv:
        options["die_coin"] = argv[argv.index("--die-coin") + 1]
    return options


def bench_shuffleboard(frames: int) -> dict:
    import detect_scenes as ds
    from tablescene import CameraSpec, Lighting, Scene, shuffleboard_scatter

    from rules.martian_shuffleboard import score_positions

    equal = close_only = other = 0
    times, details = [], []
    for i in range(frames):
        rng = np.random.default_rng([i, 31])
        pieces = shuffleboard_scatter(rng=rng, radius_mm=120.0, touching=int(rng.integers(1, 4)),
                                      centre_mm=(148.5, 210.0))
        scene = Scene(pieces=pieces, table=("wood", "felt", "laminate")[i % 3], sheet="a3",
                      lighting=Lighting.random(rng))
        camera = CameraSpec(distance_mm=float(rng.uniform(750, 900)), tilt_deg=float(rng.uniform(0, 15)),
                            target_mm=(148.5, 210.0))
        frame = ds.rendered(scene, camera, i)
        truth = score_positions([{"color": p.color, "size": p.size, "pose": p.pose, "x_mm": p.x_mm,
                                  "y_mm": p.y_mm, "angle_deg": p.angle_deg} for p in pieces])
        t = time.perf_counter()
        try:
            calibration = calibrate_from_sheet(frame.image)
            result = score_shuffleboard(_detect(frame.image, calibration, None, ("pyramid",)))
            scores = result.scores
        except (VisionError, CalibrationError) as err:
            result, scores = None, {"error": str(err)}
        times.append(time.perf_counter() - t)
        if scores == truth.points:
            equal += 1
            continue
        explained = False
        if result is not None:
            at_stake = {c["color"] for c in result.close_calls}
            unsure = bool(result.unsure)
            differing = {c for c in set(scores) | set(truth.points) if scores.get(c, 0) != truth.points.get(c, 0)}
            explained = unsure or differing <= at_stake
        if explained:
            close_only += 1
        else:
            other += 1
        details.append({"frame": i, "scores": scores, "truth": truth.points})
    return {"frames": frames, "equal": equal, "differ_explained": close_only, "differ_unexplained": other,
            "s_per_frame": round(float(np.mean(times)), 2) if times else None, "details": details}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=40, help="Easy Slider frames per edition")
    parser.add_argument("--first-board", type=int, default=1000,
                        help="seed of the first Done-check board (1000 for the boards looked at while building, "
                             "3000 for held-out ones)")
    parser.add_argument("--editions", default="default,classic,hand-made,bold")
    parser.add_argument("--shuffleboard", type=int, default=12, help="Martian Shuffleboard frames")
    parser.add_argument("--states", type=int, default=2, help="positions per game/room and edition")
    parser.add_argument("--first-seed", type=int, default=100,
                        help="seed of the first position (then every 7th): 100 for the positions looked at while "
                             "building, 128 for the held-out ones (128, 135, ...)")
    parser.add_argument("--games", help="only these games/rooms' states, comma-separated (e.g. "
                        "roll-out-the-barrels,whack-a-dummy: to look again at a few abstentions)")
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args()
    editions = [e for e in args.editions.split(",") if e]
    games = [g for g in args.games.split(",") if g] if args.games else None
    known = __import__("state_scenes").STATE_GAMES
    if games is not None and (unknown := [g for g in games if g not in known or g == "martian-shuffleboard"]):
        parser.error(f"--games: not a state game or room: {', '.join(unknown)} (one of "
                     f"{', '.join(n for n in known if n != 'martian-shuffleboard')}; --shuffleboard scores pyramids)")
    report = {"done_checks": bench_done_checks(args.boards, editions, args.first_board) if args.boards else {},
              "states": bench_states(args.states, editions, args.first_seed, games) if args.states else {},
              "shuffleboard": bench_shuffleboard(args.shuffleboard) if args.shuffleboard else None}
    if report["done_checks"]:
        print("## Easy Slider Done checks (1640x1232 renders, sheet calibration, taught profile)\n")
        print("| edition | boards | correct | fumble | unsure | error | wrong verdicts | cells wrongly wrong "
              "| s/frame |")
        print("|---|---|---|---|---|---|---|---|---|")
        for edition, row in report["done_checks"].items():
            if "not_taught" in row:
                print(f"| {edition} | not taught: {row['not_taught']} |")
                continue
            c = row["counts"]
            print(f"| {edition} | {row['boards']} | {c['correct']} | {c['fumble']} | {c['unsure']} | {c['error']} | "
                  f"{len(row['wrong_verdicts'])} | {row['cells_wrongly_declared_wrong']} | {row['s_per_frame']} |")
        print("\nper case (correct/fumble/unsure/error):")
        for edition, row in report["done_checks"].items():
            if "not_taught" in row:
                continue
            cases = ", ".join(f"{case} {v['correct']}/{v['fumble']}/{v['unsure']}/{v['error']}"
                              for case, v in row["by_case"].items())
            print(f"  {edition}: {cases}")
            for wrong in row["wrong_verdicts"]:
                print(f"  WRONG {edition}: {wrong}")
            for error in row["errors"][:5]:
                print(f"  error {edition}: {error[:160]}")
    if report["states"]:
        print("\n## States read from photos: exact / abstained / WRONG (s/frame)\n")
        names = [n for n in known if n != "martian-shuffleboard" and (games is None or n in games)]
        print("| edition | " + " | ".join(names) + " |")
        print("|---|" + "---|" * len(names))
        for edition, by_name in report["states"].items():
            if "not_taught" in by_name:
                print(f"| {edition} | not taught: {by_name['not_taught']} |")
                continue
            cells = [f"{r['exact']}/{r['abstained']}/{r['wrong']} ({r['s_per_frame']})" for r in by_name.values()]
            print(f"| {edition} | " + " | ".join(cells) + " |")
        for edition, by_name in report["states"].items():
            for name, r in by_name.items():
                if isinstance(r, dict) and r.get("wrong_cases"):
                    print(f"  WRONG {edition} {name}: seeds {r['wrong_cases']}")
                for reason in (r.get("reasons", []) if isinstance(r, dict) else []):  # every one: a few per row
                    print(f"  abstained {edition} {name}: {reason[:200]}")
    sb = report["shuffleboard"]
    if sb:
        print("\n## Martian Shuffleboard scores vs truth\n")
        print(f"frames {sb['frames']}: equal {sb['equal']}, differ only by close calls or unreadable pyramids "
              f"{sb['differ_explained']}, differ otherwise {sb['differ_unexplained']}; {sb['s_per_frame']} s/frame")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, default=str))


if __name__ == "__main__":
    main()
