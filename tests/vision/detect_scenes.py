"""Rendered test frames for the tile/coin detector, its teach step and its benchmark, cached on disk.

Rendering a 1640x1232 frame takes seconds; the same frames are used by several test files and the benchmark,
so each is rendered once and kept as PNG + truth JSON under ``$TABLESIDE_RENDER_CACHE`` (default
``/tmp/vision-cache``), keyed by a hash of everything that defines it (scene, camera, seed, quality, and the
renderer's source code, so a changed renderer never serves stale frames).

Teach photos follow the issue's wording: the first photo has T (tiles face up), V (coins value side up), P and
D; the second has S (coins suit side up) in V's place and, optionally, the tiles back side up.
``tablescene.teach_layout`` places S to the right of V in one picture (a set has only 24 coins, so a real
photo cannot show both): :func:`teach_photos` splits it into the two photos.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import tablescene
from tablescene import (
    CameraSpec,
    CoinPiece,
    Lighting,
    Scene,
    TilePiece,
    easy_slider_board,
    easy_slider_layout,
    render,
    teach_layout,
)

from calibration.lens import LensModel
from calibration.parallax import CameraPose
from calibration.table_calibration import Calibration

CACHE = Path(os.environ.get("TABLESIDE_RENDER_CACHE", "/tmp/vision-cache"))

#: The realistic camera: a Pi camera v2 (1640x1232 binned mode) 80 cm above an A3 sheet, tilted a little.
GAME_CAMERA = CameraSpec(distance_mm=800, tilt_deg=12, target_mm=(148, 215))
#: Teach photos: the layout is larger than a game board.
TEACH_CAMERA = CameraSpec(distance_mm=900, tilt_deg=8, target_mm=(285, 190))
#: Where the teach layout's top-left tile corner is: on the table right of an A4 sheet (origin at its top left).
TEACH_ORIGIN = (235.0, 0.0)


@lru_cache(maxsize=1)
def _renderer_hash() -> str:
    if os.environ.get("TABLESIDE_RENDERER_HASH"):  # pin while developing against a renderer being edited
        return os.environ["TABLESIDE_RENDERER_HASH"]
    digest = hashlib.sha1()
    for path in sorted(Path(tablescene.__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


@dataclass
class Frame:
    """A rendered frame, its truth (the dicts of tablescene's truth JSON) and its camera (JSON)."""

    image: np.ndarray
    truth: list[dict]
    key: str
    camera: dict

    def of_kind(self, *kinds: str) -> list[dict]:
        return [t for t in self.truth if t["kind"] in kinds]

    def exact_calibration(self) -> Calibration:
        """The calibration a perfect lens + sheet calibration would give (the renderer's own camera): tests of
        the vision alone use it, tests of the whole chain calibrate from the sheet in the frame."""
        K = np.array(self.camera["K"], float)
        dist = np.array(self.camera["dist"], float)
        R = np.array(self.camera["R"], float)
        t = np.array(self.camera["tvec"], float)
        size = (int(self.camera["width"]), int(self.camera["height"]))
        table_to_px = K @ np.column_stack([R[:, 0], R[:, 1], t])
        homography = np.linalg.inv(table_to_px)
        homography /= homography[2, 2]
        lens = LensModel(K, dist, size)
        pose = CameraPose(K, R, t, "lens")
        return Calibration("homography", size, homography, lens, pose)


def rendered(scene: Scene, camera: CameraSpec, seed: int = 0, quality: str = "normal") -> Frame:
    """``tablescene.render`` through the disk cache."""
    text = repr((scene, camera, seed, quality, _renderer_hash()))
    key = hashlib.sha1(text.encode()).hexdigest()[:16]
    image_path = CACHE / f"{key}.png"
    json_path = image_path.with_suffix(".json")
    if image_path.exists() and json_path.exists():
        image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if image is not None:
            data = json.loads(json_path.read_text())
            return Frame(image, data["pieces"], key, data["camera"])
    result = render(scene, camera, seed=seed, quality=quality)
    CACHE.mkdir(parents=True, exist_ok=True)
    temporary = CACHE / f".{key}.{os.getpid()}.png"
    result.save(temporary)
    os.replace(temporary.with_suffix(".json"), json_path)
    os.replace(temporary, image_path)
    data = result.to_json()
    return Frame(result.image, data["pieces"], key, data["camera"])


def teach_photos(
    edition: str = "default",
    seed: int = 1,
    backs: bool = True,
    lighting: Lighting | None = None,
    camera: CameraSpec = TEACH_CAMERA,
    table: str = "wood",
) -> tuple[Frame, Frame]:
    """The two teach photos of an edition: (T, V, P, D) and (S in V's place, tiles back up if ``backs``)."""
    pieces = teach_layout(origin_mm=TEACH_ORIGIN, rng=seed, edition=edition)
    coins_v = [p for p in pieces if isinstance(p, CoinPiece) and p.side == "value"]
    coins_s = [p for p in pieces if isinstance(p, CoinPiece) and p.side == "suit"]
    others = [p for p in pieces if not isinstance(p, CoinPiece)]
    first = [p for p in others] + coins_v
    shift = min(c.x_mm for c in coins_s) - min(c.x_mm for c in coins_v)
    moved = [c.moved(x_mm=c.x_mm - shift) for c in coins_s]
    tiles2 = [p.moved(side="back") if isinstance(p, TilePiece) and backs else p for p in others]
    second = tiles2 + moved
    light = lighting or Lighting()
    photo1 = rendered(Scene(pieces=first, table=table, sheet="a4", edition=edition, lighting=light), camera, seed)
    photo2 = rendered(Scene(pieces=second, table=table, sheet="a4", edition=edition, lighting=light), camera, seed + 1)
    return photo1, photo2


def easy_slider_frame(
    seed: int,
    edition: str = "default",
    camera: CameraSpec = GAME_CAMERA,
    lighting: Lighting | None = None,
    hands: tuple = (),
    gap_mm: float = 6.0,
    table: str = "wood",
    quality: str = "normal",
) -> Frame:
    """A full Easy Slider board (24 tiles, 4 pawns, 5 coins) on an A3 sheet under random room light."""
    rng = np.random.default_rng(seed)
    pieces = easy_slider_layout(easy_slider_board(rng=seed), rng=seed, gap_mm=gap_mm, edition=None)
    light = lighting if lighting is not None else Lighting.random(rng)
    scene = Scene(pieces=pieces, table=table, sheet="a3", edition=edition, hands=hands, lighting=light)
    return rendered(scene, camera, seed, quality)


# ------------------------------------------------------------------------------------------------------------
# Taught profiles
# ------------------------------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _code_digest() -> str:
    """The vision code a taught profile depends on, as this process loaded it: its files hashed once, when this
    module is imported (right after those modules are). Hashed at each call instead, a long-running process
    (another helper's test run in the shared tree) taught profiles with the code it had loaded and filed them
    under the hash of files edited since: a stale profile served to every later run."""
    import calibration.profile
    import calibration.teach
    import vision.classify
    import vision.detect
    import vision.tiles

    digest = hashlib.sha1()
    for module in (calibration.profile, calibration.teach, vision.detect, vision.tiles, vision.classify):
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()


def taught_profile_path(edition: str, seed: int = 1, backs: bool = True) -> Path:
    """The profile of ``edition`` taught (``tableside teach``'s work, through the API) from its two rendered
    teach photos, cached on disk next to the frames (keyed by the renderer and by the vision code it depends
    on); its path."""
    from calibration.profile import save_profile
    from calibration.table_calibration import calibrate_from_sheet
    from calibration.teach import build_profile
    from vision.detect import survey_teach_photo

    digest = hashlib.sha1(_renderer_hash().encode())
    digest.update(_code_digest().encode())
    digest.update(repr((edition, seed, backs)).encode())
    path = CACHE / f"profile-{edition}-{digest.hexdigest()[:12]}.json"
    if not path.exists():
        photos = teach_photos(edition, seed=seed, backs=backs)
        surveyed = [survey_teach_photo(p.image, calibrate_from_sheet(p.image), name=f"photo {i + 1}")
                    for i, p in enumerate(photos)]
        CACHE.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        save_profile(build_profile(surveyed, name=edition), temporary)
        os.replace(temporary, path)
    return path


def taught_profile(edition: str, seed: int = 1, backs: bool = True):
    from calibration.profile import load_profile

    return load_profile(taught_profile_path(edition, seed, backs))


# ------------------------------------------------------------------------------------------------------------
# Scoring a detection against the truth
# ------------------------------------------------------------------------------------------------------------
def expected_label(truth: dict, profile) -> tuple | None:
    """(kind, side, suit, rank) the detector should report for a truth piece (tiles and coins), with suit/rank
    None where the visible side does not show them in this edition (as the profile learned it)."""
    if truth["kind"] == "tile":
        if truth["side"] == "back":
            return ("tile", "back", None, None)
        return ("tile", "face", truth["suit"], truth["rank"])
    if truth["kind"] == "coin":
        if truth["side"] == "suit":
            return ("coin", "suit", truth["suit"], None)
        shown = any(s is not None and r == truth["rank"] for s, r in profile.coin_values.labels)
        return ("coin", "value", truth["suit"] if shown else None, truth["rank"])
    return None


def piece_label(piece) -> tuple:
    return (piece.kind.value, piece.side, piece.suit.value if piece.suit else None, piece.rank)


@dataclass
class Score:
    """How a detection of tiles and coins compares with the truth. ``visible`` counts the pieces not covered
    (below); ``correct`` those read right (kind, side, suit and rank), ``wrong`` those read wrong AND reported
    sure, ``partial`` those right in every field reported but with one left None (a blank coin's suit, shown
    only by its thin rim), ``uncertain`` those reported uncertain, ``missed`` those not reported; ``covered_*``
    the same for pieces partly covered (a hand over 1 %, or anything over 10 % of it); ``extra`` sure
    detections with no piece there; ``could_be`` the uncertain ones (not covered) that name the readings they could
    be, ``could_be_true`` those of them whose truth is among those readings."""

    visible: int = 0
    correct: int = 0
    partial: int = 0  # sure, right in every field given, but a field left None that the piece shows
    wrong: int = 0
    uncertain: int = 0
    missed: int = 0
    covered: int = 0
    covered_wrong: int = 0
    covered_uncertain: int = 0
    extra: int = 0
    could_be: int = 0  # uncertain pieces (not covered) that carry could_be ...
    could_be_true: int = 0  # ... and whose truth is among its readings
    position_errors_mm: list = None  # type: ignore[assignment]
    notes: list = None  # type: ignore[assignment]

    def __post_init__(self):
        self.position_errors_mm = self.position_errors_mm or []
        self.notes = self.notes or []

    def add(self, other: Score) -> Score:
        for name in ("visible", "correct", "partial", "wrong", "uncertain", "missed", "covered", "covered_wrong",
                     "covered_uncertain", "extra", "could_be", "could_be_true"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.position_errors_mm += other.position_errors_mm
        self.notes += other.notes
        return self

    @property
    def accuracy(self) -> float:
        return self.correct / self.visible if self.visible else 1.0


def _could_be_text(piece) -> str:
    return " or ".join(f"{side} {suit.value if suit else '-'} {'-' if rank is None else rank}"
                       for suit, rank, side in piece.could_be)


def score(detection, frame: Frame, profile, kinds=("tile", "coin"), match_mm: float = 12.0) -> Score:
    """Match the detection's tiles and coins to the frame's truth (nearest within ``match_mm``, same kind)."""
    result = Score()
    found = [(p, False) for p in detection.pieces if p.kind.value in kinds]
    found += [(p, True) for p in detection.uncertain if p.kind.value in kinds]
    used: set[int] = set()
    for t in frame.truth:
        label = expected_label(t, profile)
        if label is None or t["kind"] not in kinds or not t.get("in_frame", True):
            continue
        # covered: a hand or a piece over it (a touching neighbour's raised edge hides a sliver: not covered)
        covered = t.get("hand_fraction", 0.0) > 0.01 or t.get("occluded_fraction", 0.0) > 0.1
        if covered:
            result.covered += 1
        else:
            result.visible += 1
        near = [(np.hypot(p.x_mm - t["x_mm"], p.y_mm - t["y_mm"]), i) for i, (p, _) in enumerate(found)
                if i not in used and p.kind.value == t["kind"]]
        near = [n for n in near if n[0] < match_mm]
        if not near:
            if not covered:
                result.missed += 1
                result.notes.append(f"missed {label} at ({t['x_mm']:.0f}, {t['y_mm']:.0f})")
            continue
        distance, i = min(near)
        used.add(i)
        piece, unsure = found[i]
        result.position_errors_mm.append(distance)
        if unsure:
            if covered:
                result.covered_uncertain += 1
            else:
                result.uncertain += 1
                narrowed = ""
                if piece.could_be:
                    result.could_be += 1
                    among = label[1:] in {(side, suit.value if suit else None, rank)
                                          for suit, rank, side in piece.could_be}
                    result.could_be_true += int(among)
                    narrowed = f" (could be {_could_be_text(piece)}{'' if among else ': TRUTH NOT AMONG THEM'})"
                result.notes.append(f"uncertain {label}: {piece.reason}{narrowed}")
        elif piece_label(piece) == label:
            if not covered:
                result.correct += 1
        elif all(got is None or got == want for got, want in zip(piece_label(piece), label, strict=True)):
            if not covered:
                result.partial += 1
                result.notes.append(f"partial {label} read as {piece_label(piece)}")
        elif covered:
            result.covered_wrong += 1
            result.notes.append(f"WRONG (covered) {label} read as {piece_label(piece)}")
        else:
            result.wrong += 1
            result.notes.append(f"WRONG {label} read as {piece_label(piece)}")
    for i, (piece, unsure) in enumerate(found):
        if i not in used and not unsure:
            result.extra += 1
            result.notes.append(f"extra {piece_label(piece)} at ({piece.x_mm:.0f}, {piece.y_mm:.0f})")
    return result


# ------------------------------------------------------------------------------------------------------------
# Layouts for the tile and coin tests
# ------------------------------------------------------------------------------------------------------------
def board_frame(pieces: list, seed: int, edition: str = "default", camera: CameraSpec = GAME_CAMERA,
                lighting: Lighting | None = None, hands: tuple = (), table: str = "wood") -> Frame:
    """Any pieces on an A3 sheet under random room light (or ``lighting``)."""
    rng = np.random.default_rng([seed, 7])
    light = lighting if lighting is not None else Lighting.random(rng)
    scene = Scene(pieces=pieces, table=table, sheet="a3", edition=edition, hands=hands, lighting=light)
    return rendered(scene, camera, seed)


def tile_grid(seed: int, cols: int = 4, rows: int = 4, gap_mm: float = 0.0, angle_deg: float = 0.0,
              centre_mm: tuple[float, float] = (148.0, 220.0), nudge_mm: float = 0.3, turn_deg: float = 0.4,
              backs: int = 0) -> list:
    """Random tiles face up in a grid (touching with ``gap_mm`` 0, as in Slide Jam and Magic Mirror), the whole
    grid turned by ``angle_deg`` about its centre; the last ``backs`` tiles back side up."""
    from rules.pieces import SUITS

    rng = np.random.default_rng([seed, 3])
    faces = [(s, r) for s in SUITS for r in range(6)]
    chosen = [faces[i] for i in rng.permutation(len(faces))[: cols * rows]]
    pitch = 50.8 + gap_mm
    a = np.radians(angle_deg)
    pieces = []
    for k, (suit, rank) in enumerate(chosen):
        r, c = divmod(k, cols)
        u, v = (c - (cols - 1) / 2) * pitch, (r - (rows - 1) / 2) * pitch
        x = centre_mm[0] + u * np.cos(a) - v * np.sin(a) + rng.normal(0, nudge_mm)
        y = centre_mm[1] + u * np.sin(a) + v * np.cos(a) + rng.normal(0, nudge_mm)
        side = "back" if k >= cols * rows - backs else "face"
        pieces.append(TilePiece(suit, rank, side, float(x), float(y), float(angle_deg + rng.normal(0, turn_deg))))
    return pieces


def first_teach_pieces(edition: str = "default", seed: int = 1) -> list:
    """The pieces of the first teach photo (T, V, P, D), to alter for the refusal tests."""
    pieces = teach_layout(origin_mm=TEACH_ORIGIN, rng=seed, edition=edition)
    return [p for p in pieces if not (isinstance(p, CoinPiece) and p.side == "suit")]


def teach_frame(pieces: list, edition: str = "default", seed: int = 1) -> Frame:
    """A teach photo of any pieces (the teach camera and light, an A4 sheet beside them)."""
    return rendered(Scene(pieces=pieces, table="wood", sheet="a4", edition=edition, lighting=Lighting()),
                    TEACH_CAMERA, seed)


# ------------------------------------------------------------------------------------------------------------
# Scene families of the benchmark (and a few tests): one frame per seed, any edition
# ------------------------------------------------------------------------------------------------------------
def coin_grid_frame(seed: int, edition: str = "default", die: bool = True, suit_share: float = 0.3) -> Frame:
    """Roll Out the Barrels / Whack-a-Dummy: the 24 coins in a grid 4 wide by 6 high (no tiles), about
    ``suit_share`` of them suit side up, the die on one coin (``die``)."""
    from tablescene import DiePiece, coin_grid

    from rules.pieces import SUITS

    rng = np.random.default_rng([seed, 11])
    coins = [(SUITS[i // 6], i % 6) for i in rng.permutation(24)]
    pieces = coin_grid(coins, (110.0, 140.0), 4, rng=rng, edition=None)
    flip = rng.random(len(pieces)) < suit_share
    pieces = [p.moved(side="suit") if f else p for p, f in zip(pieces, flip, strict=True)]
    if die:
        under = pieces[int(rng.integers(len(pieces)))]
        pieces.append(DiePiece(SUITS[int(rng.integers(4))], int(rng.integers(6)), under.x_mm, under.y_mm,
                               float(rng.uniform(0, 90))))
    return board_frame(pieces, seed, edition=edition)


def tile_block_frame(seed: int, edition: str = "default") -> Frame:
    """Slides / Plans of Action: a block of 2x2 (even seeds) or 4x4 tiles back side up, with coins on some of
    their cells (mostly suit side up)."""
    from tablescene import tile_block

    from rules.pieces import SUITS

    rng = np.random.default_rng([seed, 13])
    across = 2 if seed % 2 == 0 else 4
    cells = [(c, r) for c in range(2 * across) for r in range(2 * across)]
    count = int(rng.integers(3, 7)) if across == 2 else int(rng.integers(6, 13))
    chosen = [cells[i] for i in rng.choice(len(cells), count, replace=False)]
    faces = [(s, r) for s in SUITS for r in range(6)]
    picks = rng.choice(len(faces), count, replace=False)
    coins = {cell: (*faces[k], "suit" if rng.random() < 0.75 else "value") for cell, k in zip(chosen, picks,
                                                                                             strict=True)}
    origin = (148.0 - across * 51.8 / 2, 215.0 - across * 51.8 / 2)
    return board_frame(tile_block(across, origin, coins, rng=rng), seed, edition=edition)


def slide_jam_frame(seed: int, edition: str = "default") -> Frame:
    """Slide Jam: tiles face up touching in a grid 4 wide by 6 high, a few already popped off (holes)."""
    rng = np.random.default_rng([seed, 17])
    pieces = tile_grid(seed, 4, 6, gap_mm=0.0, centre_mm=(148.0, 215.0))
    holes = rng.choice(len(pieces), int(rng.integers(0, 5)), replace=False)
    pieces = [p for i, p in enumerate(pieces) if i not in set(holes.tolist())]
    return board_frame(pieces, seed, edition=edition)


_code_digest()  # now, with the modules as imported (see _code_digest)


@lru_cache(maxsize=1)
def searched_tile_batches() -> list:
    """(wide crops, margin, args, kwargs) of every tile batch Easy Slider board 505's detect (default set, tiles)
    reads with a margin: real crops the tile search works on, for the tile reader's speed tests."""
    from calibration.profile import default_profile
    from calibration.table_calibration import calibrate_from_sheet
    from vision import Detector
    from vision.classify import TileReader

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
