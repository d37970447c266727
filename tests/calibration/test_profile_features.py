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


def _plain_log_ratio(crops: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """The reference: _log_ratio as numpy computes it (np.log of every pixel, less the log of each crop's median
    colour, clipped), the medians sorted from every other pixel of each crop, or of ``mask`` (bool, a crop's
    height and width) where one is given."""
    x = np.asarray(crops, dtype=np.float32) + 6.0
    every_other = x[:, ::2, ::2]
    if mask is None:
        ordered = np.sort(every_other.reshape(len(x), -1, 3), axis=1)
    else:
        ordered = np.sort(every_other[:, mask[::2, ::2], :], axis=1)
    k = ordered.shape[1]
    ref = 0.5 * (ordered[:, (k - 1) // 2] + ordered[:, k // 2])
    n, h, w = x.shape[:3]
    out = np.log(x.reshape(n, h, w * 3))
    out -= np.tile(np.log(ref), w)[:, None, :]
    np.clip(out, -2.5, 1.2, out=out)
    return out.reshape(n, h, w, 3)


def test_the_byte_logs_are_numpys_log_at_every_position():
    """The looked-up logs (profile._LOG_OF_BYTES) are np.log's of each byte value plus the offset wherever the
    value lies in an array (numpy's float32 log works in SIMD blocks and a tail): every value at every position of
    arrays up to 70 long, and in a tile batch's shape."""
    rng = np.random.default_rng(11)
    values = np.arange(256, dtype=np.uint8)
    for length in range(1, 71):
        for start in range(0, 256, length):
            chunk = np.resize(np.roll(values, -start), length)
            assert np.array_equal(profile._LOG_OF_BYTES[chunk], np.log(chunk.astype(np.float32) + 6.0))
    batch = rng.integers(0, 256, (24, TILE_CROP_PX, TILE_CROP_PX * 3), dtype=np.uint8)
    assert np.array_equal(profile._LOG_OF_BYTES[batch], np.log(batch.astype(np.float32) + 6.0))


@pytest.mark.parametrize("shape", [(1, TILE_CROP_PX, TILE_CROP_PX), (34, TILE_CROP_PX, TILE_CROP_PX),
                                   (3, TILE_CROP_PX + 8, TILE_CROP_PX + 8), (2, MARK_CROP_PX, MARK_CROP_PX),
                                   (4, 41, 39), (2, 1, 1), (1, 2, 3)])
def test_byte_crops_log_ratios_are_the_plain_ones(shape):
    """_log_ratio of uint8 crops (the medians counted, the logs looked up: profile._log_ratio_bytes) equals the
    plain sort-and-log computation bit for bit: tile-like crops (white face, dark and coloured ink, a light
    gradient), crops of one colour, crops of two close values (ties at the median), glare and shadow (clipped)."""
    rng = np.random.default_rng(list(shape))
    n, h, w = shape
    face = rng.integers(150, 255, (n, h, w, 3), dtype=np.uint8)
    face[:, h // 4 : h // 2, w // 3 : w // 2] = rng.integers(0, 80, (n, h // 2 - h // 4, w // 2 - w // 3, 3))
    flat = np.full((n, h, w, 3), 200, np.uint8)
    close = rng.integers(100, 102, (n, h, w, 3), dtype=np.uint8)
    glare = np.where(rng.random((n, h, w, 1)) < 0.3, 255, 3).astype(np.uint8).repeat(3, axis=3)
    for crops in (face, flat, close, glare, np.ascontiguousarray(face[:, ::-1])):
        got = profile._log_ratio(crops)
        assert got.dtype == np.float32 and got.shape == crops.shape
        assert np.array_equal(got, _plain_log_ratio(crops))
    sliced = rng.integers(0, 256, (n, h + 8, w + 8, 3), dtype=np.uint8)[:, 3 : 3 + h, 5 : 5 + w]  # a window
    assert np.array_equal(profile._log_ratio(sliced), _plain_log_ratio(sliced))


@pytest.mark.parametrize("size", [44, 45, 52, 36, 31])
@pytest.mark.parametrize("count", [1, 2, 13])
def test_byte_crops_log_ratios_over_a_disc_are_the_plain_ones(size, count, monkeypatch):
    """_log_ratio of uint8 coin crops with a mask (coin_polar's disc, face_share's): the medians counted over the
    mask's pixels (profile._masked_byte_medians) give the plain sort-and-log values bit for bit: coin-like crops
    (a light face, dark ink, wood around), one colour, two close values (ties at the median), glare and shadow. The
    counted path is the one taken."""
    from vision.classify import _face_disc

    counted = []
    real = profile._masked_byte_medians
    monkeypatch.setattr(profile, "_masked_byte_medians", lambda *args: counted.append(1) or real(*args))
    rng = np.random.default_rng([size, count])
    face = rng.integers(170, 250, (count, size, size, 3), dtype=np.uint8)
    face[:, size // 3 : size // 2, size // 3 : 2 * size // 3] = rng.integers(0, 90, (count, size // 2 - size // 3,
                                                                                     2 * size // 3 - size // 3, 3))
    face[:, :, : size // 8] = rng.integers(60, 120, (count, size, size // 8, 3))  # wood beside the coin
    flat = np.full((count, size, size, 3), 130, np.uint8)
    close = rng.integers(100, 102, (count, size, size, 3), dtype=np.uint8)
    glare = np.where(rng.random((count, size, size, 1)) < 0.4, 255, 2).astype(np.uint8).repeat(3, axis=3)
    _, _, polar_disc = profile._polar_maps(size, profile.COIN_CROP_MM * size / profile.COIN_CROP_PX)
    for mask in (polar_disc, _face_disc(size)):
        for crops in (face, flat, close, glare, np.ascontiguousarray(face[:, :, ::-1])):
            got = profile._log_ratio(crops, mask)
            assert got.dtype == np.float32 and got.shape == crops.shape
            assert np.array_equal(got, _plain_log_ratio(crops, mask))
    assert len(counted) == 10
