"""The recordings of Part 5, Inside a model: causal attention by hand, masking out of place and in place, and
F.scaled_dot_product_attention with each backend pinned; and the real GPU traces that show what the CPU stand-ins
cannot: SDPA's flash backend in BERT on an H100 and on an MI300X, the flash kernel's footprint in Qwen, and a B200's
attention from vLLM, with what the trace's occupancy column says of its driver-launched kernels."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, cast

from profguide.site.measures.host import LaunchedBy
from profguide.site.measures.kernels import (
    KernelFootprint,
    KernelsDecoded,
    KernelsInside,
    OccupancyLimit,
    OccupancyReadsZero,
)
from profguide.site.measures.ops import KernelsPerCall, NestedIn, OpsInRegion, OpsPerCall
from profguide.site.measures.results import ColumnShare, CpuShare, RowValue
from profguide.site.measures.summary import DiffRows, DiffValue
from profguide.site.parts import TRACELENS, tracelens_trace
from profguide.site.recordings import Claim, Figure, RealTrace, Recording
from profguide.site.recordings import exactly as exact_claim

if TYPE_CHECKING:
    from profguide.analysis.kernel_resources import Fit, Launch
    from profguide.site.fragment_run import Maker
    from profguide.site.recordings import Run

PAGE = "inside-a-model/attention.md"
ATTENTION = "snippets.inside_a_model.attention"
SIZES = {"batch": 4, "heads": 16, "tokens": 1024, "head_dim": 64, "dtype": "bfloat16"}
# One intra-op thread on the CPU: on a small shared machine, the math backend's parallel ops (a tril, an upcast)
# each waited milliseconds for a second thread, and the call trees would show that wait as their time.
SIZES_ON_CPU = {"batch": 2, "heads": 4, "tokens": 128, "threads": 1}
REGION = "attention"
SDPA = "aten::scaled_dot_product_attention"
BY_HAND = ("masked_fill", "masked_fill_")
OUT_OF_PLACE, MATH = "model-attention-masked-fill", "model-attention-sdpa-math"
# The CPU has no efficient or cuDNN backend: their stand-ins run its only fused one.
ON_CPU_INSTEAD = {"efficient": "flash", "cudnn": "flash"}
WHOLE_REGION = Figure(trees=(REGION,), region=REGION)


def attention_run(variant: str, claims: tuple[Claim, ...], compared_with: str = "",
                  figure: Figure = WHOLE_REGION) -> Recording:
    """One variant of the attention (``masked_fill``, ``masked_fill_`` or a backend), in a process of its own."""
    recording_id = {"masked_fill": OUT_OF_PLACE, "masked_fill_": OUT_OF_PLACE + "-inplace"}.get(
        variant, f"model-attention-sdpa-{variant}")
    instead = {"variant": ON_CPU_INSTEAD[variant]} if variant in ON_CPU_INSTEAD else {}
    # The two written by hand record memory too: what the copy allocates.
    memory = {"profile_memory": True} if variant in BY_HAND else {}
    return Recording(
        id=recording_id,
        module=ATTENTION,
        function="profile_attention",
        params={"variant": variant, "steps": 5, **SIZES, **memory},
        cpu_params={**SIZES_ON_CPU, **instead},
        title="Causal attention, {variant}, on {batch} × {heads} heads × {tokens} tokens × {head_dim} ({dtype}): "
              "{steps} steps",
        figure=figure,
        claims=claims,
        compared_with=compared_with,
    )


exactly = partial(exact_claim, PAGE)  # exactly(words, measure, value, device=None): a claim of this page


RECORDINGS = (
    attention_run("masked_fill", (
        exactly("`aten::masked_fill` holds one `aten::clone`", OpsInRegion("aten::masked_fill", "aten::clone"), 1),
        exactly("which ends in one `aten::copy_`", OpsInRegion("aten::masked_fill", "aten::copy_"), 1),
        exactly("then one `aten::masked_fill_` fills the copy", OpsInRegion("aten::masked_fill", "aten::masked_fill_"),
                1),
        exactly("the clone should launch one `Memcpy DtoD`", KernelsInside(op="aten::clone", named="Memcpy DtoD"), 1,
                device="cuda"),
        exactly("and nothing else", KernelsInside(op="aten::clone"), 1, device="cuda"),
        exactly("the out-of-place `aten::masked_fill` allocates as much as the scaling's `aten::mul`",
                ColumnShare("aten::masked_fill", "aten::mul", "cpu_memory_bytes"), 1, device="cpu"),
        exactly("the out-of-place run should launch six GPU operations a call", KernelsPerCall(region=REGION), 6,
                device="cuda"),
    ), figure=Figure(trees=("aten::masked_fill",), region=REGION)),
    attention_run("masked_fill_", (
        exactly("The in-place run's region holds no `aten::clone`", OpsInRegion(REGION, "aten::clone"), 0),
        exactly("and no `aten::masked_fill`", OpsInRegion(REGION, "aten::masked_fill"), 0),
        exactly("only the one `aten::masked_fill_`", OpsInRegion(REGION, "aten::masked_fill_"), 1),
        exactly("`profguide diff` finds four ops gone", DiffRows("ops", "removed"), 4, device="cpu"),
        exactly("and none added", DiffRows("ops", "added"), 0),
        exactly("On the CPU, the in-place region still holds one `aten::copy_`", OpsInRegion(REGION, "aten::copy_"), 1,
                device="cpu"),
        exactly("`aten::masked_fill_` allocates nothing", RowValue("aten::masked_fill_", "cpu_memory_bytes"), 0,
                device="cpu"),
        exactly("the diff finds the same peak of allocated memory in both runs",
                DiffValue("memory_peak_bytes", "ratio", key="cpu"), 1, device="cpu"),
        exactly("the in-place run five", KernelsPerCall(region=REGION), 5, device="cuda"),
        exactly("the diff should find no kernel gone", DiffRows("kernels", "removed"), 0, device="cuda"),
        exactly("and none new", DiffRows("kernels", "added"), 0, device="cuda"),
    ), compared_with=OUT_OF_PLACE, figure=Figure(trees=("aten::masked_fill_",), region=REGION)),
    attention_run("math", (
        exactly("The math backend's region holds one `aten::_scaled_dot_product_attention_math`",
                OpsInRegion(REGION, "aten::_scaled_dot_product_attention_math"), 1),
        exactly("builds the causal mask with one `aten::ones`", OpsInRegion(REGION, "aten::ones"), 1),
        exactly("and one `aten::tril`", OpsInRegion(REGION, "aten::tril"), 1),
        exactly("converts with `aten::_to_copy` seven times", OpsInRegion(REGION, "aten::_to_copy"), 7, device="cpu"),
        Claim(PAGE, "a call of the math backend holds about eighty `aten::` ops", OpsPerCall(REGION), at_least=76,
              at_most=84, device="cpu"),
        Claim(PAGE, "it should launch between fifteen and twenty-five kernels a call", KernelsPerCall(region=REGION),
              at_least=15, at_most=25, device="cuda"),
        exactly("all of them should be fp32 GEMMs", KernelsDecoded("gemm", "precision", "fp32"), 1, device="cuda"),
        Claim(PAGE, "The math backend's `aten::_scaled_dot_product_attention_math` spends next to none of it in its "
                    "own", CpuShare("aten::_scaled_dot_product_attention_math", SDPA), at_least=0, at_most=0.05,
              device="cpu"),
    )),
    attention_run("flash", (
        exactly("On the CPU, the flash backend's region holds one `aten::_scaled_dot_product_flash_attention_for_cpu`",
                OpsInRegion(REGION, "aten::_scaled_dot_product_flash_attention_for_cpu"), 1, device="cpu"),
        exactly("no `aten::ones`", OpsInRegion(REGION, "aten::ones"), 0),
        exactly("and no `aten::_to_copy`", OpsInRegion(REGION, "aten::_to_copy"), 0),
        exactly("`profguide diff` finds two dozen of the math backend's ops gone", DiffRows("ops", "removed"), 24,
                device="cpu"),
        exactly("and two added", DiffRows("ops", "added"), 2, device="cpu"),
        exactly("a call of the CPU's flash backend holds nineteen `aten::` ops", OpsPerCall(REGION), 19, device="cpu"),
        Claim(PAGE, "Flash's `aten::_scaled_dot_product_flash_attention_for_cpu` spends nearly all of its SDPA call's "
                    "time in its own code", CpuShare("aten::_scaled_dot_product_flash_attention_for_cpu", SDPA),
              at_least=0.9, at_most=1, device="cpu"),
    ), compared_with=MATH),
    attention_run("efficient", (
        exactly("the efficient backend's region should hold one `aten::_scaled_dot_product_efficient_attention`",
                OpsInRegion(REGION, "aten::_scaled_dot_product_efficient_attention"), 1, device="cuda"),
        exactly("whose kernels should all decode as memory-efficient attention",
                KernelsDecoded("attention", "backend", "memory-efficient"), 1, device="cuda"),
        exactly("one kernel a call", KernelsPerCall(region=REGION), 1, device="cuda"),
        exactly("in bfloat16", KernelsDecoded("attention", "precision", "bf16"), 1, device="cuda"),
    )),
    attention_run("cudnn", (
        exactly("the cuDNN backend's region should hold one `aten::_scaled_dot_product_cudnn_attention`",
                OpsInRegion(REGION, "aten::_scaled_dot_product_cudnn_attention"), 1, device="cuda"),
        exactly("and no `aten::transpose` at all", OpsInRegion(REGION, "aten::transpose"), 0, device="cuda"),
        exactly("its kernels should decode as cuDNN's", KernelsDecoded("attention", "backend", "cuDNN"), 1,
                device="cuda"),
        exactly("launched by `cuLaunchKernelEx`", LaunchedBy(("cuLaunchKernelEx",), "cudnn"), 1, device="cuda"),
    )),
)

FLASH_KERNEL = "flash_fwd"  # pytorch_flash::flash_fwd_kernel<…>, SDPA's flash backend on NVIDIA GPUs
FLASH_OP = "aten::_scaled_dot_product_flash_attention"
FLASH_FORWARD = "aten::_flash_attention_forward"
VLLM_ATTENTION = "vllm::unified_attention_with_output"  # vLLM's attention op, around FlashInfer's call

REAL_TRACES = (
    tracelens_trace(
        "model-h100-bert-attention", "h100-bert",
        figure=Figure(trees=(SDPA,)),
        claims=(
            exactly("each `aten::scaled_dot_product_attention` of the BERT pass holds one "
                    "`aten::_scaled_dot_product_flash_attention`", NestedIn(SDPA, FLASH_OP), 1),
            exactly("every attention kernel of the trace is flash's", KernelsDecoded("attention", "backend", "flash"),
                    1),
            exactly("each flash call launches one kernel", KernelsInside(op=FLASH_OP), 1),
            exactly("each flash call of the BERT pass holds four `aten::transpose`",
                    NestedIn(FLASH_OP, "aten::transpose"), 4),
            exactly("which the runtime's `cudaLaunchKernel` launches", LaunchedBy(("cudaLaunchKernel",), FLASH_KERNEL),
                    1),
            exactly("where the H100's holds no `aten::permute`", NestedIn(FLASH_FORWARD, "aten::permute"), 0),
        ),
    ),
    RealTrace(
        id="model-mi300x-bert-attention",
        file="docs/traces/mi300x_bert_small_inference.json.gz",
        title="BERT-small fill-mask inference on an MI300X, one sequence of 141 tokens, bf16",
        **TRACELENS,
        figure=Figure(trees=(SDPA,)),
        claims=(
            exactly("each `aten::scaled_dot_product_attention` holds the same "
                    "`aten::_scaled_dot_product_flash_attention` as on the H100", NestedIn(SDPA, FLASH_OP), 1),
            exactly("which launches one kernel a call", KernelsInside(op=FLASH_OP), 1),
            exactly("a Triton kernel", KernelsDecoded("attention", "backend", "Triton"), 1),
            exactly("launched by `hipModuleLaunchKernel`", LaunchedBy(("hipModuleLaunchKernel",), "attn_fwd"), 1),
            exactly("ATen's flash forward holds four `aten::permute` on the MI300X", NestedIn(FLASH_FORWARD,
                                                                                             "aten::permute"), 4),
        ),
    ),
    tracelens_trace(
        "model-h100-qwen-attention", "h100-qwen",
        claims=(
            exactly("each `aten::contiguous` of the H100's Qwen pass holds one `aten::clone`",
                    NestedIn("aten::contiguous", "aten::clone"), 1),
            exactly("each `aten::clone` of the H100's Qwen pass launches one copy kernel",
                    KernelsInside(op="aten::clone", family="copy"), 1),
            exactly("and no `Memcpy DtoD`", KernelsInside(op="aten::clone", named="Memcpy DtoD"), 0),
            exactly("the one FP32 GEMM of the H100's Qwen pass runs on the CUDA cores",
                    KernelsDecoded("gemm", "tensor_cores", "no", count=True), 1),
            exactly("Registers are what limits the flash kernel", OccupancyLimit(FLASH_KERNEL, "registers"), 1),
            exactly("two of its blocks fit on an SM", KernelFootprint(FLASH_KERNEL, "blocks"), 2),
            exactly("its shared memory alone would let four fit", KernelFootprint(FLASH_KERNEL,
                                                                                   "blocks by shared memory"), 4),
            exactly("an eighth of the warps an SM can hold", KernelFootprint(FLASH_KERNEL, "theoretical"), 0.125),
            Claim(PAGE, "the trace's own column reads about an eighth too", KernelFootprint(FLASH_KERNEL, "recorded"),
                  at_least=0.12, at_most=0.14),
            exactly("cuBLASLt's GEMMs beside it fit one block an SM", KernelFootprint("sm90_xmma", "blocks"), 1),
            exactly("the H100's cuBLASLt GEMMs, launched by the runtime's `cudaLaunchKernelExC`, read 0 % in the "
                    "column", OccupancyReadsZero(calls=("cudaLaunchKernelExC",), kernels="sm90_xmma"), 1),
        ),
    ),
    tracelens_trace(
        "model-b200-vllm", "b200-vllm",
        figure=Figure(trees=(VLLM_ATTENTION,)),
        claims=(
            exactly("each `vllm::unified_attention_with_output` launches one attention kernel",
                    KernelsInside(op=VLLM_ATTENTION, family="attention"), 1),
            exactly("the one `aten::masked_fill_` of the B200's trace launches a single kernel",
                    KernelsInside(op="aten::masked_fill_"), 1),
            exactly("and holds no `aten::copy_`", NestedIn("aten::masked_fill_", "aten::copy_"), 0),
            exactly("each `vllm::all_reduce` of the B200's trace holds two `aten::copy_`",
                    NestedIn("vllm::all_reduce", "aten::copy_"), 2),
            exactly("which launch two `Memcpy DtoD`", KernelsInside(op="vllm::all_reduce", named="Memcpy DtoD"), 2),
            exactly("the B200's cuBLAS GEMMs (`nvjet_…`) are all launched by `cuLaunchKernelEx`",
                    LaunchedBy(("cuLaunchKernelEx",), "nvjet"), 1),
            exactly("and so are its attention kernels (`fmhaSm100aKernel_…`)", LaunchedBy(("cuLaunchKernelEx",),
                                                                                        "fmha"), 1),
            exactly("every kernel of the B200's trace whose blocks use more shared memory than the default limit "
                    "reads 0 %", OccupancyReadsZero(shared_memory="above default"), 1),
            exactly("none of those within the limit whose grid gives every SM a block does",
                    OccupancyReadsZero(shared_memory="within default", full_grid=True), 0),
            exactly("Its attention kernels, which `cuLaunchKernelEx` launched too, read above 0 %",
                    OccupancyReadsZero(calls=("cuLaunchKernelEx",), kernels="fmha"), 0),
        ),
    ),
)


# The fragments only this page's recordings give (the generic ones: profguide.site.fragments). Their imports
# are inside them: `profguide record` imports this module on a bare GPU machine, with the standard library only.


def variant_row(run: Run, region: str) -> tuple[str, str, str, str, str]:
    """One row of ``variants``: the run's variant, what ran, its ops and time a call, and on a GPU its kernels."""
    from profguide.analysis.ops import region_rows
    from profguide.analysis.regions import ops_in_each_call, region_calls
    from profguide.render import fragments as render
    from profguide.render.facts import per_call
    from profguide.site.fragment_run import FragmentError
    from profguide.stats import median
    from profguide.text import code, format_duration

    # variants() passes the runs of recordings alone (it refuses a real trace).
    meant, ran = cast(Recording, run.recording).params.get("variant"), run.params.get("variant")
    name = f"[{code(meant)}](/{render.trace_url(run.meta)})"
    waits = "waits for a GPU run"
    if ran != meant:
        return (name, f"nothing: its CPU stand-in ran {code(ran)} instead", "–", "–", waits)
    calls = region_calls(run.trace, region)
    if not calls:
        raise FragmentError(f"{run.recording.id} has no call of {region!r}")
    ops = median(ops_in_each_call(run.trace, region, "aten::"))
    row = next(row for row in region_rows(run.trace) if row["name"] == region)
    on_gpu = (f"{per_call(row['kernels'], row['calls'])} · {format_duration(row['device_us'] / row['calls'])}"
              if run.meta.get("device") == "cuda" else waits)
    typical_us = cast(float, median([call["dur_us"] for call in calls]))  # of one call or more: a number
    return (name, code(ran), f"{ops:g}", format_duration(typical_us), on_gpu)


