"""A piecepack holds one tile of each face: two tiles read surely as the same face are doubted (vision.detect)."""

from __future__ import annotations

import math

from detect_scenes import slide_jam_frame, taught_profile

from calibration.table_calibration import calibrate_from_sheet
from vision.detect import Detector


def test_a_face_read_twice_is_doubted_where_the_other_reads_surely():
    """Bold Slide Jam seed 1260 (bench_detect's boards at --seed-offset 60): an arms 4 read surely as the arms ace
    (confidence 0.96) beside the real arms ace (1.0). The weaker reading is made uncertain; no tile is sure and
    wrong, and the real ace stays sure."""
    frame = slide_jam_frame(1260, edition="bold")
    detection = Detector(calibrate_from_sheet(frame.image), taught_profile("bold")).detect(frame.image, ("tile",))
    truth = [t for t in frame.truth if t["kind"] == "tile"]
    wrong = []
    for piece in detection.pieces:
        if piece.kind.value != "tile":
            continue
        t = min(truth, key=lambda t: math.hypot(t["x_mm"] - piece.x_mm, t["y_mm"] - piece.y_mm))
        if (piece.side, piece.suit and piece.suit.value, piece.rank) != (t["side"], t["suit"], t["rank"]):
            wrong.append((t["suit"], t["rank"], piece.suit, piece.rank))
    assert wrong == []
    doubted = [p for p in detection.uncertain if "same face" in (p.reason or "")]
    assert len(doubted) == 1
    aces = [p for p in detection.pieces if p.kind.value == "tile" and p.suit is not None
            and p.suit.value == "arms" and p.rank == 1]
    assert len(aces) == 1
