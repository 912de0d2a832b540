"""The statistics every part reports the same way."""

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray


def median(values: Sequence[float] | NDArray[np.number[Any]]) -> float | None:
    """The median of ``values`` (the mean of the middle two where their count is even), or None for none."""
    array = np.asarray(values, dtype=np.float64)
    return float(np.median(array)) if array.size else None
