"""Loads the trained injection detector's weights shipped in the wheel (shell: reads data).

Only the judge's shell calls this, so a run without a judge never reads the weights or imports
the detector. The weights file is versioned with `detector.DETECTOR_VERSION`, which is part of
the judge's cache key.
"""

from __future__ import annotations

import functools
from importlib import resources

from rubricate.judge.detector import Detector

WEIGHTS = "injection_detector.bin"


@functools.cache
def load_detector() -> Detector:
    """The shipped detector (read once per process)."""
    data = resources.files("rubricate.judge").joinpath(WEIGHTS).read_bytes()
    return Detector.from_bytes(data)
