"""Measures of communication: collectives and their kernels, their overlap with computation, the ranks of a job."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from profguide.site.measures import (
    Event,
    LeastOrMost,
    NamePart,
)
from profguide.site.measures.results import from_results
from profguide.site.recordings import Measure

if TYPE_CHECKING:
    from profguide.site.recordings import Run

CallRow = dict[str, Any]  # a row of ``profguide.analysis.collectives.communication_by_call``


def communication_share(run: Run, part_of: Callable[[CallRow], bool],
                        among: Callable[[CallRow], bool] = lambda _row: True) -> float | None:
    """The share of the communication kernels' time in the rows (by call and kernel name) that ``among`` picks
    (all by default) that is in the rows ``part_of`` picks; the join of kernel to call reads the events'
    correlation ids."""
    from profguide.analysis.collectives import communication_by_call

    rows = [row for row in communication_by_call(run.trace) if among(row)]
    total = sum(row["us"] for row in rows)
    return sum(row["us"] for row in rows if part_of(row)) / total if total else None


@dataclass(frozen=True)
class CommunicationHidden(Measure):
    """The share of the communication kernels' time that overlaps computation kernels, over the whole trace; with
    ``kernels``, of the communication kernels whose names hold it alone (``AllReduce``)."""

    kernels: NamePart = ""

    def describe(self) -> str:
        which = f"communication kernels named *{self.kernels}*" if self.kernels else "communication"
        return f"{which} overlapping computation / {which}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.communication import communication

        share = communication(run.trace, named=self.kernels)["overlap_pct"]
        return None if share is None else share / 100


@dataclass(frozen=True)
class CommunicationExposed(Measure):
    """Exposed communication over a step's window, for the step where it is smallest or largest
    (``which``: "least" or "most"), among the steps with communication."""

    which: LeastOrMost

    def describe(self) -> str:
        return f"exposed communication / step window, the step with the {self.which}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.communication import step_communication

        shares = [row["exposed_us"] / row["window_us"] for row in step_communication(run.trace)
                  if row["overlapped_us"] + row["exposed_us"] > 0 and row["window_us"] > 0]
        if not shares:
            return None
        return min(shares) if self.which == "least" else max(shares)


@dataclass(frozen=True)
class BackendOutsideCall(Measure):
    """The share of rank 0's backend ops of ``collective`` (``gloo:all_reduce``…) that run outside the
    ``c10d::`` call that asked for them, on another thread."""

    collective: NamePart = "all_reduce"

    def describe(self) -> str:
        return f"backend {self.collective} ops outside their c10d call / all"

    def value(self, run: Run) -> float | None:
        from profguide.analysis import collectives

        return collectives.outside_calls_share(run.trace, self.collective)


@dataclass(frozen=True)
class EnclosedShare(Measure):
    """The share of rank 0's ``inner`` events that an event whose name holds ``outer`` encloses, on one thread."""

    inner: Event
    outer: NamePart

    def describe(self) -> str:
        return f"{self.inner} inside *{self.outer}* / all {self.inner}"

    def value(self, run: Run) -> float | None:
        from profguide.analysis import collectives

        return collectives.inside_share(run.trace, self.inner, self.outer)


@dataclass(frozen=True)
class CollectivesPerStep(Measure):
    """The fewest backend ops of ``collective`` that start in any one ``ProfilerStep`` of rank 0."""

    collective: NamePart = "all_reduce"

    def describe(self) -> str:
        return f"fewest {self.collective} ops in a ProfilerStep"

    def value(self, run: Run) -> float | None:
        from profguide.analysis import collectives

        return collectives.fewest_per_step(run.trace, self.collective)


@dataclass(frozen=True)
class CommStreamShare(Measure):
    """Of the kernel time on the streams that run NCCL kernels, the share that is NCCL kernels."""

    def describe(self) -> str:
        return "NCCL kernel time / all kernel time on NCCL's streams"

    def value(self, run: Run) -> float | None:
        from profguide.analysis import collectives

        return collectives.comm_stream_share(run.trace)


