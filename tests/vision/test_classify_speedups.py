"""The readers' fast paths (vision/classify.py) give bit for bit what the plain code they replaced gave.

Each reference below is the code as it was before the speed-up, run on random inputs (and on the built-in default
profile's templates): a float that differs in its last bit fails the test, except against numpy's plain matrix
product, whose sgemm kernel (and so its last bit) depends on the CPU."""

import math

import numpy as np
import pytest

from calibration.profile import (
    _COIN_HIGH_PASS_PX,
    _TILE_HIGH_PASS_PX,
    COIN_ANGLES,
    COIN_CROP_MM,
    COIN_CROP_PX,
    COIN_RINGS,
    TILE_CROP_PX,
    _high_pass,
    _opponent,
    _polar_maps,
    _polar_matrix,
    default_profile,
)
from vision.classify import CoinReader, TileReader, _confidence, _polar_of_windows, _wide_coin_features


@pytest.fixture(scope="module")
def tile_reader() -> TileReader:
    return TileReader(default_profile())


def _old_per_label(reader: TileReader, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    per_label = np.full(len(reader.labels), -1.0)
    turn = np.zeros(len(reader.labels), int)
    for t in range(scores.shape[1]):
        label = reader.label_of[t]
        k = int(np.argmax(scores[:, t]))
        if scores[k, t] > per_label[label]:
            per_label[label] = scores[k, t]
            turn[label] = k
    return per_label, turn


def _old_big_features(big: np.ndarray, margin: int) -> np.ndarray:
    n = TILE_CROP_PX
    centre = big[margin : margin + n, margin : margin + n].astype(np.float32) + 6.0
    ref = np.median(centre.reshape(-1, 3), axis=0)
    logs = np.clip(np.log((big.astype(np.float32) + 6.0) / ref), -2.5, 1.2)
    return _high_pass(_opponent(logs)[None].astype(np.float32), _TILE_HIGH_PASS_PX)[0]


def test_the_batched_template_product_is_bit_for_bit_the_plain_one(tile_reader):
    rng = np.random.default_rng(5)
    for count in list(range(1, 41)) + [60]:
        crops = rng.integers(0, 256, (count, TILE_CROP_PX, TILE_CROP_PX, 3)).astype(np.uint8)
        raw, per_label, turn = tile_reader.per_label_batch(crops)
        x = raw - raw.mean(axis=1, keepdims=True)
        x /= np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-6)
        scores = (x @ tile_reader.turned.T).reshape(count, 4, len(tile_reader.templates))
        # equal to float32 rounding, not bit for bit: which sgemm kernel numpy's plain product and the batched one
        # take depends on the CPU (an AMD EPYC's OpenBLAS differs in the last bit at count 4, an Intel's did not)
        np.testing.assert_allclose(per_label, scores.max(axis=1), rtol=0, atol=1e-6, err_msg=str(count))
        best_two = np.sort(scores, axis=1)[:, -2:]
        clear = best_two[:, 1] - best_two[:, 0] > 1e-6  # the best turn, where no other is within rounding
        assert np.array_equal(turn[clear], scores.argmax(axis=1)[clear]), count
        assert clear.mean() > 0.9, count


def test_the_per_label_best_over_turns_is_the_old_loop(tile_reader, monkeypatch):
    rng = np.random.default_rng(6)
    vectors = rng.standard_normal((30, 3 * TILE_CROP_PX**2)).astype(np.float32)
    for vector in vectors:
        per_label, turn = tile_reader._per_label(vector, None)
        expected = _old_per_label(tile_reader, tile_reader._scores(vector, None))
        assert per_label.dtype == expected[0].dtype and np.array_equal(per_label, expected[0])
        assert np.array_equal(turn, expected[1])
    # several templates per label (a taught profile may hold more than one), and scores at exactly -1
    owner = np.arange(len(tile_reader.templates)) // 2
    monkeypatch.setattr(tile_reader, "label_of", owner)
    monkeypatch.setattr(tile_reader, "labels", tile_reader.labels[: int(owner.max()) + 1])
    monkeypatch.setattr(tile_reader, "one_template_each", False)
    for vector in vectors:
        scores = tile_reader._scores(vector, None)
        scores[:, ::3] = -1.0
        monkeypatch.setattr(tile_reader, "_scores", lambda v, keep, s=scores: s)
        per_label, turn = tile_reader._per_label(vector, None)
        expected = _old_per_label(tile_reader, scores)
        assert np.array_equal(per_label, expected[0]) and np.array_equal(turn, expected[1])


def test_the_wide_crop_colour_reference_is_numpys_median(tile_reader):
    rng = np.random.default_rng(7)
    for margin in (2, 4, 8):
        for _ in range(10):
            big = rng.integers(0, 256, (TILE_CROP_PX + 2 * margin, TILE_CROP_PX + 2 * margin, 3)).astype(np.uint8)
            assert np.array_equal(tile_reader._big_features(big, margin), _old_big_features(big, margin))
        smooth = rng.normal(120, 3, (TILE_CROP_PX + 2 * margin,) * 2 + (3,)).astype(np.float32)  # close values
        assert np.array_equal(tile_reader._big_features(smooth, margin), _old_big_features(smooth, margin))


def _old_confidence(score, margin, model_score, model_margin) -> float:
    if score < model_score or margin < model_margin:
        return float(np.clip(0.5 * min(score / model_score, margin / max(model_margin, 1e-6)), 0.0, 0.499))
    return float(min(1.0, 0.5 + 0.5 * (margin - model_margin) / max(model_margin, 1e-6)))


