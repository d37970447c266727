"""Camera pixels -> table-plane millimetres: ArUco homography, lens model, parallax, units, piece-set profiles.

Modules (one idea each):

- :mod:`calibration.sheet` the printable ArUco sheet that defines the table frame (origin at its top-left corner,
  x right, y down, mm).
- :mod:`calibration.homography` finding the sheet's markers and fitting pixel -> mm homographies.
- :mod:`calibration.lens` ChArUco lens calibration, undistorting and distorting points.
- :mod:`calibration.sheet_distortion` barrel distortion (k1) estimated from the sheet alone.
- :mod:`calibration.parallax` the camera recovered from the homography; footprints of raised points.
- :mod:`calibration.table_calibration` :class:`Calibration` (``pixel_to_table``, ``table_to_pixel``,
  ``camera_position_mm``) and the ways to make one.
- :mod:`calibration.calibration_file` versioned JSON files (table.json, lens.json).
- :mod:`calibration.rectify` a top-down image of the table with a mm grid.
- :mod:`calibration.units` mm, inches and the Small height.
"""
