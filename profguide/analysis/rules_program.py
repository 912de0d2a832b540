"""The rules of torch's anti-pattern matcher (``torch/profiler/_pattern_matcher.py``), as far as a saved trace
shows them.

The matcher walked a live profiler's event tree, with the Python frames that ``with_stack=True`` records; a
saved trace has the ops of each thread, their times and, with ``record_shapes=True``, their input shapes and
types. Each rule here reads the same sign from those: the ops inside the optimizer's ``record_function``
regions rather than its Python frames, the op after a convolution rather than the module after it. Every
rule works on a lane's ops at once (``top_level``) or on the few events of a name, never event by event.
"""

import json
from collections.abc import Callable, Iterable

import numpy as np

from profguide.analysis.families import GEMM, kernel_family
from profguide.analysis.intervals import inside_any, union_length
from profguide.analysis.kernels import device_name
from profguide.analysis.rule import Evidence, Rule
from profguide.analysis.select import (
    Indices,
    activity_window,
    kinds_mask,
    launch_of,
    names_where,
)
from profguide.analysis.summary import Summary
from profguide.patterns import GEMM_FIRST_MATRIX
from profguide.text import count_of, cut, format_duration
from profguide.trace.model import Trace

INPUT_PIPELINE_PAGE = "reading-output/input-pipeline.md"
ANTI_PATTERNS_PAGE = "reading-output/anti-patterns.md"

# --- dataloader-without-workers -------------------------------------------------------------------------------
# A DataLoader with num_workers=0 names its iterator _SingleProcessDataLoaderIter (torch's matcher looked for its
# __iter__ without a worker check); the TensorBoard plugin advised workers once the DataLoader took over 5% of
# the average step.
SINGLE_PROCESS_ITERATOR = "_SingleProcessDataLoaderIter.__next__"
DATA_LOADING_SHARE_MIN = 5.0

# --- single-tensor-optimizer ----------------------------------------------------------------------------------
# torch's matcher flagged the Python frames _single_tensor_adam, _single_tensor_sgd and _single_tensor_adamw;
# without stacks, the per-parameter loop shows as one update op called again and again inside one
# Optimizer.step#… region, where foreach=True calls one aten::_foreach_* op per group of tensors.
OPTIMIZER_STEP = "Optimizer.step#"
SINGLE_TENSOR_FRAME = "_single_tensor_"
UPDATE_OPS = frozenset({"aten::add_", "aten::mul_", "aten::addcmul_", "aten::addcdiv_", "aten::lerp_",
                        "aten::sqrt", "aten::div_", "aten::sub_", "aten::clone", "aten::maximum"})
FOREACH_PREFIX = "aten::_foreach_"
FUSED = "Fused"  # a fused optimizer (apex's and DeepSpeed's FusedAdam) updates many tensors per kernel already
# A model of a handful of parameter tensors gains little from grouping them: the rule asks for at least this many
# calls of one update op per step.
SAME_UPDATE_OP_PER_STEP_MIN = 4

# --- zero-grad-zeroes -----------------------------------------------------------------------------------------
# torch's matcher flagged an aten::zero_ inside a zero_grad frame (not one inside aten::zeros, which makes a
# new tensor): zeroing the gradients where set_to_none=True would drop them.
ZERO_GRAD = "zero_grad"
ZEROING_OPS = frozenset({"aten::zero_", "aten::fill_", "aten::_foreach_zero_"})
NEW_ZEROS_OPS = frozenset({"aten::zeros", "aten::zeros_like"})

# --- cpu-filled-then-copied -----------------------------------------------------------------------------------
# torch's matcher flagged an aten::to whose previous op filled a tensor (aten::fill_, zero_, normal_, uniform_):
# a tensor made on the CPU and copied to the GPU at once, which could have been made there.
CREATION_OPS = frozenset({"aten::zeros", "aten::ones", "aten::full", "aten::fill_", "aten::zero_", "aten::normal_",
                          "aten::uniform_", "aten::randn", "aten::rand", "aten::randint", "aten::arange",
                          "aten::zeros_like", "aten::ones_like", "aten::full_like", "aten::randn_like",
                          "aten::rand_like"})
COPY_OPS = frozenset({"aten::to", "aten::_to_copy", "aten::copy_"})
HOST_TO_DEVICE = ("HtoD", "HostToDevice")  # CUDA's and ROCm's names of a host-to-device memcpy

