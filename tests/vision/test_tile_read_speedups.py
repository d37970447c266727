"""The tile reader's speed steps (vision/classify.py TileReader) against the plain computations they replaced, on
real crops: the wide tile crops Easy Slider board 505 (default set) searches around (its tile batches read with a
margin), recorded from a detect."""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
from detect_scenes import easy_slider_frame

from calibration.profile import default_profile
from calibration.table_calibration import calibrate_from_sheet
from vision import Detector
from vision.classify import TileReader


@lru_cache(maxsize=1)
def _searched_batches() -> list:
    """(wide crops, margin, args, kwargs) of every tile batch board 505's detect reads with a margin."""
    frame = easy_slider_frame(505)
    batches = []
    real_batch = TileReader.read_batch

    def recording(self, big, margin, *args, **kwargs):  # a spy: records each wide batch, reads it unchanged
        if margin > 0:
            batches.append((big.copy(), margin, args, kwargs))
        return real_batch(self, big, margin, *args, **kwargs)

    TileReader.read_batch = recording
    try:
        Detector(calibrate_from_sheet(frame.image), default_profile()).detect(frame.image, kinds=("tile",))
    finally:
        TileReader.read_batch = real_batch
    return batches


class _OpenCVMatch(TileReader):
    """The reader as it was: each template matched by cv2.matchTemplate."""

    @staticmethod
    def _match(features: np.ndarray, template: np.ndarray, margin: int) -> tuple[tuple[int, int], float]:
        result = cv2.matchTemplate(features, template, cv2.TM_CCORR_NORMED)
        _, fit, _, (bx, by) = cv2.minMaxLoc(result)
        return (bx - margin, by - margin), float(fit)


def test_the_template_match_is_opencvs_normalised_correlation_on_real_crops():
    """Every searched crop's features against the shared layout and every label's template at each quarter turn:
    within one float32 rounding of OpenCV's TM_CCORR_NORMED (and of the float64 sums, rounded once), and the best
    window the same."""
    reader = TileReader(default_profile())
    batches = _searched_batches()
    assert sum(len(big) for big, *_ in batches) >= 5
    n = reader.templates.shape[1] // 3
    side = int(round(np.sqrt(n)))
    compared = 0
    for big, margin, _, _ in batches:
        for crop in big:
            features = reader._big_features(crop, margin)
            windows = np.lib.stride_tricks.sliding_window_view(features, (side, side, 3))[:, :, 0]
            w64 = windows.reshape(windows.shape[0], windows.shape[1], -1).astype(np.float64)
            energy = np.einsum("ijk,ijk->ij", w64, w64)
            for turn in range(4):
                templates = [reader._turned_layout(0, turn)] + [
                    np.rot90(t.reshape(side, side, 3), -turn) for t in reader.templates]
                for template in templates:
                    template = np.ascontiguousarray(template, dtype=np.float32)
                    expected = cv2.matchTemplate(features, template, cv2.TM_CCORR_NORMED)
                    t64 = template.astype(np.float64).reshape(-1)
                    plain = (w64 @ t64 / np.sqrt(energy * float(t64 @ t64))).astype(np.float32)
                    (dx, dy), fit = reader._match(features, template, margin)
                    _, best, _, (bx, by) = cv2.minMaxLoc(expected)
                    assert (dx + margin, dy + margin) == (bx, by)
                    assert abs(fit - best) <= 1.2e-7
                    assert fit == plain[dy + margin, dx + margin]
                    compared += 1
    assert compared >= 500


def test_searched_batches_read_as_with_opencvs_match():
    """Every wide batch of board 505 reads exactly as with cv2.matchTemplate (label, score, window)."""
    profile = default_profile()
    batches = _searched_batches()
    new, old = TileReader(profile), _OpenCVMatch(profile)
    for big, margin, args, kwargs in batches:
        assert new.read_batch(big, margin, *args, **kwargs) == old.read_batch(big, margin, *args, **kwargs)
