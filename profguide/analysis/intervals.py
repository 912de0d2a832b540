"""Interval arithmetic over numpy arrays of starts and ends (µs): unions, clipping, coverage."""

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]  # times or durations, µs
Intervals = tuple[Floats, Floats]  # (starts, ends)
Window = tuple[float, float]  # (start, end) on the trace's clock
Mask = npt.NDArray[np.bool_]  # one entry per event (or per time)
EVERYTHING: Window = (-np.inf, np.inf)  # the window of a whole trace


def merge(starts: Floats, ends: Floats) -> Intervals:
    """The union of intervals as sorted, disjoint (starts, ends) arrays."""
    if not len(starts):
        return np.empty(0), np.empty(0)
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], np.maximum.accumulate(ends[order])
    new_run = np.ones(len(starts), dtype=bool)
    new_run[1:] = starts[1:] > ends[:-1]
    run_ends = np.append(np.flatnonzero(new_run)[1:] - 1, len(starts) - 1)
    return starts[new_run], ends[run_ends]


def clip(starts: Floats, ends: Floats, window: Window) -> Intervals:
    """Intervals cut to the window, empty ones dropped."""
    starts, ends = np.maximum(starts, window[0]), np.minimum(ends, window[1])
    keep = ends > starts
    return starts[keep], ends[keep]


def clip_each(starts: Floats, ends: Floats, window: Window) -> Intervals:
    """Each interval cut to the window, one for one (an interval outside it becomes empty, start == end)."""
    starts = np.clip(starts, window[0], window[1])
    return starts, np.clip(ends, starts, window[1])


def starts_in(times: Floats, window: Window) -> Mask:
    """Which times fall in [start, end) of the window."""
    return (times >= window[0]) & (times < window[1])


def union_length(starts: npt.ArrayLike, ends: npt.ArrayLike) -> float:
    merged_starts, merged_ends = merge(np.asarray(starts, float), np.asarray(ends, float))
    return float((merged_ends - merged_starts).sum())


def covered(busy: Intervals, starts: Floats, ends: Floats) -> Floats:
    """Length of the merged ``busy`` intervals inside each [start, end]."""
    busy_starts, busy_ends = busy
    if not len(busy_starts):
        return np.zeros(len(starts))
    done_before = np.concatenate(([0.0], np.cumsum(busy_ends - busy_starts)))  # busy time of the first k intervals

    def busy_until(times: Floats) -> Floats:
        started = np.searchsorted(busy_starts, times, side="right")
        last = np.maximum(started - 1, 0)
        still_ahead = np.where(started > 0, np.maximum(busy_ends[last] - times, 0), 0)
        return done_before[started] - still_ahead

    return busy_until(np.asarray(ends, float)) - busy_until(np.asarray(starts, float))


def inside_any(starts: Floats, ends: Floats, times: Floats) -> Mask:
    """For each time, whether it falls inside one of the intervals [start, end]."""
    if not len(starts):
        return np.zeros(len(times), dtype=bool)
    order = np.argsort(starts, kind="stable")
    reach = np.maximum.accumulate(np.asarray(ends)[order])  # furthest end among intervals started so far
    position = np.searchsorted(np.asarray(starts)[order], times, side="right") - 1
    return (position >= 0) & (reach[np.maximum(position, 0)] >= times)
