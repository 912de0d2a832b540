"""The words for a fact that more than one output states, each written here once: ``explain``'s text and
Markdown, ``diff``, ``explain --ops`` and the site's fragments call these rather than word it again.

Standard library only, as ``profguide.text`` is: the site's parts modules call them on any machine.
"""

from collections.abc import Callable, Mapping
from typing import Any

from profguide.text import format_duration


def percent(value: float | None) -> str:
    """A percentage measured, or "n/a" where it could not be."""
    return "n/a" if value is None else f"{value:.1f}%"


def share(part: float, whole: float, missing: str = "n/a") -> str:
    """``part`` as a percentage of ``whole``; ``missing`` where there is no whole."""
    return percent(100 * part / whole) if whole else missing


def count_words(value: float) -> str:
    """A count that may be a mean or a median: whole where it is whole (8, not 8.0), else to one decimal."""
    return f"{value:,.0f}" if value == round(value) else f"{value:,.1f}"


def per_call(count: float, calls: int) -> str:
    """A count per call (``count_words``)."""
    return count_words(count / calls)


def seen_at(at_us: float | None, origin: float) -> str | None:
    """Where a finding looked, as a time from ``origin`` (the trace's first event); None where it names no time."""
    return None if at_us is None else format_duration(at_us - origin)


KERNEL_TIMES = ("mean", "p50", "p95", "max")  # a kernel row's durations, after its total


def kernel_times(row: Mapping[str, Any]) -> tuple[str, str, str, str]:
    """A top kernel's mean, p50, p95 and longest duration (``KERNEL_TIMES``)."""
    mean, p50, p95, longest = (format_duration(row[key]) for key in KERNEL_TIMES)
    return mean, p50, p95, longest


def tflops(value: float) -> str:
    """A matrix multiply's rate, achieved or the datasheet's peak."""
    return f"{value:.1f} TFLOP/s"


def peak_tflops(value: float) -> str:
    return f"{value:g} TFLOP/s"


def share_of_peak(pct: float) -> str:
    return f"{pct:.0f}%"


def longest_took(name: str, dur_us: float, shown: Callable[[str], str] = str) -> str:
    """'NAME, took 1.20 ms': the longest of some calls (a sync), its name as ``shown`` writes it."""
    return f"{shown(name)}, took {format_duration(dur_us)}"


def recorded_on(meta: Mapping[str, Any]) -> list[str]:
    """The machine and software a recording was made with, from its meta: device, torch, and CUDA where used."""
    return [meta["device_name"], f"torch {meta['torch']}", *([f"CUDA {meta['cuda']}"] if meta.get("cuda") else [])]