def percent_of(fraction: float | None) -> str:
    return "–" if fraction is None else f"{100 * fraction:.3g}%"


def variants(data: Run) -> dict[str, str]:
    """Each recording of this snippet function by its ``variant`` parameter, side by side: what ran on the device
    it was made on, the ``aten::`` ops a call of the figure's region held and its median time, and on a GPU the
    kernels each call launched and their time; a CPU stand-in that had to run another variant shows nothing of it."""
    from profguide.render import fragments as render
    from profguide.site.fragment_run import FragmentError, snippet_runs
    from profguide.text import markdown_table

    region = data.recording.figure.region
    if data.real or not region:
        raise FragmentError("variants compares the recordings of one snippet function, each call in the figure's "
                            "region")
    runs = snippet_runs(data, RECORDINGS)
    table = markdown_table(("Variant", "Ran", "`aten::` ops a call", "Median call", "On a GPU: kernels · their time "
                            "a call"), [variant_row(run, region) for run in runs], "llrrr")
    sentence = (f"Each variant ran in a process of its own; a call is one `{region}` region, its ops counted at any "
                "depth, its time the median over the recorded calls. The variant's name downloads its trace.")
    notes = "\n".join(render.provenance_note(run.meta) for run in runs)
    # pg-reflow: on a phone each row reads as a block of labelled cells (docs/assets/figures.css).
    return {"variants.md": render.standin_notice(data.meta)
            + f'<div class="pg-reflow" markdown>\n\n{table}\n</div>\n\n{sentence}\n\n{notes}'}


