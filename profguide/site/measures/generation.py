"""Measures of a generation swept over its sizes: what the snippet timed for each configuration of batch and
prompt (``results.json``: ``{"points": [{"batch", "prompt_tokens", "prefill_us", "decode_us"}, …]}``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from profguide.site.measures.results import from_results
from profguide.site.recordings import Measure

if TYPE_CHECKING:
    from profguide.site.recordings import Run

Phase = Literal["prefill", "decode"]
Per = Literal["step", "token"]


def swept_time(run: Run, phase: Phase, batch: int, prompt_tokens: int, per: Per) -> float | None:
    """The median time of ``phase`` (a whole prefill, or one decode step) that the sweep measured at ``batch`` and
    ``prompt_tokens``, or that time over the tokens it handled (a prefill: the batch's prompts; a decode step: one
    token a sequence); None where the sweep has no such configuration."""
    points = from_results(run, "points", read=list) or []
    point = next((point for point in points
                  if point.get("batch") == batch and point.get("prompt_tokens") == prompt_tokens), None)
    time = point.get(f"{phase}_us") if point else None
    if not isinstance(time, (int, float)):
        return None
    tokens = batch * prompt_tokens if phase == "prefill" else batch
    return float(time) / tokens if per == "token" else float(time)


@dataclass(frozen=True)
class SweptRatio(Measure):
    """The sweep's median ``phase`` at ``batch`` and ``prompt_tokens`` over its median ``other_phase`` at
    ``other_batch`` and ``other_prompt_tokens``, per step or per token (``swept_time``)."""

    phase: Phase
    batch: int
    prompt_tokens: int
    other_phase: Phase
    other_batch: int
    other_prompt_tokens: int
    per: Per = "step"

    def describe(self) -> str:
        return (f"swept {self.phase} at batch {self.batch}, prompt {self.prompt_tokens} / {self.other_phase} at "
                f"batch {self.other_batch}, prompt {self.other_prompt_tokens}, per {self.per}")

    def value(self, run: Run) -> float | None:
        part = swept_time(run, self.phase, self.batch, self.prompt_tokens, self.per)
        whole = swept_time(run, self.other_phase, self.other_batch, self.other_prompt_tokens, self.per)
        return part / whole if part is not None and whole else None
