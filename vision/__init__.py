"""Frames -> pieces: frame sources, segmentation, detectors, classifiers, grid fitting.

``vision.detect_pieces(image, calibration, profile=None, *, kinds=None) -> Detection`` and ``vision.Detector``
(keep one to follow a game: it precomputes what depends only on the calibration) are imported on first use,
so that ``import vision.sources`` stays light.
"""

from __future__ import annotations

from typing import Any

__all__ = ["detect_pieces", "Detector"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from vision import detect

        return getattr(detect, name)
    raise AttributeError(f"module 'vision' has no attribute {name!r}")