# --- conv-bias-before-batch-norm ------------------------------------------------------------------------------
# torch's matcher flagged an aten::conv2d whose third input (the bias) has a type, inside a Conv2d module whose
# next module is a BatchNorm2d: the batch norm subtracts the mean, and the bias with it. Here the third input has
# dimensions in the op's Input Dims (record_shapes=True).
CONVOLUTION_OPS = frozenset({"aten::conv1d", "aten::conv2d", "aten::conv3d"})
BIAS_INPUT = 2
BATCH_NORM = "aten::batch_norm"
# A BatchNorm module in training counts its batches (an aten::add_) before its aten::batch_norm: the batch norm
# is the convolution's next op or the one after it.
OPS_AFTER_CONVOLUTION = 2

# --- half-matmul-not-multiple-of-8 ----------------------------------------------------------------------------
# torch's matcher flagged fp16 and bf16 aten::mm, bmm and addmm calls with an input whose last two dimensions are
# not all multiples of 8: tensor cores take tiles of 8 (cuBLAS pads or falls back otherwise).
HALF_TYPES = frozenset({"c10::Half", "c10::BFloat16"})
TENSOR_CORE_MULTIPLE = 8

# --- fp32-matmul-on-tensor-core-gpu ---------------------------------------------------------------------------
# torch's matcher flagged aten::mm calls made with TF32 off on GPUs of compute capability 8.0 and newer (Ampere
# on), whose tensor cores take TF32. Here the GEMM kernels' names say their precision: the rule asks that FP32
# kernels hold a tenth of the GEMM time, below which TF32 would save little.
TF32_COMPUTE_MAJOR = 8
FP32_GEMM_SHARE_MIN = 10.0
TF32_GPUS = ("A100", "A10", "A30", "A40", "H100", "H200", "H20", "L4", "L40", "B100", "B200", "GB200", "RTX 30",
             "RTX 40", "RTX 50", "RTX A")


def name_table(trace: Trace, predicate: Callable[[str], object]) -> np.ndarray:
    """For each distinct name (by code), whether it satisfies ``predicate``: ``table[trace.name[indices]]``
    answers for a few events without a pass over all of them."""
    return np.fromiter((bool(predicate(name)) for name in trace.names), bool, len(trace.names))


def among(names: Iterable[str]) -> Callable[[str], bool]:
    return frozenset(names).__contains__


def events_named(trace: Trace, table: np.ndarray, kinds: Iterable[str]) -> Indices:
    """The events of ``kinds`` whose name ``table`` (``name_table``) accepts, in trace order."""
    if not table.any():
        return np.zeros(0, np.intp)
    return np.flatnonzero(table[trace.name] & kinds_mask(trace, kinds))


def outermost(trace: Trace, indices: Indices) -> Indices:
    """The events of ``indices`` (one thread's, in trace order) that no earlier one of them encloses."""
    reach = np.maximum.accumulate(trace.end[indices]) if len(indices) else np.zeros(0)
    kept = np.ones(len(indices), dtype=bool)
    kept[1:] = trace.ts[indices[1:]] >= reach[:-1]
    return indices[kept]


def top_level(trace: Trace, lane: int) -> Indices:
    """The ops of one thread that no other op of it encloses, in order of start (the trace's order)."""
    return outermost(trace, np.flatnonzero(kinds_mask(trace, ("cpu_op",)) & (trace.lane == lane)))


def enclosing(trace: Trace, tops: Indices, indices: Indices) -> Indices:
    """For each event of ``indices`` (on the lane of ``tops``), the position in ``tops`` of the top-level op
    that holds it, or -1."""
    if not len(tops):  # a thread that ran no op: a copy launched outside every op
        return np.full(len(indices), -1, dtype=np.intp)
    position = np.searchsorted(trace.ts[tops], trace.ts[indices], side="right") - 1
    held = (position >= 0) & (trace.end[tops[np.maximum(position, 0)]] >= trace.end[indices])
    return np.where(held, position, -1)


def inside(trace: Trace, regions: Indices, mask: np.ndarray) -> list[Indices]:
    """For each region, the events of ``mask`` on its thread that start and end within it."""
    by_lane = {lane: np.flatnonzero(mask & (trace.lane == lane)) for lane in np.unique(trace.lane[regions]).tolist()}
    found = []
    for region in regions.tolist():
        candidates = by_lane[int(trace.lane[region])]
        low = np.searchsorted(trace.ts[candidates], trace.ts[region], side="left")
        high = np.searchsorted(trace.ts[candidates], trace.end[region], side="right")
        held = candidates[low:high]
        found.append(held[(held != region) & (trace.end[held] <= trace.end[region])])
    return found


