"""The coin path's fast paths (vision/classify.py's CoinReader, vision/detect.py's grid helpers) give bit for bit
what the plain code they replaced gave.

Each reference below is the code as it was before the speed-up, run on rendered coin crops or random inputs: a
float that differs in its last bit fails the test."""

import math

import numpy as np
import pytest

import calibration.profile as profile_module
import vision.classify as classify_module
from calibration.profile import COIN_ANGLES, COIN_CROP_MM, COIN_CROP_PX, COIN_RINGS, default_profile
from vision.classify import CoinReader, Reading
from vision.detect import TILE_MM, _half_off, _Pose, _TileFinding


@pytest.fixture(scope="module")
def coin_reader() -> CoinReader:
    return CoinReader(default_profile())


@pytest.fixture(scope="module")
def off_centre_coins() -> tuple[np.ndarray, int]:
    """Wide crops of an Easy Slider board's coins looked for 0-7 mm off their centres (8 directions): crops read
    surely, unclear, partly hidden and as no face, with the crop's margin."""
    from detect_scenes import easy_slider_frame

    from vision.crops import sample_crops

    frame = easy_slider_frame(500)
    truths = [t for t in frame.of_kind("coin") if not t["hidden"]]
    margin = 4
    size = COIN_CROP_MM * (COIN_CROP_PX + 2 * margin) / COIN_CROP_PX
    centres, heights = [], []
    for t in truths:
        for step in (0.0, 1.5, 3.0, 5.0, 7.0):
            for k in range(8 if step else 1):
                a = k * math.pi / 4
                centres.append([t["x_mm"] + step * math.cos(a), t["y_mm"] + step * math.sin(a)])
                heights.append(t["top_mm"])
    bigs = sample_crops(frame.image, frame.exact_calibration(), np.array(centres), np.zeros(len(centres)),
                        np.array(heights), size, COIN_CROP_PX + 2 * margin)
    return bigs, margin


def test_a_crop_judged_samples_its_polar_features_once_and_reads_as_when_each_step_sampled_them(
        coin_reader, off_centre_coins, monkeypatch):
    """CoinReader._judge hands the crop's polar features, sampled at most once, to the occlusion check and to the
    blank face's reading: a crop read as no face sampled them twice before. The readings are those of the old way
    (each step sampling its own)."""
    bigs, margin = off_centre_coins
    sampled: list[bytes] = []
    real_polar = profile_module.coin_polar

    def spy(crops):
        crops = np.asarray(crops)
        if crops.ndim == 3 or len(crops) == 1:  # one crop: the judge's (a batch is the correlations')
            sampled.append(np.ascontiguousarray(crops).tobytes())
        return real_polar(crops)

    monkeypatch.setattr(classify_module, "coin_polar", spy)
    real_judge = CoinReader._judge
    repeats = []

    def judge(self, *args, **kwargs):
        before = len(sampled)
        out = real_judge(self, *args, **kwargs)
        these = sampled[before:]
        repeats.append(len(these) - len(set(these)))
        return out

    monkeypatch.setattr(CoinReader, "_judge", judge)
    now = [coin_reader.read_batch(bigs[i : i + 6], margin) for i in range(0, len(bigs), 6)]
    assert len(repeats) >= len(bigs) // 2 and max(repeats) == 0

    # the old way: the occlusion check and the blank face's reading each sample the crop themselves
    real_faces, real_blank = CoinReader._judge_faces, CoinReader._blank_reading
    monkeypatch.setattr(CoinReader, "_judge_faces",
                        lambda self, per_label, best, shift, crop, here=None, polar=None:
                        real_faces(self, per_label, best, shift, crop, here))
    monkeypatch.setattr(CoinReader, "_blank_reading", lambda self, crop, rim_fits=False, polar=None:
                        real_blank(self, crop, rim_fits))
    repeats.clear()
    before = [coin_reader.read_batch(bigs[i : i + 6], margin) for i in range(0, len(bigs), 6)]
    assert sum(repeats) >= 5  # the old way sampled some crops twice: the judging path above was taken
    assert repr(now) == repr(before)
    statuses = {reading.status for batch in now for reading, _ in batch}
    assert {"ok", "none"} <= statuses


