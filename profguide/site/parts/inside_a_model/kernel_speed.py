"""The real GPU traces of Part 5's page *Is this kernel fast?*: a GEMM of BERT-small worked out by hand on an H100,
the roofline of Qwen1.5-0.5B on an H100 and on an MI300X, the footprints of a B200's kernels, and two traces the
roofline says little of (an A100's recorded without shapes, an MI300X's whose GPU the trace does not name)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from profguide.site.measures.kernels import KernelFootprint, OccupancyLimit
from profguide.site.measures.roofline import FootprintNoted, FurthestBelow, HighestFraction, OpRoofline, RooflineShare
from profguide.site.parts import HTA, TRACELENS, tracelens_trace
from profguide.site.recordings import Claim, RealTrace
from profguide.site.recordings import exactly as exact_claim

if TYPE_CHECKING:
    from profguide.analysis.summary import RooflineRow
    from profguide.site.fragment_run import Maker
    from profguide.site.recordings import Run

PAGE = "inside-a-model/kernel-speed.md"
ADDMM = "aten::addmm"
# BERT-small's attention and feed-forward projections as the H100 trace writes their inputs: bias, mat1, mat2.
SQUARE_PROJECTION = "[[512], [141, 512], [512, 512], [], []]"
MM = "aten::mm"
QWEN_UP = "[[8944, 1024], [1024, 2816]]"  # Qwen's MLP: the 16 × 559 tokens times the gate (or up) weight
QWEN_GATED = "[[16, 559, 2816], [16, 559, 2816]]"  # SiLU(gate) × up, elementwise
FLASH_FORWARD = "aten::_flash_attention_forward"

exactly = partial(exact_claim, PAGE)  # exactly(words, measure, value, device=None): a claim of this page


def about(words: str, measure: OpRoofline | RooflineShare | HighestFraction, at_least: float,
          at_most: float) -> Claim:
    return Claim(PAGE, words, measure, at_least=at_least, at_most=at_most)


REAL_TRACES = (
    tracelens_trace("speed-h100-bert", "h100-bert", claims=(
        exactly("holds seventeen calls of it", OpRoofline(ADDMM, "calls", SQUARE_PROJECTION), 17),
        about("about 91 FLOPs for each byte", OpRoofline(ADDMM, "intensity", SQUARE_PROJECTION), 90, 92),
        about("The H100's ridge for BF16 work on its tensor cores is about 295 FLOP/byte",
              OpRoofline(ADDMM, "ridge", SQUARE_PROJECTION), 290, 300),
        exactly("so this GEMM is memory-bound", OpRoofline(ADDMM, "memory-bound", SQUARE_PROJECTION), 1),
        about("it reaches under a twentieth of that roof", OpRoofline(ADDMM, "fraction", SQUARE_PROJECTION), 0, 0.05),
        exactly("Every op of BERT-small's pass with a formula is memory-bound on the H100",
                RooflineShare("memory-bound"), 1),
        exactly("and none comes within half of its roof", RooflineShare("near the roof"), 0),
        exactly("the flash kernel is noted as expected",
                FootprintNoted("flash_fwd", "expected: holds a tile in shared memory"), 1),
    )),
    tracelens_trace("speed-h100-qwen", "h100-qwen", claims=(
        about("the formulas cover about two thirds of the GPU time", RooflineShare("modelled"), 0.6, 0.7),
        about("and about three fifths of that time is within half of its roof", RooflineShare("near the roof"), 0.55,
              0.65),
        exactly("Qwen's largest GEMM is compute-bound", OpRoofline(MM, "memory-bound", QWEN_UP), 0),
        about("at about three fifths of the tensor cores' peak", OpRoofline(MM, "fraction", QWEN_UP), 0.55, 0.7),
        about("The gated product of Qwen's MLP moves about 3 TB/s", OpRoofline("aten::mul", "tb/s", QWEN_GATED), 2.8,
              3.2),
        about("close to nine tenths of the H100's bandwidth", OpRoofline("aten::mul", "fraction", QWEN_GATED), 0.85,
              0.95),
        about("about 140 FLOP/byte", OpRoofline(FLASH_FORWARD, "intensity"), 135, 145),
        exactly("which makes it memory-bound", OpRoofline(FLASH_FORWARD, "memory-bound"), 1),
        about("reaching about a fifth of that roof", OpRoofline(FLASH_FORWARD, "fraction"), 0.15, 0.25),
        exactly("Flash attention's forward is the op that loses the most time below its roof",
                FurthestBelow(FLASH_FORWARD), 1),
        about("no op reaches above its roof", HighestFraction(), 0, 1),
    )),
    RealTrace(
        id="speed-mi300x-qwen",
        file="docs/traces/mi300x_qwen1.5_0.5b_inference.json.gz",
        title="Qwen1.5-0.5B-Chat inference on an MI300X, 16 sequences of 559 tokens, bf16",
        **TRACELENS,
        claims=(
            about("On the MI300X the same GEMM reaches about a third of the matrix cores' peak",
                  OpRoofline(MM, "fraction", QWEN_UP), 0.3, 0.4),
            about("none does on the MI300X either", HighestFraction(), 0, 1),
        ),
    ),
    tracelens_trace("speed-b200-vllm", "b200-vllm", claims=(
        exactly("every cuBLAS GEMM (`nvjet_…`) of the B200's trace reads 0 % without being measured",
                FootprintNoted("nvjet", "column not measured"), 1),
        exactly("registers limit its attention kernels (`fmhaSm100aKernel_…`)", OccupancyLimit("fmha", "registers"),
                1),
        exactly("to a quarter of the warps an SM holds", KernelFootprint("fmha", "theoretical"), 0.25),
        about("the formulas cover only about a fifth of the B200's GPU time", RooflineShare("modelled"), 0.15, 0.25),
    )),
    RealTrace(
        id="speed-a100-alexnet",
        file="docs/traces/a100_alexnet_cuda_sync.json.gz",
        title="AlexNet on an A100, a warm-up forward then a measured one, recorded without input shapes",
        **HTA,
        claims=(exactly("the A100 AlexNet trace, recorded without them, has a formula for none of its GPU time",
                        RooflineShare("modelled"), 0),),
    ),
    RealTrace(
        id="speed-mi300x-vllm",
        file="docs/traces/mi300x_vllm_piecewise_graph_execution.json.gz",
        title="vLLM on an MI300X: one step of 46 requests, 9 in prefill and 37 decoding, replayed from piecewise "
              "graphs",
        **TRACELENS,
        claims=(exactly("none of the ops of a vLLM trace whose deviceProperties leave the GPU's name empty gets a roof",
                        RooflineShare("with a roof"), 0),),
    ),
)


# The fragments only this page's real traces give. Their imports are inside them: `profguide record` imports this
# module on a bare GPU machine, with the standard library only.


def square_projection(data: Run) -> RooflineRow:
    """The roofline's row of BERT-small's square projection; FragmentError where the trace has none."""
    from profguide.analysis.roofline import roofline_rows
    from profguide.site.fragment_run import FragmentError

    rows = [row for row in roofline_rows(data.trace) if row["name"] == ADDMM and row["shapes"] == SQUARE_PROJECTION]
    if not rows or rows[0]["roof_tflops"] is None or not rows[0]["device_us"]:
        raise FragmentError(f"no {ADDMM} {SQUARE_PROJECTION} with a roof in this trace")
    return rows[0]


def worked_gemm(data: Run) -> dict[str, str]:
    """The FLOPs and bytes of BERT-small's square projection worked out from its Input Dims, its time and rates,
    and its place under the roof, each step's numbers from the trace and profguide's peak table; then the row
    ``profguide explain --ops`` gives for it."""
    import json

    from profguide.analysis.opwork import ELEMENT_BYTES
    from profguide.analysis.peaks import device_peaks
    from profguide.render.roofline import ROOFLINE_HEADINGS, roofline_cells
    from profguide.site.fragment_run import FragmentError, source_note
    from profguide.text import cell, code, code_cell, format_duration, markdown_table

    row = square_projection(data)
    (n,), (m, k), (k_again, n_again), *_ = json.loads(row["shapes"])
    size = ELEMENT_BYTES.get(row["dtype"])
    calls = row["calls"]
    flops, moved = 2 * m * n * k + m * n, (n + m * k + k * n + m * n) * (size or 0)
    if (k, n) != (k_again, n_again) or (flops * calls, moved * calls) != (row["flops"], row["bytes"]):
        raise FragmentError(f"{ADDMM} {row['shapes']}: its work is not the product and bias the page works out")
    properties = data.trace.device_properties
    peaks = device_peaks(properties[0] if properties else None)
    peak, roof = row["peak_tflops"], row["roof_tflops"]
    if peaks is None or peak is None or roof is None or row["fraction"] is None:
        raise FragmentError("no peaks for this trace's GPU")
    seconds = row["device_us"] / calls * 1e-6
    intensity = flops / moved
    steps = [
        f"- Input Dims {code(row['shapes'])}, type {code(row['dtype'])} ({size} bytes an element): the bias is "
        f"N = {n}, the first matrix M × K = {m} × {k}, the second K × N = {k} × {n}.",
        f"- FLOPs: 2·M·N·K = 2 · {m} · {n} · {k} = {2 * m * n * k:,} for the product, and M·N = {m * n:,} to add the "
        f"bias to each output: **{flops:,}** a call.",
        f"- Bytes, each input read once and the output written once: (N + M·K + K·N + M·N) · {size} = "
        f"({n:,} + {m * k:,} + {k * n:,} + {m * n:,}) · {size} = **{moved:,}** a call.",
        f"- Intensity: {flops:,} / {moved:,} = **{intensity:.1f} FLOP/byte**.",
        f"- Time: {calls:,} calls, {format_duration(row['device_us'])} of GPU work in all: "
        f"**{format_duration(row['device_us'] / calls)}** a call.",
        f"- Rate: {flops:,} FLOPs / {format_duration(row['device_us'] / calls)} = **{flops / seconds / 1e12:.1f} "
        f"TFLOP/s**, and {moved:,} bytes in that time = **{moved / seconds / 1e12:.2f} TB/s**.",
        f"- Roof: the {peaks.model}'s {row['peak_name']} peak is {peak:g} TFLOP/s and its memory {peaks.tb_per_s:g} "
        f"TB/s, so the ridge is {peak:g} / {peaks.tb_per_s:g} = {peak / peaks.tb_per_s:.0f} FLOP/byte. At "
        f"{intensity:.1f} the memory roof is lower: {peaks.tb_per_s:g} × {intensity:.1f} = {roof:.0f} TFLOP/s, "
        f"and {flops / seconds / 1e12:.1f} of {roof:.0f} is **{100 * row['fraction']:.1f} %** of it.",
    ]
    table = markdown_table(("Op", "Input shapes", "Type", *ROOFLINE_HEADINGS[:-1]),
                           [(code_cell(row["name"]), cell(row["shapes"]), cell(row["dtype"]),
                             *roofline_cells(row)[:-1])], "lll" + "r" * 6)
    return {"worked-gemm.md": "\n".join(steps) + "\n\n" + "The row `profguide explain --ops` gives for the same op "
            f"and shapes:\n\n<div class=\"pg-reflow\" markdown>\n\n{table}\n</div>\n" + source_note(data)}


def roofline_figure(data: Run) -> dict[str, str]:
    """The roofline of rank 0's trace (``profguide draw --roofline``), with its caption."""
    from profguide.errors import UsageError
    from profguide.figures.roofline import trace_roofline_svg
    from profguide.render import fragments as render
    from profguide.site.fragment_run import FragmentError, attributed, source_note, svg_path

    try:
        svg = trace_roofline_svg(data.trace, title=attributed(data, f"Roofline: {data.title}"))
    except UsageError as error:
        raise FragmentError(str(error)) from None
    caption = ("Each op with a formula is a circle at its arithmetic intensity (across) and its achieved TFLOP/s "
               "(up), its area its GPU time; the sloped line is the memory roof, the flat ones the peaks of the "
               "kinds of work the ops do. The same figure as `profguide draw TRACE --roofline`.")
    return {"roofline.svg": svg,
            "roofline.md": render.extra_figure_fragment(svg_path(data, "roofline.svg"), caption) + source_note(data)}