def steps_time(trace: Trace, summary: Summary) -> tuple[float, str]:
    """The time the shares are of: the ProfilerSteps' time added, else the trace's activity; and its name."""
    if summary["steps"]:
        return sum(step["dur_us"] for step in summary["steps"]), "the ProfilerSteps' time"
    start, end = activity_window(trace)
    return end - start, "the trace's time"


def dataloader_without_workers(trace: Trace, summary: Summary) -> Evidence | None:
    calls = events_named(trace, name_table(trace, lambda name: SINGLE_PROCESS_ITERATOR in name),
                         ("cpu_op", "annotation"))
    if not len(calls):
        return None
    loading = union_length(trace.ts[calls], trace.end[calls])
    whole, what = steps_time(trace, summary)
    share = 100 * loading / whole if whole > 0 else 0.0
    if share <= DATA_LOADING_SHARE_MIN:
        return None
    name = cut(trace.names[trace.name[calls[0]]])
    return Evidence(share, f"loading data in the main process {share:.0f}% of {what} "
                           f"({format_duration(loading)} of {format_duration(whole)}), in "
                           f"{count_of(len(calls), 'call')} of `{name}`", float(trace.ts[calls[0]]))


def single_tensor_optimizer(trace: Trace, summary: Summary) -> Evidence | None:
    steps = events_named(trace, name_table(trace, lambda name: name.startswith(OPTIMIZER_STEP) and FUSED not in name),
                         ("annotation", "cpu_op"))
    foreach = name_table(trace, lambda name: name.startswith(FOREACH_PREFIX))
    updating = name_table(trace, among(UPDATE_OPS)) | foreach
    held = inside(trace, steps, updating[trace.name] & kinds_mask(trace, ("cpu_op",))) if len(steps) else []
    looped = [position for position, ops in enumerate(held) if len(ops) and not foreach[trace.name[ops]].any()]
    if looped:
        calls = np.bincount(trace.name[np.concatenate([held[position] for position in looped])],
                            minlength=len(trace.names)) / len(looped)
        most = int(np.argmax(calls))
        if calls[most] >= SAME_UPDATE_OP_PER_STEP_MIN:
            step = steps[looped[0]]
            return Evidence(float(calls[most]),
                            f"`{cut(trace.names[most])}` {calls[most]:.0f} times a step over "
                            f"{count_of(len(looped), 'optimizer step')} (`{cut(trace.names[trace.name[step]])}`) "
                            f"and no `{FOREACH_PREFIX}*` op: one update per parameter", float(trace.ts[step]))
    frames = events_named(trace, name_table(trace, lambda name: SINGLE_TENSOR_FRAME in name), ("python",))
    if len(frames):
        return Evidence(float(len(frames)), f"{count_of(len(frames), 'call')} of "
                                            f"`{cut(trace.names[trace.name[frames[0]]])}`: the optimizer's loop "
                                            "over parameters", float(trace.ts[frames[0]]))
    return None


def zero_grad_zeroes(trace: Trace, summary: Summary) -> Evidence | None:
    regions = events_named(trace, name_table(trace, lambda name: ZERO_GRAD in name), ("annotation", "cpu_op", "python"))
    makes_new, zeroes = name_table(trace, among(NEW_ZEROS_OPS)), name_table(trace, among(ZEROING_OPS))
    if not len(regions) or not zeroes.any():
        return None
    held = inside(trace, regions, (zeroes | makes_new)[trace.name] & kinds_mask(trace, ("cpu_op",)))
    zeroing = []
    for ops in held:
        new, ops = ops[makes_new[trace.name[ops]]], ops[~makes_new[trace.name[ops]]]
        zeroing.append(outermost(trace, ops[~inside_any(trace.ts[new], trace.end[new], trace.ts[ops])]))
    calls = [position for position, ops in enumerate(zeroing) if len(ops)]
    if not calls:
        return None
    ops = np.concatenate([zeroing[position] for position in calls])
    names = np.unique(trace.name[ops])
    region = regions[calls[0]]
    return Evidence(float(len(ops)),
                    f"{count_of(len(ops), 'zeroing op')} ({', '.join(f'`{trace.names[code]}`' for code in names)}) "
                    f"in {count_of(len(calls), 'call')} of `{cut(trace.names[trace.name[region]])}`, "
                    f"{format_duration(float(trace.dur[ops].sum()))} in them", float(trace.ts[region]))


