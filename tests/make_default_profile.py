"""Regenerate the built-in piece-set profile (calibration/data/default_profile.json) of the renderer's default
edition, the way a user makes one: ``tableside teach`` on two rendered photos of the teach layout.

    .venv/bin/python tests/make_default_profile.py [--out calibration/data/default_profile.json]

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


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(DEFAULT_PROFILE_PATH), help="where to write the profile")
    sys.exit(make(Path(parser.parse_args().out)))
