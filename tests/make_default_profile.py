"""Regenerate the built-in piece-set profile (calibration/data/default_profile.json) of the renderer's default
edition, the way a user makes one: ``tableside teach`` on two rendered photos of the teach layout.

    .venv/bin/python tests/make_default_profile.py [--out calibration/data/default_profile.json]
    .venv/bin/python tests/make_default_profile.py --check
    .venv/bin/python tests/make_default_profile.py --teach-picture docs/teach-layout.jpg

The photos come from tests/vision/detect_scenes.py (teach_photos: T, V, P, D in the first; S in V's place and
the tiles back side up in the second), rendered with the realistic camera under the default light. Run it after
a change to the features (calibration.profile.FEATURES), the teach step or the renderer's default edition, and
measure what the rebuilt profile changes (bench_conditions, the coin grids, the tests) before committing it.

``--check`` rebuilds into a temporary file and lists where it differs from the committed profile (exit status 1
where that is not exactly the known drift, KNOWN_DRIFT); tests/vision/test_default_profile.py runs the same check,
so a change to teach or to the renderer that would teach the profile differently fails there instead of drifting
unseen.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE / "vision"), str(HERE.parent)]

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from detect_scenes import teach_photos  # noqa: E402

from calibration.profile import DEFAULT_PROFILE_PATH, _unpack  # noqa: E402
from tableside.cli import main  # noqa: E402

#: Keys that differ between two builds of the same profile: when it was made.
_WHEN = ("created",)
#: A rebuilt profile is the committed one when every number of its JSON is within NUMBER_TOLERANCE and every array
#: element within ARRAY_TOLERANCE (int8 template units, uint8 grey levels). Rebuilt on the same machine it is bit for
#: bit the same (every random stream of teach is seeded); the tolerance leaves room for another machine's last-digit
#: differences (a JSON figure rounded to 3-4 decimals, an int8 rounding flip) and no more: the drift found in session
#: 22 moved template elements by up to 70 units and label margins by 0.003-0.084.
NUMBER_TOLERANCE = 1.5e-3
ARRAY_TOLERANCE = 1

#: Where the committed profile differs from what this script builds, known and kept (session 22). The committed
#: templates were taught before two later changes, and were never rebuilt: teach's tile turns settled by refitting
#: (cf40b67: the default suns 5, arms 2 and 3 had been surveyed 1.5-2.2 degrees off; tile faces, marks, rank crops and
#: the back) and the renderer's exact-size suit symbols (8789c9a: coin suit sides, the nulls' marks); the keys
#: taught['coin_face_chroma'] and taught['tile_colours'] were added by hand since, and are what teach writes today.
#: Rebuilt, the profile reads 4 fewer coins in the coin grids at 820x616 (bench_conditions --coin-grids 6: 69 -> 65
#: right, suns suit sides and two 3s missed) and 1 fewer at held-out 820x616 1922 (--seed-offset 1000), 0 wrong
#: either way, so it is kept until that loss is understood. Rebuild it then and empty this set: the test
#: (tests/vision/test_default_profile.py) wants exactly these places, so a drift anywhere else fails it, and so does
#: a rebuilt profile with this set left full.
KNOWN_DRIFT = frozenset({
    "/coin/rim_taps[1][1]",
    "/models/coin_suits/label_margins[0]", "/models/coin_suits/label_margins[2]", "/models/coin_suits/min_margin",
    "/models/coin_suits/typical_score",
    "/models/tile_back/typical_score",
    "/models/tile_faces/label_margins[0]", "/models/tile_faces/label_margins[1]",
    "/models/tile_faces/label_margins[18]",
    "/models/tile_marks/label_margins[4]", "/models/tile_marks/label_margins[6]",
    "/models/tile_marks/label_margins[13]", "/models/tile_marks/label_margins[14]",
    "/models/tile_marks/label_margins[18]", "/models/tile_marks/label_margins[22]",
    "/taught/coin_label_sharpness/suit:crowns:-", "/taught/coin_label_sharpness/suit:suns:-",
    "array coin_suits", "array coin_suits_scale",
    "array rank_1", "array rank_2", "array rank_3", "array rank_4", "array rank_5",
    "array tile_back", "array tile_back_scale",
    "array tile_faces", "array tile_faces_scale",
    "array tile_marks", "array tile_marks_scale",
})


def make(out: Path) -> int:
    photos = teach_photos("default", seed=1)
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, photo in enumerate(photos, start=1):
            path = Path(tmp) / f"teach-{i}.png"
            cv2.imwrite(str(path), photo.image)
            paths.append(str(path))
        return main(["teach", *paths, "--out", str(out), "--name", "default"])


def differences(built: dict[str, Any], committed: dict[str, Any]) -> dict[str, str]:
    """Where profile JSON ``built`` differs from ``committed`` beyond the tolerances above (a JSON path such as
    ``/models/tile_faces/min_margin``, or ``array NAME``) -> how; empty when they are the same profile. Keys only one
    has, numbers, strings, array shapes and elements are compared; ``created`` is not."""
    found: dict[str, str] = {}

    def walk(a: Any, b: Any, where: str) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b)):
                if where == "" and key in (*_WHEN, "arrays"):
                    continue
                if key not in b:
                    found[f"{where}/{key}"] = "only in the rebuilt profile"
                elif key not in a:
                    found[f"{where}/{key}"] = "only in the committed profile"
                else:
                    walk(a[key], b[key], f"{where}/{key}")
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                found[where] = f"{len(a)} items, committed {len(b)}"
                return
            for i, (u, v) in enumerate(zip(a, b, strict=True)):
                walk(u, v, f"{where}[{i}]")
        elif isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, int | float) \
                or not isinstance(b, int | float):
            if a != b:
                found[where] = f"{json.dumps(a)[:80]}, committed {json.dumps(b)[:80]}"
        elif abs(a - b) > NUMBER_TOLERANCE:
            found[where] = f"{a}, committed {b} ({a - b:+.4g})"

    walk(built, committed, "")
    arrays, theirs = _unpack(built["arrays"]), _unpack(committed["arrays"])
    for key in sorted(set(arrays) | set(theirs)):
        where = f"array {key}"
        if key not in theirs or key not in arrays:
            found[where] = f"only in the {'rebuilt' if key in arrays else 'committed'} profile"
            continue
        a, b = arrays[key], theirs[key]
        if a.shape != b.shape or a.dtype != b.dtype:
            found[where] = f"{a.dtype}{a.shape}, committed {b.dtype}{b.shape}"
            continue
        if key.endswith("_scale"):  # float32 per-template scales: relative, as a JSON number
            off = np.abs(a.astype(np.float64) - b) / np.maximum(np.abs(b.astype(np.float64)), 1e-12)
            if off.max() > NUMBER_TOLERANCE:
                found[where] = f"scales off by up to {100 * off.max():.2g} %"
            continue
        off = np.abs(a.astype(np.int64) - b.astype(np.int64))
        if off.max() > ARRAY_TOLERANCE:
            found[where] = (f"{np.count_nonzero(off > ARRAY_TOLERANCE)} of {off.size} elements off by more than "
                            f"{ARRAY_TOLERANCE} (up to {off.max()})")
    return found


def check(committed: Path = DEFAULT_PROFILE_PATH) -> dict[str, str]:
    """Rebuild the profile into a temporary file; where and how it differs from ``committed`` (:func:`differences`)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "default_profile.json"
        if make(out) != 0:
            return {"teach": "tableside teach refused the teach photos"}
        return differences(json.loads(out.read_text()), json.loads(committed.read_text()))