def cpu_filled_then_copied(trace: Trace, summary: Summary) -> Evidence | None:
    copies = events_named(trace, name_table(trace, lambda name: any(mark in name for mark in HOST_TO_DEVICE)),
                          ("memcpy",))
    launched = launch_of(trace, copies)
    copies, launches = copies[launched >= 0], launched[launched >= 0]
    launch_calls = kinds_mask(trace, ("runtime", "driver"))
    creation, copy_ops = name_table(trace, among(CREATION_OPS)), name_table(trace, among(COPY_OPS))
    found: list[tuple[int, int, int]] = []  # (the op that made the tensor, the op that copied it, its memcpy)
    for lane in np.unique(trace.lane[launches]).tolist():
        tops = top_level(trace, lane)
        on_lane = trace.lane[launches] == lane
        position = enclosing(trace, tops, launches[on_lane])
        position, lane_copies = position[position > 0], copies[on_lane][position > 0]
        made, copy = tops[position - 1], tops[position]
        on_host = ~launched_inside(trace, made, np.flatnonzero(launch_calls & (trace.lane == lane)))
        matched = copy_ops[trace.name[copy]] & creation[trace.name[made]] & on_host
        found += zip(made[matched].tolist(), copy[matched].tolist(), lane_copies[matched].tolist(), strict=True)
    if not found:
        return None
    made_first, copy_first, _ = min(found)
    copied = np.array([memcpy for _, _, memcpy in found])
    return Evidence(float(len(found)),
                    f"{count_of(len(found), 'host-to-device copy')} ({format_duration(float(trace.dur[copied].sum()))}"
                    f") of a tensor made on the CPU by the op just before, on the same thread (first: "
                    f"`{cut(trace.names[trace.name[made_first]])}`, then `{cut(trace.names[trace.name[copy_first]])}`)",
                    float(trace.ts[made_first]))


def launched_inside(trace: Trace, ops: Indices, calls: Indices) -> np.ndarray:
    """For each op, whether one of ``calls`` (launch calls of its thread, in trace order) starts within it."""
    low = np.searchsorted(trace.ts[calls], trace.ts[ops], side="left")
    high = np.searchsorted(trace.ts[calls], trace.end[ops], side="right")
    return high > low


def bias_shape(input_dims: str) -> list[object] | None:
    """A convolution's bias shape from its ``Input Dims`` as the trace writes them (the third input's), or None
    when it has no bias or the text says nothing readable."""
    try:
        dims = json.loads(input_dims)
    except (ValueError, RecursionError):
        return None
    bias = dims[BIAS_INPUT] if isinstance(dims, list) and len(dims) > BIAS_INPUT else None
    return bias if isinstance(bias, list) and bias else None


def conv_bias_before_batch_norm(trace: Trace, summary: Summary) -> Evidence | None:
    is_convolution, is_batch_norm = name_table(trace, among(CONVOLUTION_OPS)), name_table(trace, among((BATCH_NORM,)))
    if not is_batch_norm.any():
        return None
    convolutions = events_named(trace, is_convolution, ("cpu_op",))
    codes = trace.shape[convolutions]
    bias = {code: bias_shape(trace.shape_texts[code]) for code in np.unique(codes[codes >= 0]).tolist()}
    with_bias = convolutions[[bias.get(code) is not None for code in codes.tolist()]]
    if not len(with_bias):
        return None
    found = []
    for lane in np.unique(trace.lane[with_bias]).tolist():
        tops = top_level(trace, lane)
        position = np.unique(enclosing(trace, tops, with_bias[trace.lane[with_bias] == lane]))
        position = position[(position >= 0) & is_convolution[trace.name[tops[np.maximum(position, 0)]]]]
        after = position[:, None] + np.arange(1, OPS_AFTER_CONVOLUTION + 1)
        normalised = is_batch_norm[trace.name[tops[np.minimum(after, len(tops) - 1)]]] & (after < len(tops))
        found.append(tops[position[normalised.any(axis=1)]])
    followed = np.concatenate(found)
    if not len(followed):
        return None
    first = int(followed.min())
    # the top-level convolution's own shapes, else those of the one it calls (autocast's outer call has its own)
    shown = bias.get(int(trace.shape[first])) or bias[int(trace.shape[with_bias[0]])]
    return Evidence(float(len(followed)),
                    f"{count_of(len(followed), 'convolution')} with a bias (`{cut(trace.names[trace.name[first]])}`, "
                    f"bias of shape {cut(str(shown))}) followed by `{BATCH_NORM}`", float(trace.ts[first]))


