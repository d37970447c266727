"""Camera pixels -> table-plane millimetres: ArUco homography, lens model, parallax, units, piece-set profiles."""