def teach_picture(out: Path) -> None:
    """docs/teach-layout.jpg: the two teach photos seen from above, the blocks named."""
    import numpy as np
    from detect_scenes import TEACH_ORIGIN

    from calibration.rectify import rectify
    from calibration.table_calibration import calibrate_from_sheet

    x0, y0 = TEACH_ORIGIN
    scale = 2.2
    bounds = (x0 - 15, y0 - 15, x0 + 400, y0 + 400)
    panels = []
    for k, photo in enumerate(teach_photos("default", seed=1)):
        top = rectify(photo.image, calibrate_from_sheet(photo.image), bounds, scale).image

        def put(text, x_mm, y_mm, size=0.8, colour=(20, 20, 200), top=top):
            at = (int((x_mm - bounds[0]) * scale), int((y_mm - bounds[1]) * scale))
            cv2.putText(top, text, at, cv2.FONT_HERSHEY_SIMPLEX, size, (255, 255, 255), 6, cv2.LINE_AA)
            cv2.putText(top, text, at, cv2.FONT_HERSHEY_SIMPLEX, size, colour, 2, cv2.LINE_AA)

        if k == 0:
            put("T: tiles face up", x0 + 5, y0 - 3)
            put("V: coins value side up", x0 + 5, y0 + 238)
            put("P: pawns", x0 + 2, y0 + 395)
            put("D: dice", x0 + 130, y0 + 395)
        else:
            put("tiles back up (optional)", x0 + 5, y0 - 3)
            put("S: coins suit side up", x0 + 5, y0 + 238)
            put("P, D may stay", x0 + 2, y0 + 395)
        for r, suit in enumerate(("suns", "moons", "crowns", "arms")):
            put(suit, x0 + 345, y0 + 30 + r * 56.8, 0.6, (40, 40, 40))
        for c, rank in enumerate(("null", "ace", "2", "3", "4", "5")):
            put(rank, x0 + 12 + c * 56.8, y0 + 232, 0.55, (40, 40, 40))
        bar = np.full((70, top.shape[1], 3), 255, np.uint8)
        title = ("photo 1: T, V, P, D", "photo 2: S in V's place")[k]
        cv2.putText(bar, title, (20, 48), cv2.FONT_HERSHEY_SIMPLEX, 1.3, (0, 0, 0), 3, cv2.LINE_AA)
        panels.append(np.vstack([bar, top]))
    gap = np.full((panels[0].shape[0], 30, 3), 255, np.uint8)
    sheet = np.hstack([panels[0], gap, panels[1]])
    foot = np.full((60, sheet.shape[1], 3), 255, np.uint8)
    cv2.putText(foot, "rows: suns, moons, crowns, arms (top to bottom); columns: null, ace, 2, 3, 4, 5 (left to "
                "right); pawns then dice in suit order", (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 0.75, (0, 0, 0), 2,
                cv2.LINE_AA)
    cv2.imwrite(str(out), np.vstack([sheet, foot]), [cv2.IMWRITE_JPEG_QUALITY, 88])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(DEFAULT_PROFILE_PATH), help="where to write the profile")
    parser.add_argument("--teach-picture", metavar="JPG", help="write the teach layout's picture instead")
    parser.add_argument("--check", action="store_true",
                        help="rebuild into a temporary file and list how it differs from the committed profile")
    args = parser.parse_args()
    if args.check:
        found = check()
        for where, how in found.items():
            print(f"{where}: {how}{'  (known: KNOWN_DRIFT)' if where in KNOWN_DRIFT else ''}")
        gone = sorted(KNOWN_DRIFT - set(found))
        if gone:
            print("known drift gone (remove from KNOWN_DRIFT): " + ", ".join(gone))
        known = set(found) == KNOWN_DRIFT
        print(f"rebuilt: {'differs only where KNOWN_DRIFT says from' if known else 'differs from'} "
              f"{DEFAULT_PROFILE_PATH}" if found else f"rebuilt: the same as {DEFAULT_PROFILE_PATH}")
        sys.exit(0 if known else 1)
    if args.teach_picture:
        teach_picture(Path(args.teach_picture))
        sys.exit(0)
    sys.exit(make(Path(args.out)))