def unaligned_dims(name: str, dims: object, types: object) -> list[int] | None:
    """The dimensions of a half-precision matrix multiply's two matrices that are not multiples of 8 (their last
    two each), or None when the call is not in fp16 or bf16 or its shapes are not recorded."""
    first = GEMM_FIRST_MATRIX.get(name)
    if first is None or not isinstance(dims, list) or not isinstance(types, list) or len(dims) < first + 2:
        return None
    if len(types) <= first or types[first] not in HALF_TYPES:
        return None
    matrices = [shape for shape in dims[first:first + 2] if isinstance(shape, list)]
    return [dim for shape in matrices for dim in shape[-2:]
            if isinstance(dim, int) and dim % TENSOR_CORE_MULTIPLE]


def half_matmul_not_multiple_of_8(trace: Trace, summary: Summary) -> Evidence | None:
    off_by_call = {index: unaligned_dims(trace.names[trace.name[index]], dims, types)
                   for index, (dims, types, *_) in trace.shapes.items()}
    half = [index for index, off in off_by_call.items() if off is not None]
    unaligned = [index for index in half if off_by_call[index]]
    if not unaligned:
        return None
    first = min(unaligned)
    dims, types, *_ = trace.shapes[first]
    name, off = trace.names[trace.name[first]], off_by_call[first] or []
    return Evidence(float(len(unaligned)),
                    f"{len(unaligned)} of {count_of(len(half), 'fp16/bf16 matrix-multiply call')} with a dimension "
                    f"that is not a multiple of {TENSOR_CORE_MULTIPLE} (first: `{name}` of "
                    f"{cut(str(dims[GEMM_FIRST_MATRIX[name]:GEMM_FIRST_MATRIX[name] + 2]))} "
                    f"in {cut(str(types[GEMM_FIRST_MATRIX[name]]))}, {', '.join(map(str, sorted(set(off))))})",
                    float(trace.ts[first]))


def takes_tf32(trace: Trace) -> bool:
    """Whether the trace's GPU has tensor cores that take TF32: an NVIDIA GPU of compute capability 8.0 or newer
    (its properties say, else its name). The matcher asked CUDA's architectures (sm_80 on); a ROCm device reports
    its gfx generation as its compute capability (9.x), which says nothing of TF32."""
    name = device_name(trace) or ""
    if "AMD" in name.upper() or "RADEON" in name.upper() or "INSTINCT" in name.upper():
        return False
    for device in trace.device_properties:
        major = device.get("computeMajor") if isinstance(device, dict) else None
        if isinstance(major, int):
            return major >= TF32_COMPUTE_MAJOR
    return any(model in name for model in TF32_GPUS)


def fp32_matmul_on_tensor_core_gpu(trace: Trace, summary: Summary) -> Evidence | None:
    gemm = next((row for row in summary["kernel_families"] if row["family"] == GEMM), None)
    if gemm is None or gemm["time_us"] <= 0 or not takes_tf32(trace):
        return None
    fp32_us = gemm["precision_us"].get("fp32", 0.0)
    share = 100 * fp32_us / gemm["time_us"]
    if share < FP32_GEMM_SHARE_MIN:
        return None
    kernels = np.flatnonzero(kinds_mask(trace, ("kernel",))
                             & names_where(trace, lambda name: (family := kernel_family(name)).family == GEMM
                                           and family.precision == "fp32"))
    first = int(kernels[0])
    return Evidence(share, f"FP32 GEMM kernels {share:.0f}% of the GEMM time ({format_duration(fp32_us)} of "
                           f"{format_duration(gemm['time_us'])}) on {device_name(trace) or 'a GPU'} that takes TF32, "
                           f"e.g. `{cut(trace.names[trace.name[first]])}`", float(trace.ts[first]))