def _old_occlusion(reader: CoinReader, polar: np.ndarray, template: int, shift: int) -> tuple[float, float]:
    x = np.roll(polar.reshape(3, COIN_RINGS, COIN_ANGLES), -shift, axis=-1)
    t = reader.templates[template].reshape(3, COIN_RINGS, COIN_ANGLES)
    xc = x - x.mean()
    scale = max(float((xc * t).sum()) / max(float((t * t).sum()), 1e-6), 0.0)
    residual = ((xc - scale * t) ** 2).sum(axis=0)
    inner = COIN_RINGS // 3
    cells = [residual[:inner].mean()] + [
        residual[inner:, k * COIN_ANGLES // 8 : (k + 1) * COIN_ANGLES // 8].mean() for k in range(8)
    ]
    cells = np.array(cells)
    typical = float(np.median(cells))
    bad = cells > max(4.0 * typical, 0.02)
    if not bad.any():
        return 0.0, -1.0
    keep = np.ones((COIN_RINGS, COIN_ANGLES), bool)
    if bad[0]:
        keep[:inner] = False
    for k in range(8):
        if bad[k + 1]:
            keep[inner:, k * COIN_ANGLES // 8 : (k + 1) * COIN_ANGLES // 8] = False
    covered = 1.0 - float(keep.mean())
    k = keep.astype(np.float64)
    kx = x * k[None]
    count = 3.0 * k.sum()
    s_x, s_xx = float(kx.sum()), float((kx * x).sum())
    spec_k = np.fft.rfft(k, axis=-1)
    s_xt = np.fft.irfft(np.einsum("rf,trf->tf", np.fft.rfft(kx.reshape(-1, COIN_ANGLES), axis=-1),
                                  reader.spectra), n=COIN_ANGLES, axis=-1)
    s_t = np.fft.irfft(np.einsum("rf,trf->tf", spec_k, reader.sum_spectra), n=COIN_ANGLES, axis=-1)
    s_tt = np.fft.irfft(np.einsum("rf,trf->tf", spec_k, reader.square_spectra), n=COIN_ANGLES, axis=-1)
    numerator = s_xt - s_x * s_t / count
    denominator = np.sqrt(np.maximum((s_xx - s_x * s_x / count) * (s_tt - s_t * s_t / count), 1e-12))
    return covered, float((numerator / denominator).max())


def test_the_occlusion_check_is_the_old_one(coin_reader, off_centre_coins):
    """_occlusion with each template's power worked out once and the nine cells' median by a sort: the old values
    on the crops' own polar features (covered ones among them) and on random ones."""
    bigs, margin = off_centre_coins
    n = COIN_CROP_PX
    polars = list(profile_module.coin_polar(bigs[:, margin : margin + n, margin : margin + n]))
    rng = np.random.default_rng(16)
    polars += list(rng.standard_normal((40, 3, COIN_RINGS, COIN_ANGLES)).astype(np.float32))
    covered = 0
    for i, polar in enumerate(polars):
        for template in range(0, len(coin_reader.templates), 3):
            shift = int(rng.integers(COIN_ANGLES))
            got = coin_reader._occlusion(polar, template, shift)
            assert got == _old_occlusion(coin_reader, polar, template, shift), (i, template, shift)
            covered += got[0] > 0
    assert covered >= 20  # the masked correlation was compared too


def _old_half_off(tiles: list[_TileFinding]) -> list[tuple[int, list[np.ndarray]]]:
    if len(tiles) < 3:
        return []
    centres = np.array([t.pose.centre for t in tiles])
    angles = np.array([t.pose.angle_deg for t in tiles])
    pitch = TILE_MM + 1.0
    out = []
    offsets = centres[None, :, :] - centres[:, None, :]
    turns = np.abs((angles[None, :] - angles[:, None] + 45.0) % 90.0 - 45.0)
    neighbours = (np.hypot(offsets[..., 0], offsets[..., 1]) < 2.6 * pitch) & (turns < 5.0)
    np.fill_diagonal(neighbours, False)
    for i in np.flatnonzero(neighbours.sum(axis=1) >= 2).tolist():
        d, near = offsets[i], neighbours[i]
        a = math.radians(angles[i])
        u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        for axis in (u, v):
            along = d[near] @ axis
            residual = np.abs(along - pitch * np.round(along / pitch))
            if np.all(residual > 0.3 * pitch):
                out.append((i, [axis * pitch / 2, -axis * pitch / 2]))
                break
    return out


def test_tiles_half_off_their_neighbours_lattice_are_those_the_loop_found():
    """_half_off with every tile's neighbours projected at once: the same tiles and shifts as the loop over tiles,
    on random grids (some tiles half a pitch off, turned a little, gaps of 0-8 mm)."""
    rng = np.random.default_rng(17)
    found = 0
    for _ in range(400):
        pitch = TILE_MM + rng.uniform(0.0, 8.0)
        turn = rng.uniform(0.0, 90.0)
        a = math.radians(turn)
        tiles = []
        for _ in range(int(rng.integers(3, 25))):
            c, r = rng.integers(0, 6, 2)
            x = c * pitch * math.cos(a) - r * pitch * math.sin(a) + rng.normal(0, 2)
            y = c * pitch * math.sin(a) + r * pitch * math.cos(a) + rng.normal(0, 2)
            x += pitch / 2 if rng.random() < 0.15 else 0.0
            tiles.append(_TileFinding(_Pose(np.array([x, y]), turn + rng.normal(0, 2)), Reading("none"),
                                      (1.0, 1.0, 1.0, 1.0)))
        got = _half_off(tiles)
        assert repr(got) == repr(_old_half_off(tiles))
        found += len(got)
    assert found >= 100


def _old_wide_coin_features(big: np.ndarray, margin: int) -> np.ndarray:
    """The reference: classify._wide_coin_features before the byte path (the middle window's disc sorted for the
    reference, np.log of every pixel's quotient)."""
    n = COIN_CROP_PX
    _, _, disc = profile_module._polar_maps(n, COIN_CROP_MM)
    x = big.astype(np.float32) + 6.0
    inside = np.sort(x[:, margin : margin + n : 2, margin : margin + n : 2][:, disc[::2, ::2]], axis=1)
    k = inside.shape[1]
    ref = 0.5 * (inside[:, (k - 1) // 2] + inside[:, k // 2])
    logs = np.clip(np.log(x / ref[:, None, None, :]), -2.5, 1.2)
    return profile_module._high_pass(np.stack([profile_module._opponent(image) for image in logs]),
                                     profile_module._COIN_HIGH_PASS_PX)


def test_wide_coin_features_from_counted_medians_and_looked_up_logs_are_the_old_ones(off_centre_coins, monkeypatch):
    """_wide_coin_features of byte crops (the disc's medians counted, each byte value's log looked up per crop and
    channel): the old sort-and-log features bit for bit, on an Easy Slider board's coins looked for 0-7 mm off
    their centres, one crop and batches, and on random, flat and glaring crops. The counted path is the one taken."""
    counted = []
    real = classify_module._masked_byte_medians
    monkeypatch.setattr(classify_module, "_masked_byte_medians", lambda *args: counted.append(1) or real(*args))
    bigs, margin = off_centre_coins
    assert bigs.dtype == np.uint8
    for batch in (bigs[:1], bigs[1:3], bigs[:25], bigs):
        got = classify_module._wide_coin_features(batch, margin)
        assert got.dtype == np.float32 and np.array_equal(got, _old_wide_coin_features(batch, margin))
    rng = np.random.default_rng(18)
    size = COIN_CROP_PX + 2 * margin
    for crops in (rng.integers(0, 256, (5, size, size, 3), dtype=np.uint8),
                  np.full((2, size, size, 3), 200, np.uint8),
                  np.where(rng.random((3, size, size, 1)) < 0.5, 255, 0).astype(np.uint8).repeat(3, axis=3)):
        assert np.array_equal(classify_module._wide_coin_features(crops, margin),
                              _old_wide_coin_features(crops, margin))
    assert len(counted) == 7
