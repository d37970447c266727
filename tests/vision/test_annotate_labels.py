"""The annotated image's labels: sized to the frame, and shrunk to about their piece's width where pieces are small
in the picture, so a grid of coins 6 mm apart shows each coin's label over its own coin, not over its neighbours'."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np

from rules.pieces import Kind, Suit
from vision.annotate import LABEL_WIDTH_OF_PIECE, annotate, label_scale
from vision.pieces import DetectedPiece, Detection

_FONT = cv2.FONT_HERSHEY_SIMPLEX


def _width(text: str, scale: float) -> int:
    return cv2.getTextSize(text, _FONT, scale, max(1, int(round(scale * 2))))[0][0]


def test_a_label_keeps_the_frames_size_where_it_fits_and_shrinks_where_it_does_not():
    assert label_scale("coin 3", 0.45, 500.0) == 0.45
    small = label_scale("coin null", 0.45, 44.0)
    assert small < 0.45 and _width("coin null", small) <= 44
    # never below the smallest legible size, however narrow the piece
    assert label_scale("? face unclear", 0.45, 5.0) == 0.27


def _coin(x_px: float, y_px: float, radius_px: float, rank: int) -> DetectedPiece:
    a = np.linspace(0, 2 * math.pi, 24, endpoint=False)
    ring = np.column_stack([x_px + radius_px * np.cos(a), y_px + radius_px * np.sin(a)])
    return DetectedPiece(Kind.COIN, 0.0, 0.0, suit=Suit("moons"), rank=rank, side="value", outline_px=ring)


def test_a_row_of_small_coins_shows_labels_that_do_not_run_into_each_other():
    """Four coins 40 px across, 50 px apart, in a 1640x1232 frame (a coin grid seen from 80 cm): each "coin null"
    label's dark box stays within 1.1 coin widths of its coin, so neighbouring labels do not overlap."""
    image = np.full((1232, 1640, 3), 200, np.uint8)
    coins = [_coin(400 + 50 * k, 600, 20, 0) for k in range(4)]
    drawn = annotate(image, Detection(coins, [], (1640, 1232)))
    band = drawn[585:615]
    dark = np.all(band == 20, axis=2).any(axis=0)  # the labels' boxes are filled with (20, 20, 20)
    columns = np.flatnonzero(dark)
    runs = np.split(columns, np.flatnonzero(np.diff(columns) > 1) + 1)
    assert len(runs) == 4, [(r[0], r[-1]) for r in runs]  # four separate boxes: none runs into the next
    for run, centre in zip(runs, (400, 450, 500, 550), strict=True):
        assert abs((run[0] + run[-1]) / 2 - centre) <= 2
        assert len(run) <= LABEL_WIDTH_OF_PIECE * 40 + 6  # the box pads the text by 2 px a side


def test_a_value_side_coin_names_its_suit_where_the_reader_knows_it():
    """`tableside detect` lists pieces by label: a value side printed in its suit's colour is read with its suit,
    and a player checks that against the coin (an edition printing values in black leaves the suit unknown)."""
    coin = _coin(0, 0, 20, 4)
    assert coin.label == "coin 4 moons"
    assert DetectedPiece(Kind.COIN, 0.0, 0.0, rank=0, side="value").label == "coin null"
    assert DetectedPiece(Kind.COIN, 0.0, 0.0, suit=Suit("arms"), side="suit").label == "coin arms"


def test_the_image_labels_a_coin_without_the_word_coin():
    """The circle says it is a coin: "null moons" over a 40 px coin, the frame's text kept for the reading."""
    image = np.full((400, 400, 3), 200, np.uint8)
    drawn = annotate(image, Detection([_coin(200, 200, 20, 0)], [], (400, 400)))
    expected = image.copy()
    scale = label_scale("null moons", max(0.3, min(1.0, 400 / 3600)), LABEL_WIDTH_OF_PIECE * 40)
    assert _width("null moons", scale) <= LABEL_WIDTH_OF_PIECE * 40
    box = np.all(drawn[185:215] == 20, axis=2).any(axis=0)
    assert np.count_nonzero(box) <= _width("null moons", scale) + 6
    assert not np.array_equal(drawn, expected)


def test_an_uncertain_coin_shows_the_readings_it_is_open_between():
    """A classic coin twin: "? suns / ace" tells the player what to check, where "face unclear" does not."""
    from vision.annotate import _reading_text

    suns = Suit("suns")
    assert _reading_text(Kind.COIN, suns, None, "suit") == "suns"
    assert _reading_text(Kind.COIN, suns, 1, "value") == "ace"
    assert _reading_text(Kind.TILE, suns, 4, "face") == "4 suns"
    assert _reading_text(Kind.TILE, None, None, "back") == "back"
    image = np.full((400, 400, 3), 200, np.uint8)
    twin = replace(_coin(200, 200, 60, 1), uncertain=True, reason="face unclear",
                   could_be=((suns, None, "suit"), (suns, 1, "value")))
    open_text = annotate(image, Detection([], [twin], (400, 400)))
    plain_text = annotate(image, Detection([], [replace(twin, could_be=())], (400, 400)))
    band = slice(185, 215)
    width_open = np.count_nonzero(np.all(open_text[band] == 20, axis=2).any(axis=0))
    width_plain = np.count_nonzero(np.all(plain_text[band] == 20, axis=2).any(axis=0))
    scale = max(0.3, min(1.0, 400 / 3600))
    assert abs(width_open - (_width("? suns / ace", label_scale("? suns / ace", scale, 132)) + 4)) <= 2
    assert abs(width_plain - (_width("? face unclear", label_scale("? face unclear", scale, 132)) + 4)) <= 2
