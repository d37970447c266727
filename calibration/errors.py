"""Errors about calibration files, calibration images and piece-set profiles. Messages are one line."""


class CalibrationError(ValueError):
    """A missing, corrupt or mismatched calibration or profile; the message says what to do."""
