"""tableside.frame_input: the ``detect --json`` form of the pieces read back (``--detections``) as it was printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules.pieces import Kind, PyramidPose, PyramidSize, Suit
from tableside.errors import UserError
from tableside.frame_input import detection_from_json
from vision.pieces import DetectedPiece, Detection


def test_detections_read_back_as_detect_printed_them(tmp_path: Path) -> None:
    pieces = [DetectedPiece(Kind.TILE, 10.0, 20.0, 90.0, 0.97, Suit.ARMS, 5, "face"),
              DetectedPiece(Kind.COIN, 30.5, 40.25, 0.0, 1.0, None, 3, "value", height_mm=1.5),
              DetectedPiece(Kind.PYRAMID, 100.0, 50.0, 12.5, 0.9, color="red", size=PyramidSize.LARGE,
                            pose=PyramidPose.UPRIGHT)]
    uncertain = [DetectedPiece(Kind.COIN, 60.0, 70.0, 0.0, 0.4, Suit.SUNS, None, None, uncertain=True,
                               reason="face unclear",
                               could_be=((Suit.SUNS, 1, "value"), (Suit.SUNS, None, "suit"))),
                 DetectedPiece(Kind.TILE, 80.0, 70.0, 0.0, 0.3, uncertain=True, reason="partly hidden")]
    printed = Detection(pieces, uncertain, (1640, 1232)).to_json()
    path = tmp_path / "seen.json"
    path.write_text(json.dumps(printed), encoding="utf-8")
    back = detection_from_json(path)
    assert back.to_json() == printed
    coin = back.uncertain[0]
    assert coin.uncertain and coin.reason == "face unclear"
    assert coin.could_be == ((Suit.SUNS, 1, "value"), (Suit.SUNS, None, "suit"))
    assert back.uncertain[1].could_be == ()
    assert back.pieces[1].rank == 3 and back.pieces[1].suit is None


def test_detections_that_are_not_pieces_are_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "seen.json"
    path.write_text(json.dumps({"pieces": [{"kind": "coin", "x_mm": 1, "y_mm": 2,
                                            "could_be": [{"suit": "stars", "rank": 1, "side": "value"}]}]}))
    with pytest.raises(UserError, match="does not hold pieces"):
        detection_from_json(path)
