"""Measures of a serving engine's trace: its steps as the engine's own annotations name them
(``profguide.analysis.serving``), the verdict over each phase, the kernels' time by family, and what the host did
while the GPU waited."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from profguide.analysis.vocabulary import Activity, Engine, Phase, Verdict
from profguide.site.measures import KernelFamily, NamePart
from profguide.site.recordings import Measure

if TYPE_CHECKING:
    from profguide.analysis.summary import ServingPhase, ServingStep
    from profguide.site.recordings import Run

# What a serving step's annotation gives, as ``ServingStep`` holds it; "steps" counts the steps instead.
StepField = Literal["steps", "batch", "tokens", "prefill_requests", "decode_requests"]
PhaseOrAll = Literal[Phase, "all"]


def phase_steps(run: Run, phase: PhaseOrAll) -> list[ServingStep] | None:
    """The run's serving steps of ``phase`` (every step with "all"), or None when no engine's annotation names a
    step in its trace."""
    serving = run.summary["serving"]
    if serving is None:
        return None
    return [step for step in serving["steps"] if phase in ("all", step["phase"])]


def judged_phase(run: Run, phase: Phase) -> ServingPhase | None:
    """explain's verdict over the run's ``phase`` steps, or None when it has none."""
    serving = run.summary["serving"]
    return next((found for found in serving["phases"] if found["phase"] == phase), None) if serving else None


@dataclass(frozen=True)
class ServingEngineIs(Measure):
    """1 when the steps ``profguide explain`` finds are named by ``engine``'s annotations, 0 when by another
    engine's; None without any engine's steps."""

    engine: Engine

    def describe(self) -> str:
        return f"the steps are {self.engine}'s (1 yes, 0 no)"

    def value(self, run: Run) -> float | None:
        serving = run.summary["serving"]
        return None if serving is None else float(serving["engine"] == self.engine)


@dataclass(frozen=True)
class ServingSteps(Measure):
    """The serving steps of ``phase`` (every step with "all") that the engine's annotations name: how many
    (``steps``), or what their annotations give of ``field`` added up (None where one does not give it, or without
    steps)."""

    field: StepField = "steps"
    phase: PhaseOrAll = "all"

    def describe(self) -> str:
        steps = "serving steps" if self.phase == "all" else f"{self.phase} steps"
        return steps if self.field == "steps" else f"{self.field} over the {steps}, added"

    def value(self, run: Run) -> float | None:
        steps = phase_steps(run, self.phase)
        if steps is None:
            return None
        if self.field == "steps":
            return float(len(steps))
        given = [step[self.field] for step in steps]
        return None if not given or None in given else float(sum(value or 0 for value in given))


@dataclass(frozen=True)
class PhaseVerdictIs(Measure):
    """1 when ``profguide explain`` judges the ``phase`` steps ``verdict``, else 0; None without such steps."""

    phase: Phase
    verdict: Verdict

    def describe(self) -> str:
        return f"explain's verdict over the {self.phase} steps is {self.verdict} (1 yes, 0 no)"

    def value(self, run: Run) -> float | None:
        judged = judged_phase(run, self.phase)
        return None if judged is None else float(judged["verdict"] == self.verdict)


@dataclass(frozen=True)
class PhaseBusyShare(Measure):
    """The GPU's busy time over the span ``profguide explain`` judges the ``phase`` steps over (the GPU work they
    launched)."""

    phase: Phase

    def describe(self) -> str:
        return f"GPU busy time / the span of the {self.phase} steps' GPU work"

    def value(self, run: Run) -> float | None:
        judged = judged_phase(run, self.phase)
        return None if judged is None or judged["gpu_busy_pct"] is None else judged["gpu_busy_pct"] / 100


@dataclass(frozen=True)
class PhaseSpanOverSteps(Measure):
    """The span ``profguide explain`` judges the ``phase`` steps over (the GPU work they launched, first start to
    last end) over their annotations' own length on the host, added: above 1 when the GPU is still running a
    step's work after the host has closed its annotation."""

    phase: Phase

    def describe(self) -> str:
        return f"the {self.phase} steps' GPU span / their annotations' length on the host"

    def value(self, run: Run) -> float | None:
        judged, steps = judged_phase(run, self.phase), phase_steps(run, self.phase)
        host_us = sum(step["dur_us"] for step in steps or [])
        return None if judged is None or not host_us else judged["window"]["dur_us"] / host_us


@dataclass(frozen=True)
class FamilyTimeShare(Measure):
    """The kernels of ``family`` (``profguide.analysis.families``): their time over all the kernels' time, in the
    window ``profguide explain`` measures; 0 when none runs there, None without kernels."""

    family: KernelFamily

    def describe(self) -> str:
        return f"{self.family} kernel time / all kernel time, in explain's window"

    def value(self, run: Run) -> float | None:
        rows = run.summary["kernel_families"]
        if not rows:
            return None
        return next((row["share_pct"] / 100 for row in rows if row["family"] == self.family), 0.0)


@dataclass(frozen=True)
class WaitingHostShare(Measure):
    """The GPU's idle time while it waited for the host (to launch, or out of a synchronisation) and the host was
    in ``activity`` (a key of ``profguide.analysis.idle``'s host activities), over the window ``profguide explain``
    measures; None without GPU work."""

    activity: Activity

    def describe(self) -> str:
        return f"GPU idle waiting for the host while it was in {self.activity} / explain's window"

    def value(self, run: Run) -> float | None:
        idle, window = run.summary["idle"], run.summary["window"]
        if idle is None or window is None or not window["dur_us"]:
            return None
        found = idle["by_activity"].get(self.activity)
        return (found["idle_us"] if found else 0.0) / window["dur_us"]


@dataclass(frozen=True)
class KernelsNamed(Measure):
    """How many kernels run whose name holds ``contains``, as written: an engine's kernels are told apart by the
    names their libraries give them (``kernel_unified_attention_2d``, ``FmhaBatchPrefillWithPagedKVCache``)."""

    contains: NamePart

    def describe(self) -> str:
        return f"kernels named *{self.contains}*"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.kernels import kernel_rows_named

        return float(sum(row["count"] for row in kernel_rows_named(run.trace, self.contains)))
