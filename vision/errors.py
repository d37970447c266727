"""Errors about frames and frame sources. Messages are one line and say what to do."""


class VisionError(ValueError):
    """An unreadable or empty image, a camera that cannot be opened, a frame that cannot be read."""


class CameraLost(VisionError):
    """A live camera stopped delivering frames after a few retries; the caller may ``reopen()`` the source."""