def explain_sections(data: Run) -> tuple[list[str], list[str]]:
    """``profguide explain --ops --markdown``'s roofline section and its footprint section of rank 0's trace."""
    from profguide.analysis.op_view import ops_view
    from profguide.render.ops import footprint_markdown, roofline_markdown

    view = ops_view(data.trace, data.trace_path().name, path=data.trace_path())
    return roofline_markdown(view), footprint_markdown(view)


def roofline_table(data: Run) -> dict[str, str]:
    """The roofline section of ``profguide explain --ops --markdown``: its lines, then the ops with a formula."""
    from profguide.site.fragment_run import FragmentError, source_note

    section, _ = explain_sections(data)
    if not section:
        raise FragmentError("no op with a formula on a GPU in this trace")
    # pg-reflow: on a phone each row reads as a block of labelled cells (docs/assets/figures.css).
    return {"roofline-table.md": '<div class="pg-reflow" markdown>\n\n' + "\n".join(section) + "\n</div>\n"
            + source_note(data)}


def footprint_table(data: Run) -> dict[str, str]:
    """The footprint section of ``profguide explain --ops --markdown``: each kernel's registers, shared memory,
    blocks an SM, occupancy and what limits it, with the notes on reading it."""
    from profguide.site.fragment_run import source_note

    _, section = explain_sections(data)
    return {"footprint-table.md": '<div class="pg-reflow" markdown>\n\n' + "\n".join(section) + "\n</div>\n"
            + source_note(data)}


FRAGMENTS: dict[str, Maker] = {"worked-gemm.md": worked_gemm, "roofline.md": roofline_figure,
                               "roofline-table.md": roofline_table, "footprint-table.md": footprint_table}