RULES: tuple[Rule, ...] = (
    Rule(
        id="dataloader-without-workers",
        source="torch",
        detects="a DataLoader without workers: every batch is loaded in the main process, between steps",
        measures=f"the time in `{SINGLE_PROCESS_ITERATOR}` as a share of the steps' time, over "
                 f"{DATA_LOADING_SHARE_MIN:g}%",
        change="pass `num_workers=N` (and `pin_memory=True` for a GPU) to the DataLoader",
        page=f"{INPUT_PIPELINE_PAGE}#without-workers",
        shown_by="reading-input-workers-0",
        clean_on="reading-input-workers-2",
        check=dataloader_without_workers,
    ),
    Rule(
        id="single-tensor-optimizer",
        source="torch",
        detects="an optimizer that updates one parameter at a time where `foreach` would update them in groups",
        measures=f"the calls of the most-called update op in each optimizer step without an `{FOREACH_PREFIX}*` "
                 f"op, at least {SAME_UPDATE_OP_PER_STEP_MIN}; or, with stacks, `{SINGLE_TENSOR_FRAME}*` frames, "
                 "at least 1",
        change="create the optimizer with `foreach=True` (or `fused=True` where it has one)",
        page=f"{ANTI_PATTERNS_PAGE}#single-tensor-optimizer",
        shown_by="reading-anti-patterns",
        clean_on="reading-anti-patterns-fixed",
        check=single_tensor_optimizer,
    ),
    Rule(
        id="zero-grad-zeroes",
        source="torch",
        detects="`zero_grad` that fills the gradients with zeros instead of dropping them",
        measures="zeroing ops (`aten::zero_`, `aten::fill_`, `aten::_foreach_zero_`) inside `zero_grad`, at least 1",
        change="call `zero_grad(set_to_none=True)` (the default since torch 2.0)",
        page=f"{ANTI_PATTERNS_PAGE}#zero-grad-zeroes",
        shown_by="reading-anti-patterns",
        clean_on="reading-anti-patterns-fixed",
        check=zero_grad_zeroes,
    ),
    Rule(
        id="cpu-filled-then-copied",
        source="torch",
        detects="a tensor made on the CPU and copied to the GPU right after",
        measures="host-to-device copies whose op comes right after an op that made or filled a tensor on the "
                 "CPU, on the same thread, at least 1",
        change="create the tensor on the device: `torch.zeros(..., device=\"cuda\")`",
        page=f"{ANTI_PATTERNS_PAGE}#cpu-filled-then-copied",
        shown_by="reference-a100-alexnet",
        clean_on="reading-a100-16rank",
        check=cpu_filled_then_copied,
    ),
    Rule(
        id="conv-bias-before-batch-norm",
        source="torch",
        detects="a convolution with a bias followed by a batch norm, which cancels the bias",
        measures=f"convolutions with a bias (recorded shapes) whose next op or the one after is `{BATCH_NORM}`, "
                 "at least 1",
        change="create the convolution with `bias=False`",
        page=f"{ANTI_PATTERNS_PAGE}#conv-bias-before-batch-norm",
        shown_by="reading-anti-patterns",
        clean_on="reading-anti-patterns-fixed",
        check=conv_bias_before_batch_norm,
    ),
    Rule(
        id="half-matmul-not-multiple-of-8",
        source="torch",
        detects=f"fp16 or bf16 matrix multiplies with a dimension that is not a multiple of {TENSOR_CORE_MULTIPLE}",
        measures=f"fp16/bf16 `aten::mm`, `addmm`, `bmm` calls (recorded shapes) with a matrix dimension not a "
                 f"multiple of {TENSOR_CORE_MULTIPLE}, at least 1",
        change=f"pad the sizes (hidden size, vocabulary, batch) to multiples of {TENSOR_CORE_MULTIPLE}",
        page=f"{ANTI_PATTERNS_PAGE}#half-matmul-not-multiple-of-8",
        shown_by="reading-anti-patterns",
        clean_on="reading-anti-patterns-fixed",
        check=half_matmul_not_multiple_of_8,
    ),
    Rule(
        id="fp32-matmul-on-tensor-core-gpu",
        source="torch",
        detects="FP32 matrix multiplies on a GPU whose tensor cores take TF32 (compute capability 8.0 and newer)",
        measures=f"FP32 GEMM kernels' time (by their names) as a share of the GEMM time, at least "
                 f"{FP32_GEMM_SHARE_MIN:g}%",
        change="`torch.backends.cuda.matmul.allow_tf32 = True` or `torch.set_float32_matmul_precision(\"high\")`",
        page=f"{ANTI_PATTERNS_PAGE}#fp32-matmul-on-tensor-core-gpu",
        shown_by="reference-a100-alexnet",
        clean_on="reading-a100-2rank",
        check=fp32_matmul_on_tensor_core_gpu,
    ),
)
