"""Regenerate the built-in piece-set profile (calibration/data/default_profile.json) of the renderer's default
edition, the way a user makes one: ``tableside teach`` on two rendered photos of the teach layout.

    .venv/bin/python tests/make_default_profile.py [--out calibration/data/default_profile.json]
    .venv/bin/python tests/make_default_profile.py --teach-picture docs/teach-layout.jpg

The photos come from tests/vision/detect_scenes.py (teach_photos: T, V, P, D in the first; S in V's place and
the tiles back side up in the second), rendered with the realistic camera under the default light. Run it after
a change to the features (calibration.profile.FEATURES), the teach step or the renderer's default edition.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE / "vision"), str(HERE.parent)]

import cv2  # noqa: E402
from detect_scenes import teach_photos  # noqa: E402

from calibration.profile import DEFAULT_PROFILE_PATH  # noqa: E402
from tableside.cli import main  # noqa: E402


def make(out: Path) -> int:
    photos = teach_photos("default", seed=1)
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, photo in enumerate(photos, start=1):
            path = Path(tmp) / f"teach-{i}.png"
            cv2.imwrite(str(path), photo.image)
            paths.append(str(path))
        return main(["teach", *paths, "--out", str(out), "--name", "default"])


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
    args = parser.parse_args()
    if args.teach_picture:
        teach_picture(Path(args.teach_picture))
        sys.exit(0)
    sys.exit(make(Path(args.out)))
