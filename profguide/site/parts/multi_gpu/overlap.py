"""The real traces of Part 3's page "Communication against computation": NCCL jobs on A100s."""

from __future__ import annotations

from typing import TYPE_CHECKING

from profguide.site.measures.communication import (
    CollectivesPerStep,
    CommunicationByCall,
    CommunicationExposed,
    CommunicationHidden,
    CommunicationKernelNamed,
    EnclosedShare,
    LargestBucketShare,
)
from profguide.site.measures.summary import IdleShare
from profguide.site.parts import HTA
from profguide.site.recordings import Claim, Figure, RealTrace

if TYPE_CHECKING:
    from profguide.site.fragment_run import Maker
    from profguide.site.recordings import Run

PAGE = "multi-gpu/overlap.md"

REAL_TRACES = (
    RealTrace(
        id="multigpu-a100-2rank-overlap",
        file="docs/traces/a100_nccl_2rank_rank0.json.gz",
        title="A data-parallel training job on two A100s, rank 0",
        **HTA,
        figure=Figure(step=5, highlight=("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, "
                                         "ncclWork*)",)),
        claims=(
            Claim(PAGE, "less than a fifth of the all-reduce kernels' time is hidden behind computation",
                  CommunicationHidden("ncclKernel_AllReduce"), at_least=0.1, at_most=0.2),
            Claim(PAGE, "exposed communication takes less than a tenth of every step's window",
                  CommunicationExposed("most"), at_least=0.05, at_most=0.1),
            Claim(PAGE, "From the GPU's first kernel to its last, the GPU spends most of the time waiting for the host "
                  "to launch the next one", IdleShare("host"), at_least=0.5, at_most=0.9),
            Claim(PAGE, "every kernel that `nccl:all_reduce` launched is an `ncclKernel_AllReduce_…`",
                  CommunicationKernelNamed("ncclKernel_AllReduce", "nccl:all_reduce"), at_least=1, at_most=1),
        ),
    ),
    RealTrace(
        id="multigpu-a100-16rank-overlap",
        file="docs/traces/a100_80gb_nccl_16rank_rank0.json.gz",
        title="A training job on sixteen A100-80GBs, rank 0",
        **HTA,
        claims=(
            Claim(PAGE, "almost none of its communication overlaps computation", CommunicationHidden(),
                  at_least=0, at_most=0.05),
            Claim(PAGE, "exposed communication takes more than a tenth of every step's window",
                  CommunicationExposed("least"), at_least=0.1, at_most=0.2),
            Claim(PAGE, "every communication kernel in it is an `ncclKernel_SendRecv`",
                  CommunicationKernelNamed("ncclKernel_SendRecv"), at_least=1, at_most=1),
            # NCCL's kernels named for a point-to-point exchange, though the calls were collectives.
            *(Claim(PAGE, words, CommunicationKernelNamed("ncclKernel_SendRecv", call), at_least=1, at_most=1)
              for words, call in (("even the kernels that its `nccl:all_reduce` launched are `ncclKernel_SendRecv`",
                                   "nccl:all_reduce"),
                                  ("and so are those of its all-gathers", "nccl:_all_gather_base"),
                                  ("and of its reduce-scatters", "nccl:_reduce_scatter_base"))),
            Claim(PAGE, "about two thirds of their time was launched by all-reduces",
                  CommunicationByCall("nccl:all_reduce"), at_least=0.6, at_most=0.75),
            Claim(PAGE, "about a sixth by all-to-alls", CommunicationByCall("nccl:all_to_all"), at_least=0.12,
                  at_most=0.2),
            Claim(PAGE, "each of its all-reduces is sent from inside an `AccumulateGrad`",
                  EnclosedShare("c10d::allreduce_", "AccumulateGrad"), at_least=1, at_most=1),
            Claim(PAGE, "Each step all-reduces its gradients in two buckets", CollectivesPerStep(), at_least=2,
                  at_most=2),
            Claim(PAGE, "the larger of the two carries nearly all of the bytes", LargestBucketShare(), at_least=0.9,
                  at_most=1),
        ),
    ),
)


# The fragments only this page's recordings give (the generic ones: profguide.site.fragments). Their imports
# are inside them: `profguide record` imports this module on a bare GPU machine, with the standard library only.


def communication_steps(data: Run) -> dict[str, str]:
    """Each step's window split into computation alone, communication hidden behind it, communication exposed
    and neither, with a sentence that gives the share hidden and the range of the share exposed."""
    from profguide.analysis.communication import communication, step_communication
    from profguide.figures import charts
    from profguide.render import fragments as render
    from profguide.site.fragment_run import FragmentError, source_note, svg_path

    rows = step_communication(data.trace)
    comm = [row for row in rows if row["overlapped_us"] + row["exposed_us"] > 0]
    if not comm:
        raise FragmentError("no step with communication kernels (NCCL, RCCL) in this trace")
    found = communication(data.trace)
    exposed = [row["exposed_us"] / row["window_us"] for row in comm]
    caption = (f"Each step's window, from its start until the GPU finished what it launched. Over the whole "
               f"trace, {found['overlap_pct']:.1f}% of the communication kernels' time was hidden behind "
               f"computation; exposed communication took {min(exposed):.1%} to {max(exposed):.1%} of a step.")
    return {"communication.svg": charts.communication_svg(rows),
            "communication.md": render.extra_figure_fragment(svg_path(data, "communication.svg"), caption)
            + source_note(data)}


def communication_calls(data: Run) -> dict[str, str]:
    """Rank 0's communication kernels by the collective whose backend op launched them and by kernel name, each
    with its kernels, their time added one by one and its share of all of it."""
    from profguide.analysis import collectives
    from profguide.site.fragment_run import FragmentError, source_note
    from profguide.text import code, code_cell, format_duration, kernel_name, markdown_table

    rows = collectives.communication_by_call(data.trace)
    total = sum(row["us"] for row in rows)
    if not total:
        raise FragmentError("no communication kernel (NCCL, RCCL) in this trace")
    table = markdown_table(("Launched by", "Kernel", "Kernels", "Time", "Share"),
                           [(code(row["call"]) if row["call"] else "no launch in the trace",
                             code_cell(kernel_name(row["kernel"])), f"{row['count']:,}", format_duration(row["us"]),
                             f"{row['us'] / total:.1%}") for row in rows], "llrrr")
    sentence = ("Each communication kernel is joined to the call that launched it: its correlation id leads to "
                "the launch call, and the backend op around that call on its thread names the collective. A "
                "kernel whose launch the trace does not hold was launched before the profiler started. Time: the "
                "kernels' durations added one by one.")
    return {"communication-calls.md": table + "\n" + sentence + "\n" + source_note(data)}


FRAGMENTS: dict[str, Maker] = {"communication.md": communication_steps, "communication-calls.md": communication_calls}
