"""The tile reader's speed steps (vision/classify.py TileReader) against the plain computations they replaced, on
real crops: the wide tile crops Easy Slider board 505 (default set) searches around (its tile batches read with a
margin), recorded from a detect."""

from __future__ import annotations

import cv2
import numpy as np
from detect_scenes import searched_tile_batches

from calibration.profile import default_profile
from vision.classify import TileReader


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
    batches = searched_tile_batches()
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
    batches = searched_tile_batches()
    new, old = TileReader(profile), _OpenCVMatch(profile)
    for big, margin, args, kwargs in batches:
        assert new.read_batch(big, margin, *args, **kwargs) == old.read_batch(big, margin, *args, **kwargs)


def _plain_middle_shows(reader, vector, label, turn, least, strength=None, keep=None) -> bool:
    """TileReader._middle_shows as it was: the template's middle and norms computed at every call."""
    n = int(round(np.sqrt(reader.templates.shape[1] / 3)))
    lo, hi = n // 4, n - n // 4
    whole = vector[reader.perms[turn]].reshape(n, n, 3)
    x = whole[lo:hi, lo:hi]
    template = reader.templates[int(np.nonzero(reader.label_of == label)[0][0])].reshape(n, n, 3)
    middle = template[lo:hi, lo:hi] - template[lo:hi, lo:hi].mean()
    centred = template - template.mean()
    if np.linalg.norm(middle) < 0.2 * np.linalg.norm(centred):
        return True
    x = x - x.mean()
    correlation = float((x * middle).sum()) / (float(np.linalg.norm(x) * np.linalg.norm(middle)) + 1e-9)
    if correlation < least:
        return False
    if strength is None:
        return True
    seen = np.ones((n, n, 3), np.float32) if keep is None else keep[reader.perms[turn]].reshape(n, n, 3)
    amplitude = float(((whole - whole.mean()) * centred * seen).sum()) / max(
        float((centred * centred * seen).sum()), 1e-12)
    seen = seen[lo:hi, lo:hi]
    middle_amplitude = float((x * middle * seen).sum()) / max(float((middle * middle * seen).sum()), 1e-12)
    return amplitude > 0 and middle_amplitude >= strength * amplitude


def _plain_null_shows(reader, vector, label, turn) -> bool:
    if not _plain_middle_shows(reader, vector, label, turn, 0.3):
        return False
    n = int(round(np.sqrt(reader.templates.shape[1] / 3)))
    lo, hi = n // 4, n - n // 4
    template = reader.templates[int(np.nonzero(reader.label_of == label)[0][0])].reshape(n, n, 3)
    if np.linalg.norm(template[lo:hi, lo:hi] - template[lo:hi, lo:hi].mean()) \
            >= 0.2 * np.linalg.norm(template - template.mean()):
        return True
    x = vector[reader.perms[turn]].reshape(n, n, 3)
    middle = x[lo:hi, lo:hi]
    return float(np.linalg.norm(middle - middle.mean())) <= 0.4 * float(np.linalg.norm(x - x.mean()))


def test_the_middle_looks_with_each_labels_middle_kept_are_the_plain_ones():
    """A back's and a null's middle looks (TileReader._middle_shows, _null_shows) keep each label's template middle
    from the first look: on board 505's searched crops, every label at every turn, masked and not, they answer
    as the plain computation, and both answers occur."""
    reader = TileReader(default_profile())
    vectors = [reader.raw(big[:, m : m + 40, m : m + 40]).reshape(len(big), -1)
               for big, m, _, _ in searched_tile_batches()]
    vectors = np.concatenate(vectors)
    keep = np.ones(vectors.shape[1], bool)
    keep[: vectors.shape[1] // 3] = False  # the top third covered
    looks = ((0.15, 0.3, None), (0.15, 0.3, keep), (0.0, 0.3, None), (0.3, None, None))
    answers = set()
    for vector in vectors[:12]:
        for label in range(len(reader.labels)):
            for turn in range(4):
                for least, strength, kept in looks:
                    got = reader._middle_shows(vector, label, turn, least, strength, kept)
                    assert got == _plain_middle_shows(reader, vector, label, turn, least, strength, kept)
                    answers.add(got)
                assert reader._null_shows(vector, label, turn) == _plain_null_shows(reader, vector, label, turn)
    assert answers == {True, False}


def _plain_big_features(big: np.ndarray, margin: int) -> np.ndarray:
    """TileReader._big_features as it was: the middle window's median by a partition, each pixel's log computed."""
    from calibration.profile import _TILE_HIGH_PASS_PX, _high_pass, _opponent

    n = 40
    centre = big[margin : margin + n, margin : margin + n].astype(np.float32) + 6.0
    k = n * n
    inside = np.partition(centre.reshape(-1, 3).T, ((k - 1) // 2, k // 2), axis=1)
    ref = 0.5 * (inside[:, (k - 1) // 2] + inside[:, k // 2])
    logs = np.clip(np.log((big.astype(np.float32) + 6.0) / ref), -2.5, 1.2)
    return _high_pass(_opponent(logs)[None].astype(np.float32), _TILE_HIGH_PASS_PX)[0]


def test_the_wide_crops_features_with_counted_medians_and_looked_up_logs_are_the_plain_ones():
    """A wide crop's features (TileReader._big_features: the middle's median counted over byte values, each
    pixel's log looked up in its channel's table) equal the plain computation bit for bit: board 505's searched
    crops, and random crops dark, bright and of few values (ties at the median, clipped logs)."""
    reader = TileReader(default_profile())
    crops = [(crop, margin) for big, margin, _, _ in searched_tile_batches() for crop in big]
    assert len(crops) >= 5
    rng = np.random.default_rng(505)
    for _ in range(60):
        crop = rng.integers(0, 256, (48, 48, 3), dtype=np.uint8)
        crops.append((crop, 4))
        crops.append(((crop // 16 + rng.integers(0, 240)).astype(np.uint8), 4))
        crops.append((np.where(crop < 128, 0, 255).astype(np.uint8), 4))
    for crop, margin in crops:
        got = reader._big_features(crop, margin)
        assert got.dtype == np.float32
        assert np.array_equal(got, _plain_big_features(crop, margin))
