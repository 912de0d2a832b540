"""The statistics every part reports the same way."""

import numpy as np


def median(values):
    """The median of ``values`` (the mean of the middle two where their count is even), or None for none."""
    values = np.asarray(values, dtype=np.float64)
    return float(np.median(values)) if values.size else None
