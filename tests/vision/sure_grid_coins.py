"""A default coin grid's coins read surely in a suit, cropped as the detector crops them: the references the
coin-ink tests read each coin again from (test_coin_ink_frame by its rim colour, test_coin_ink_lab by its ring)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from detect_scenes import Frame, coin_grid_frame

from calibration.profile import COIN_CROP_MM, COIN_CROP_PX, default_profile
from calibration.table_calibration import calibrate_from_sheet
from vision.crops import sample_crops
from vision.detect import Detector


@dataclass(frozen=True)
class SureGridCoins:
    """The frame, its sure suited coins that are not value-side nulls (detected, coins only), and their crops
    (uint8 BGR, COIN_CROP_PX square over COIN_CROP_MM, in the order of ``coins``)."""

    frame: Frame
    coins: list
    crops: np.ndarray

    def truth_of(self, coin) -> dict:
        """The frame's true coin nearest ``coin`` (by its table position, mm)."""
        return min(self.frame.of_kind("coin"), key=lambda t: np.hypot(t["x_mm"] - coin.x_mm, t["y_mm"] - coin.y_mm))


def sure_grid_coins(seed: int) -> SureGridCoins:
    """Default coin grid ``seed`` detected with the built-in default profile (coins only); the coins read surely in a
    suit, blank nulls left out (their suits are what the tests read), and their crops at each coin's top height."""
    frame = coin_grid_frame(seed, edition="default")
    calibration = calibrate_from_sheet(frame.image)
    profile = default_profile()
    coins = [p for p in Detector(calibration, profile).detect(frame.image, kinds=("coin",)).pieces
             if not p.uncertain and p.suit is not None and not (p.side == "value" and p.rank == 0)]
    crops = sample_crops(frame.image, calibration, np.array([[c.x_mm, c.y_mm] for c in coins]), np.zeros(len(coins)),
                         np.array([c.height_mm + profile.coin_thickness_mm for c in coins]), COIN_CROP_MM,
                         COIN_CROP_PX)
    return SureGridCoins(frame, coins, crops)