@dataclass(frozen=True)
class StragglerIs(Measure):
    """1 when the straggler of the recording's ranks (``profguide explain DIR``'s) is rank ``rank``, else 0."""

    rank: int

    def describe(self) -> str:
        return f"the straggler is rank {self.rank} (1 yes, 0 no)"

    def value(self, run: Run) -> float | None:
        job = run.job
        if job is None or job["straggler"] is None:
            return None
        return 1.0 if job["ranks"][job["straggler"]]["rank"] == self.rank else 0.0


@dataclass(frozen=True)
class StragglerWait(Measure):
    """The longest time another rank waited for the straggler in their collectives, over that rank's window
    (``profguide explain DIR``'s)."""

    def describe(self) -> str:
        return "longest wait for the straggler / that rank's window"

    def value(self, run: Run) -> float | None:
        job = run.job
        shares = [row["wait_pct"] for row in (job["ranks"] if job else []) if row["wait_pct"] is not None]
        return max(shares) / 100 if job and job["straggler"] is not None and shares else None


@dataclass(frozen=True)
class RanksLineUp(Measure):
    """1 when the ranks' collectives, matched by name, stream and order, end together on every rank (up to
    each rank's clock offset), else 0: sampled or unlike traces do not line up."""

    def describe(self) -> str:
        return "the ranks' matched collectives end together (1 yes, 0 no)"

    def value(self, run: Run) -> float | None:
        job = run.job
        return None if job is None or not job["shared_collectives"] else 0.0 if job["strays"] else 1.0


@dataclass(frozen=True)
class RanksNamed(Measure):
    """The share of the recording's rank traces whose ``distributedInfo`` names their own rank and the job's size."""

    def describe(self) -> str:
        return "rank traces whose distributedInfo names their rank and the world size / all"

    def value(self, run: Run) -> float | None:
        from profguide.analysis.collectives import ranks_named_in

        return ranks_named_in(run.traces)


@dataclass(frozen=True)
class CommunicationByCall(Measure):
    """The share of the communication kernels' time, added one by one, that the backend op ``call``
    (``nccl:all_reduce``) launched, joined by correlation whatever the kernels' names
    (``profguide.analysis.collectives.communication_by_call``)."""

    call: Event

    def describe(self) -> str:
        return f"communication kernel time launched by {self.call} / all communication kernel time"

    def value(self, run: Run) -> float | None:
        return communication_share(run, lambda row: row["call"] == self.call)


@dataclass(frozen=True)
class CommunicationKernelNamed(Measure):
    """The share of the communication kernels' time, added one by one, of the kernels whose name holds
    ``contains``; with ``call``, among the kernels that the backend op ``call`` launched alone (joined as
    ``CommunicationByCall`` joins them)."""

    contains: NamePart
    call: Event = ""

    def describe(self) -> str:
        among = f"communication kernel time launched by {self.call}" if self.call else "all communication kernel time"
        return f"time of communication kernels named *{self.contains}* / {among}"

    def value(self, run: Run) -> float | None:
        return communication_share(run, lambda row: self.contains in row["kernel"],
                                   lambda row: not self.call or row["call"] == self.call)


@dataclass(frozen=True)
class LargestBucketShare(Measure):
    """The largest ``all_reduce`` of a ``ProfilerStep`` over the bytes all the step's all-reduces carried, in
    the step where that share is least (``profguide.analysis.collectives.step_buckets``)."""

    def describe(self) -> str:
        return "bytes of a step's largest all_reduce / all its all_reduces' bytes, least over the steps"

    def value(self, run: Run) -> float | None:
        from profguide.analysis import collectives

        shares = []
        for row in collectives.step_buckets(run.trace):
            known = [size for size in row["sizes"] if size]
            if known:
                shares.append(max(known) / sum(known))
        return min(shares, default=None)


@dataclass(frozen=True)
class LastCollective(Measure):
    """The number of the last collective in rank ``rank``'s flight recorder (``results.json``: ``{"ranks":
    [[{"seq": …, "name": …}, …], …]}``, each rank's collectives in order)."""

    rank: int

    def describe(self) -> str:
        return f"the last collective in rank {self.rank}'s flight recorder"

    def value(self, run: Run) -> float | None:
        last: float | None = from_results(run, "ranks", self.rank, read=lambda buffer: float(
            max(entry["seq"] for entry in buffer)) if buffer else None)
        return last
