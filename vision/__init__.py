"""Frames -> pieces: frame sources, segmentation, detectors, classifiers, grid fitting."""