def test_the_confidence_is_the_clipped_one_it_was():
    rng = np.random.default_rng(8)
    cases = [(0.9, 0.099, 0.6, 0.1), (0.1, -0.3, 0.6, 0.1), (0.59, 0.5, 0.6, 0.1), (math.nan, 0.1, 0.6, 0.1),
             (-0.0, 0.0, 0.6, 0.1), (0.5999, 0.1, 0.6, 0.1)]
    cases += [tuple(float(v) for v in rng.uniform(-0.5, 1.0, 4)) for _ in range(2000)]
    for score, margin, model_score, model_margin in cases:
        for kind in (float, np.float64, np.float32):  # a profile taught in-process may hold numpy scalars
            args = (score, margin, kind(model_score), kind(model_margin))
            got, expected = _confidence(*args), _old_confidence(*args)
            assert (math.isnan(got) and math.isnan(expected)) or (got == expected and math.copysign(1, got)
                                                                 == math.copysign(1, expected)), (args, got)
            assert type(got) is type(expected)


def _old_wide_coin_features(big: np.ndarray, margin: int) -> np.ndarray:
    n = COIN_CROP_PX
    centre = big[margin : margin + n, margin : margin + n]
    _, _, disc = _polar_maps(n, COIN_CROP_MM)
    x = big.astype(np.float32) + 6.0
    inside = np.sort((centre.astype(np.float32) + 6.0)[::2, ::2][disc[::2, ::2]], axis=0)
    k = len(inside)
    ref = 0.5 * (inside[(k - 1) // 2] + inside[k // 2])
    logs = np.clip(np.log(x / ref), -2.5, 1.2)
    return _high_pass(_opponent(logs)[None].astype(np.float32), _COIN_HIGH_PASS_PX)[0]


def test_the_coins_wide_features_at_once_are_each_coins_own():
    rng = np.random.default_rng(9)
    for count, margin in ((1, 4), (5, 4), (24, 4), (3, 8), (7, 2)):
        side = COIN_CROP_PX + 2 * margin
        big = rng.integers(0, 256, (count, side, side, 3)).astype(np.uint8)
        big[count // 2] = np.clip(rng.normal(150, 10, (side, side, 3)), 0, 255).astype(np.uint8)  # a pale coin
        batch = _wide_coin_features(big, margin)
        for i in range(count):
            assert np.array_equal(batch[i], _old_wide_coin_features(big[i], margin)), (count, margin, i)


def _old_polar_of_features(windows: np.ndarray) -> np.ndarray:
    count, size = len(windows), windows.shape[1]
    planes = np.ascontiguousarray(windows.transpose(0, 3, 1, 2)).reshape(count * 3, size * size)
    samples = (_polar_matrix(size, COIN_CROP_MM) @ planes.T).T
    return np.ascontiguousarray(samples, dtype=np.float32).reshape(count, 3, COIN_RINGS, COIN_ANGLES)


def test_the_polar_samples_read_from_the_feature_images_are_the_sparse_products():
    rng = np.random.default_rng(10)
    nine = [(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
    for count, margin in ((1, 4), (5, 4), (24, 4), (2, 8)):
        side = COIN_CROP_PX + 2 * margin
        features = _wide_coin_features(rng.integers(0, 256, (count, side, side, 3)).astype(np.uint8), margin)
        features[0, 3:9, 5:7] = -0.0  # signed zeros sum as scipy's do
        for shifts in (nine, [(margin, -margin), (0, 0), (-margin, margin - 1)]):
            n, m = COIN_CROP_PX, margin
            windows = np.stack([f[m + dy : m + dy + n, m + dx : m + dx + n] for f in features for dx, dy in shifts])
            got = _polar_of_windows(features, margin, shifts)
            expected = _old_polar_of_features(windows)
            assert got.dtype == expected.dtype and np.array_equal(got, expected)
            assert np.array_equal(np.signbit(got), np.signbit(expected))


def test_the_coin_correlations_are_numpys_float32_rfft_products():
    reader = CoinReader(default_profile())
    rng = np.random.default_rng(11)
    for count in (1, 2, 10, 45, 120):
        polar = rng.standard_normal((count, 3, COIN_RINGS, COIN_ANGLES)).astype(np.float32)
        flat = polar.reshape(count, -1)
        flat = flat - flat.mean(axis=1, keepdims=True)
        flat /= np.maximum(np.linalg.norm(flat, axis=1, keepdims=True), 1e-6)
        spectrum = np.fft.rfft(flat.reshape(count, 3 * COIN_RINGS, COIN_ANGLES), axis=-1)
        product = np.matmul(spectrum.transpose(2, 0, 1), reader.spectra_by_frequency).transpose(1, 2, 0)
        expected = np.fft.irfft(product, n=COIN_ANGLES, axis=-1)
        got = reader.correlations(None, polar)
        assert got.dtype == expected.dtype and np.array_equal(got, expected), count


def test_the_labels_sorted_for_a_batch_of_crops_are_each_crops_own_order():
    rng = np.random.default_rng(12)
    for trial in range(300):
        scores = rng.standard_normal((int(rng.integers(1, 50)), 25)).astype(np.float32)
        if trial % 2:
            scores = np.round(scores, 1)  # ties: the same label must come first
        orders = np.argsort(-scores, axis=1)
        for row, order in zip(scores, orders, strict=True):
            assert np.array_equal(order, np.argsort(-row))