def resources(data: Run, limit: int = 12) -> dict[str, str]:
    """The kernels of rank 0's trace by footprint, most kernel time first: the threads, registers and shared
    memory of a block as the trace records them, how many blocks fit on one SM by each limit and in all
    (``profguide.analysis.kernel_resources``), the theoretical occupancy, and the trace's own occupancy column.
    Kernels whose short names and footprints agree (ATen's elementwise loops, one per functor) make one row."""
    from profguide.analysis import kernel_resources
    from profguide.site.fragment_run import FragmentError, source_note
    from profguide.stats import median
    from profguide.text import code, code_cell, format_size, kernel_name, markdown_table

    groups: dict[tuple[str, int, int, int], list[tuple[Launch, Fit]]] = {}
    for launch in kernel_resources.kernel_launches(data.trace_path()):
        fit = kernel_resources.fit(launch)
        if fit is not None:
            key = (kernel_name(launch.name), launch.threads, launch.registers, launch.shared)
            groups.setdefault(key, []).append((launch, fit))
    if not groups:
        raise FragmentError("no kernel whose footprint the trace records (registers, shared memory, block, grid) "
                            "on a GPU its deviceProperties describe")
    ranked = sorted(groups.values(), key=lambda found: -sum(launch.dur_us for launch, _ in found))

    def blocks(value: int | None) -> str:
        return "–" if value is None else f"{value:,}"

    rows = []
    for found in ranked[:limit]:
        launch, fit = found[0]
        calls = sorted({one.call for one, _ in found if one.call})
        recorded = [one.recorded for one, _ in found if one.recorded is not None]
        names = len({one.name for one, _ in found})
        shown = code_cell(kernel_name(launch.name)) + (f" ({names:,} kernels)" if names > 1 else "")
        launched = f"{len(found):,}" + (f" by {', '.join(code(call) for call in calls)}" if calls else "")
        # Three numbers a cell, in the order the heading names them: the table fits a wide page unscrolled.
        footprint = f"{launch.threads:,} · {launch.registers:,} · {format_size(launch.shared)}"
        by_limit = " · ".join(blocks(fit.by[one]) for one in ("registers", "shared memory", "warps"))
        rows.append((shown, launched, footprint, by_limit, f"{fit.blocks:,}", ", ".join(fit.limited_by),
                     percent_of(fit.theoretical), percent_of(median(recorded) if recorded else None)))
    # pg-reflow: on a phone each row reads as a block of labelled cells (docs/assets/figures.css).
    table = markdown_table(("Kernel", "Launches", "A block: threads · registers a thread · shared memory",
                            "Blocks an SM by registers · shared memory · warps", "Blocks an SM", "Limited by",
                            "Theoretical occupancy", "The trace's occupancy"), rows, "llrrrlrr")
    default = ranked[0][0][0].device.get("sharedMemPerBlock")
    shown_rows = "every row" if len(ranked) <= limit else f"the {len(rows)} rows with the most time of {len(ranked)}"
    sentence = ("One row for each kernel and footprint, most kernel time first: " + shown_rows + ". Threads, "
                "registers and shared memory are the trace's own; the blocks that fit on one SM by each limit are "
                "worked out from the trace's deviceProperties as CUDA's occupancy calculator does, and the least "
                "of them, in warps over the most warps an SM holds, is the theoretical occupancy. The last column "
                "is the median of the trace's est. achieved occupancy, which the profiler caps at the blocks the "
                "grid gives each SM and works out as if no kernel used more shared memory a block than the "
                "default limit" + (f", {format_size(default)} here" if isinstance(default, int) else "") + ".")
    return {"resources.md": f'<div class="pg-reflow" markdown>\n\n{table}\n</div>\n\n{sentence}\n'
            + source_note(data)}


FRAGMENTS: dict[str, Maker] = {"variants.md": variants, "resources.md": resources}
