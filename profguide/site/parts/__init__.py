"""The guide's recordings and the real traces its pages show: one module for each page that has any, named after
it (``docs/reading-output/gpu-waits.md`` → ``reading_output/gpu_waits.py``), which says ``PAGE``, the page it is
of, and holds ``RECORDINGS`` and ``REAL_TRACES`` (standard library only). ``profguide.site.catalogue`` finds them.

This package's own module holds the sources of the real traces that pages of several parts show.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from profguide.site.recordings import RealTrace

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11's: the checker's alone, the package runs on 3.10

    from profguide.site.recordings import Claim, Figure


class Source(TypedDict):
    """Who published a real trace, where, and under what licence: ``RealTrace``'s fields of the same names."""

    source: str
    source_url: str
    licence: str


class Bounds(TypedDict, total=False):
    """A claim's bounds, which several of a page's claims share: ``Claim``'s fields of the same names."""

    at_least: float
    at_most: float


class TraceFields(TypedDict, total=False):
    """What ``tracelens_trace`` passes on to ``RealTrace`` as given: its fields of the same names."""

    figure: Figure
    claims: tuple[Claim, ...]
    compared_with: str


# docs/traces/README.md: copies of HolisticTraceAnalysis's test data, MIT licence in docs/traces/LICENSE.
HTA: Source = {"source": "HolisticTraceAnalysis test data, commit f4d0062c",
       "source_url": "https://github.com/facebookresearch/HolisticTraceAnalysis/tree/f4d0062c",
       "licence": "MIT"}
# docs/traces/README.md: copies of TraceLens's test traces, MIT licence (AMD's notice) in docs/traces/LICENSE.
# TraceLens publishes them for testing and education, not as official performance numbers.
TRACELENS: Source = {"source": "TraceLens test traces, commit 171dd747",
             "source_url": "https://github.com/AMD-AGI/TraceLens/tree/171dd747",
             "licence": "MIT"}
# The TraceLens traces that several pages read, each as (file, title), by a short name (``tracelens_trace``).
TRACELENS_FILES = {
    "h100-bert": ("docs/traces/h100_bert_small_inference.json.gz",
                  "BERT-small fill-mask inference on an H100, one sequence of 141 tokens, bf16"),
    "h100-qwen": ("docs/traces/h100_qwen1.5_0.5b_inference.json.gz",
                  "Qwen1.5-0.5B-Chat inference on an H100, 16 sequences of 559 tokens, bf16"),
    "b200-vllm": ("docs/traces/b200_vllm_moe_tp8_rank0.json.gz",
                  "vLLM serving a mixture-of-experts model on a B200, rank 0 of tensor parallel 8: one prefill step "
                  "of one request"),
}


def tracelens_trace(trace_id: str, which: str, **fields: Unpack[TraceFields]) -> RealTrace:
    """A RealTrace of one of the TraceLens traces (``TRACELENS_FILES``), with their source and licence; ``fields``
    are its figure, claims and the run it is compared with."""
    file, title = TRACELENS_FILES[which]
    return RealTrace(id=trace_id, file=file, title=title, **TRACELENS, **fields)
