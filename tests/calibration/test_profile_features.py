"""The readers' features: a batch high-passed at once is, bit for bit, each crop high-passed alone."""

import cv2
import numpy as np
import pytest

from calibration import profile
from calibration.profile import MARK_CROP_PX, TILE_CROP_PX


def _each_alone(images: np.ndarray, scale_px: float) -> np.ndarray:
    """The reference: each image shrunk to cells of ``scale_px`` and enlarged back by its own two resizes."""
    h, w = images.shape[1:3]
    small = (max(2, int(round(w / scale_px))), max(2, int(round(h / scale_px))))
    out = np.empty_like(images)
    for i, image in enumerate(images):
        low = cv2.resize(cv2.resize(image, small, interpolation=cv2.INTER_AREA), (w, h), interpolation=cv2.INTER_LINEAR)
        out[i] = image - low
    return out


@pytest.mark.parametrize("size", [TILE_CROP_PX, TILE_CROP_PX + 8, MARK_CROP_PX, 56, 38, 44])
@pytest.mark.parametrize("count", [1, 2, 7, 34])
def test_a_batch_is_high_passed_bit_for_bit_as_each_crop_alone(size, count):
    rng = np.random.default_rng([size, count])
    # log-ratio-like values with a light gradient across each crop and sharp ink
    crops = rng.normal(0.0, 0.3, (count, size, size, 3)).astype(np.float32)
    crops += np.linspace(-1.0, 1.0, size, dtype=np.float32)[None, :, None, None] * rng.uniform(0, 2, (count, 1, 1, 3))
    crops[:, size // 3 : size // 2, size // 4 : size // 2] -= 2.0
    got = profile._high_pass(crops, 8.0)
    assert got.dtype == np.float32 and got.shape == crops.shape
    assert np.array_equal(got, _each_alone(crops, 8.0))


def test_tile_crop_features_high_passed_batched_are_each_crops_own():
    """Tile-crop-like images through the reader's chain (log colour ratios, opponent channels): the batch's high
    pass equals each crop's alone. (The chain before it is compared on the same batch: cv2.transform's vector
    tail makes a crop's opponent channels depend a little on the batch it is in, before and after this change.)"""
    rng = np.random.default_rng(5)
    crops = rng.integers(150, 255, (12, TILE_CROP_PX, TILE_CROP_PX, 3), dtype=np.uint8)
    crops[:, 10:30, 14:26] = rng.integers(0, 80, (12, 20, 12, 3), dtype=np.uint8)  # a numeral's ink
    features = profile._opponent(profile._log_ratio(crops))
    assert np.array_equal(profile._high_pass(features, 8.0), _each_alone(features, 8.0))
    assert np.array_equal(profile.tile_raw(crops), _each_alone(features, 8.0))
