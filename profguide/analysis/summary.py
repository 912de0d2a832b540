"""The shapes of what ``profguide explain --json`` prints: a trace's summary and a folder's job, field by field.

Every key is always present, ``null`` where the trace does not let it be
measured, so that a script reads ``summary["idle"]`` on any trace. Times are
in µs on the trace's own clock; shares are percentages (0 to 100). A field of
a closed vocabulary (a verdict, a rule's id, an idle cause, a host activity)
has its ``Literal`` type from ``profguide.analysis.vocabulary``, which the JSON
Schema lists as an ``enum``. The JSON Schema and the field tables of
``docs/reference/explain.md`` are generated from these types by ``profguide
build`` (into ``docs/generated/site/``).

``schema_version`` changes whenever a key is renamed or removed, or its type
or meaning changes; a new key is added without changing it, so that a script
written for one version reads every later output of the same version.
"""

import json
from typing import Annotated, Any, Final, Literal, TypedDict

import msgspec
from msgspec import Meta

from profguide.analysis.vocabulary import (
    Activity,
    Cause,
    CollectivesAre,
    CollectivesMatchedBy,
    Confidence,
    CpuActivity,
    Engine,
    FindingSource,
    JobVerdict,
    MeasuredOn,
    Phase,
    RuleId,
    TrafficKind,
    TrustCheck,
    TrustSource,
    Verdict,
)

SchemaVersion = Literal[1]  # change with SCHEMA_VERSION
SCHEMA_VERSION: Final = 1


class Step(TypedDict):
    """One ``ProfilerStep#N`` region that ``prof.step()`` marked."""

    step: Annotated[int, Meta(description="N of ProfilerStep#N")]
    start_us: Annotated[float, Meta(description="its start")]
    dur_us: Annotated[float, Meta(description="its duration")]


class MeasuredWindow(TypedDict):
    """The span measured: (start, end) on the trace's clock."""

    start_us: Annotated[float, Meta(description="where it starts")]
    end_us: Annotated[float, Meta(description="where it ends")]
    dur_us: Annotated[float, Meta(description="its length")]


class Distribution(TypedDict):
    """Statistics of a set of durations."""

    count: Annotated[int, Meta(description="how many")]
    mean: Annotated[float, Meta(description="their mean")]
    p50: Annotated[float, Meta(description="their median")]
    p95: Annotated[float, Meta(description="their 95th percentile")]
    max: Annotated[float, Meta(description="the longest")]


class KernelRow(Distribution):
    """The events of one name (kernels, or communication kernels): their time and its distribution."""

    name: Annotated[str, Meta(description="the kernel's name as the trace writes it")]
    total_us: Annotated[float, Meta(description="their durations added")]


class LeftOut(TypedDict):
    """What HolisticTraceAnalysis's window would have left out, had the tool used it."""

    ops: Annotated[int, Meta(description="GPU ops launched in the last ProfilerStep")]
    busy_us: Annotated[float, Meta(description="the GPU's busy time they account for")]
    busy_pct: Annotated[float, Meta(description="that time as a share of all the GPU's busy time")]
    rule: Annotated[str, Meta(description="HTA's rule, in words")]


class HostActivity(TypedDict):
    """The host's time in one activity, over the steps of a trace without GPU work."""

    us: Annotated[float, Meta(description="time in this activity")]
    meaning: Annotated[str, Meta(description="the activity in words")]
    top: Annotated[list[tuple[str, float]], Meta(description="up to three (event name, µs) that took the most")]


class HostWindow(TypedDict):
    """One span the host's time is split over: a ProfilerStep, the window asked for, or the whole trace."""

    label: Annotated[str, Meta(description="ProfilerStep#N, window or trace")]
    start_us: Annotated[float, Meta(description="its start")]
    dur_us: Annotated[float, Meta(description="its length")]
    by_activity_us: Annotated[dict[CpuActivity, float], Meta(description="time in it by activity")]


class OtherThread(TypedDict):
    """Another host thread busy during the main thread's steps."""

    thread: Annotated[str, Meta(description="pid/tid")]
    busy_us: Annotated[float, Meta(description="its time in events during the steps")]
    top: Annotated[str, Meta(description="the event name it spent the most of it in")]


class HostBreakdown(TypedDict):
    """Where the host's time went on a trace without GPU work, on the thread that runs the steps."""

    thread: Annotated[str, Meta(description="pid/tid of that thread")]
    windows: Annotated[list[HostWindow], Meta(description="each ProfilerStep (or the window, or the trace)")]
    dur_us: Annotated[float, Meta(description="the windows' time added")]
    by_activity: Annotated[dict[CpuActivity, HostActivity], Meta(description="that time by activity, every activity")]
    other_threads: Annotated[list[OtherThread], Meta(description="up to three other busy threads, busiest first")]


class IdleCause(TypedDict):
    """GPU idle time of one cause."""

    idle_us: Annotated[float, Meta(description="idle time of this cause")]
    gaps: Annotated[int, Meta(description="how many idle gaps")]
    meaning: Annotated[str, Meta(description="the cause in words")]


class IdleActivity(TypedDict):
    """GPU idle time while the host was late, by what the host was doing."""

    idle_us: Annotated[float, Meta(description="idle time during this host activity")]
    meaning: Annotated[str, Meta(description="the activity in words")]
    top: Annotated[list[tuple[str, float]], Meta(description="up to three (event name, µs) that took the most")]


class Gap(TypedDict):
    """One stretch of time the GPU was idle."""

    start_us: Annotated[float, Meta(description="its start")]
    dur_us: Annotated[float, Meta(description="its length")]
    cause: Annotated[Cause, Meta(description="a key of by_cause")]


class IdleBreakdown(TypedDict):
    """The GPU's busy and idle time in the window, idle time split by cause and by host activity."""

    busy_us: Annotated[float, Meta(description="time some GPU op ran")]
    idle_us: Annotated[float, Meta(description="time none ran")]
    by_cause: Annotated[dict[Cause, IdleCause], Meta(description="host, sync, profiler, queued, other")]
    by_activity: Annotated[dict[Activity, IdleActivity], Meta(description="the host's and sync causes' time, "
                                                                     "by host activity: the activities' idle_us "
                                                                     "add up to those two causes' idle_us")]
    longest_gaps: Annotated[list[Gap], Meta(description="the five longest gaps, longest first")]


class CommunicationKernel(TypedDict):
    """Communication kernels of one name."""

    name: Annotated[str, Meta(description="the kernel's name")]
    total_us: Annotated[float, Meta(description="their durations added")]
    count: Annotated[int, Meta(description="how many")]


class Communication(TypedDict):
    """Communication kernels (NCCL, RCCL, gloo) and how much of their time computation hides."""

    kernels: Annotated[int, Meta(description="how many communication kernels")]
    compute_us: Annotated[float, Meta(description="time any other kernel ran")]
    kernel_us: Annotated[float, Meta(description="time any communication kernel ran")]
    overlapped_us: Annotated[float, Meta(description="communication time during computation")]
    exposed_us: Annotated[float, Meta(description="communication time without computation")]
    overlap_pct: Annotated[float | None, Meta(description="overlapped_us over kernel_us; null without any")]
    host_ops: Annotated[int, Meta(description="host ops named after a communication backend")]
    top: Annotated[list[CommunicationKernel], Meta(description="up to five communication kernels, most time first")]


class ClockSkew(TypedDict):
    """GPU ops that start before the call that launched them: the clocks disagree."""

    ops_starting_before_launch: Annotated[int, Meta(description="how many such ops")]
    at_least_us: Annotated[float, Meta(description="the largest such lead: the GPU clock is this far ahead")]


class OverheadRow(TypedDict):
    """The profiler's own events of one name."""

    count: Annotated[int, Meta(description="how many")]
    total_us: Annotated[float, Meta(description="their time")]
    gpu_idle_during_us: Annotated[float, Meta(description="the part of it the GPU was idle")]
    first_start_us: Annotated[float, Meta(description="where the first starts")]


class ProfilerOverhead(TypedDict):
    """The profiler's own work that CUPTI reports (Activity Buffer Request, Buffer Flush)."""

    events: Annotated[int, Meta(description="how many")]
    total_us: Annotated[float, Meta(description="their time")]
    by_name: Annotated[dict[str, OverheadRow], Meta(description="the same by event name")]


class SyncCall(TypedDict):
    """One host call that waited for the GPU."""

    name: Annotated[str, Meta(description="cudaDeviceSynchronize and kin")]
    start_us: Annotated[float, Meta(description="its start")]
    dur_us: Annotated[float, Meta(description="its length")]
    gpu_busy_during_us: Annotated[float, Meta(description="the GPU's busy time during it")]


class Synchronisations(TypedDict):
    """Host calls that wait for the GPU, and the GPU's own sync events."""

    host_calls: Annotated[int, Meta(description="how many host sync calls")]
    host_time_us: Annotated[float, Meta(description="their time added")]
    gpu_busy_during_us: Annotated[float, Meta(description="the GPU's busy time during them")]
    gpu_sync_events: Annotated[int, Meta(description="sync events on the GPU's side")]
    longest: Annotated[list[SyncCall], Meta(description="the five longest calls, longest first")]


class MemoryTraffic(TypedDict):
    """memcpy or memset events of one name."""

    kind: Annotated[TrafficKind, Meta(description="memcpy or memset")]
    name: Annotated[str, Meta(description="the event name")]
    count: Annotated[int, Meta(description="how many")]
    total_us: Annotated[float, Meta(description="their time")]
    bytes: Annotated[float, Meta(description="the bytes they moved or set, where the trace says")]
    gb_per_s: Annotated[float | None, Meta(description="bytes over time; null without either")]


class Occupancy(TypedDict):
    """The profiler's estimate of achieved occupancy for kernels of one name."""

    name: Annotated[str, Meta(description="the kernel's name")]
    occupancy_pct: Annotated[float, Meta(description="its mean, weighted by duration")]
    total_us: Annotated[float, Meta(description="the kernels' time")]


class EagerGap(TypedDict):
    """Host time between two compiled regions of one step."""

    step: Annotated[int, Meta(description="the ProfilerStep it is in")]
    start_us: Annotated[float, Meta(description="its start")]
    dur_us: Annotated[float, Meta(description="its length")]


class CompileMarkers(TypedDict):
    """What torch.compile left in the trace."""

    compiled_regions: Annotated[int, Meta(description="Torch-Compiled Region calls")]
    compiled_region_us: Annotated[float, Meta(description="their time, side by side counted once")]
    compiled_region_pct: Annotated[float | None, Meta(description="their share of `window`")]
    graph_calls: Annotated[int, Meta(description="calls of a compiled graph")]
    window: Annotated[str, Meta(description="what the shares are of, in words")]
    compilations: Annotated[int, Meta(description="compilations (compile ids, else dynamo ops)")]
    recompilations: Annotated[int, Meta(description="those that recompiled a frame")]
    compile_us: Annotated[float, Meta(description="time compiling")]
    compile_pct: Annotated[float | None, Meta(description="its share of `window`")]
    eager_gaps: Annotated[list[EagerGap] | None, Meta(description="eager code between compiled regions of a "
                                                                  "step; null without ProfilerSteps")]
    eager_gap_us: Annotated[float | None, Meta(description="their time added")]
    triton_kernels: Annotated[int, Meta(description="kernels Triton generated")]
    triton_kernel_us: Annotated[float, Meta(description="their time")]
    triton_pct: Annotated[float | None, Meta(description="their share of all kernels' time")]
    cuda_graph_launches: Annotated[int, Meta(description="cudaGraphLaunch calls and kin")]
    driver_launches: Annotated[int, Meta(description="calls of the driver API")]


class GemmRow(TypedDict):
    """Matrix multiplies of one op, shape and input type: their achieved throughput."""

    op: Annotated[str, Meta(description="aten::mm, aten::addmm and kin")]
    input_dims: Annotated[str, Meta(description="the input shapes as the trace records them")]
    dtype: Annotated[str, Meta(description="the input type")]
    calls: Annotated[int, Meta(description="how many calls")]
    flops: Annotated[int, Meta(description="their floating-point operations")]
    kernel_us: Annotated[float, Meta(description="the time of the kernels they launched")]
    tflops: Annotated[float | None, Meta(description="flops over kernel time, in TFLOP/s")]
    peak_tflops: Annotated[float | None, Meta(description="the datasheet's dense peak; null when unknown")]
    pct_of_peak: Annotated[float | None, Meta(description="tflops as a share of peak_tflops")]


class FamilyRow(TypedDict):
    """One family of kernels (``profguide.analysis.families``): their time, and that time split by what their
    names say. A split holds "unknown" for the kernels whose names do not say; it is empty for a family it does
    not apply to."""

    family: Annotated[str, Meta(description="gemm, convolution, attention, triton, elementwise, reduction, "
                                            "normalization, copy, communication or other")]
    time_us: Annotated[float, Meta(description="the kernels' durations added")]
    share_pct: Annotated[float, Meta(description="that time as a share of all the kernels' durations added")]
    count: Annotated[int, Meta(description="how many kernels")]
    libraries_us: Annotated[dict[str, float], Meta(description="time by library (GEMMs, convolutions, "
                                                               "communication)")]
    precision_us: Annotated[dict[str, float], Meta(description="time by input precision (GEMMs, convolutions, "
                                                               "attention)")]
    tensor_cores_us: Annotated[dict[str, float], Meta(description="time on tensor cores: yes, no, unknown "
                                                                  "(GEMMs, convolutions, attention)")]
    backends_us: Annotated[dict[str, float], Meta(description="time by backend (attention: flash, "
                                                              "memory-efficient, cuDNN, Triton)")]
    kinds_us: Annotated[dict[str, float], Meta(description="time by kind (Triton: pointwise, reduction, "
                                                           "persistent, template; convolutions; collectives)")]


class DeviceSetup(TypedDict):
    """Host time spent setting the device up (``profguide.analysis.startup``): the CUDA context, the
    allocator's pools, lazy loading of kernel modules, cuDNN and cuBLAS set-up."""

    us: Annotated[float, Meta(description="time in set-up calls, on any thread, those side by side counted once")]
    pct: Annotated[float, Meta(description="that time as a share of the window")]
    top: Annotated[list[tuple[str, float]], Meta(description="up to three (call, µs) that took the most")]


class ColdStart(TypedDict):
    """A first iteration much slower than the others."""

    start_us: Annotated[float, Meta(description="its start")]
    dur_us: Annotated[float, Meta(description="its length")]
    times_median: Annotated[float, Meta(description="its length over the median of the other iterations")]
    setup: Annotated[DeviceSetup, Meta(description="the device set-up inside it")]


class Iterations(TypedDict):
    """The loop's iterations, found without ProfilerStep from what repeats on the thread that runs it."""

    found_by: Annotated[str, Meta(description="what marks them: a DataLoader's __next__, the optimizer step, a "
                                              "top-level annotation or module forward")]
    count: Annotated[int, Meta(description="how many")]
    starts_us: Annotated[list[float], Meta(description="where each starts")]
    last_end_us: Annotated[float, Meta(description="where the last ends")]
    median_us: Annotated[float, Meta(description="their median length")]
    cold_start: Annotated[ColdStart | None, Meta(description="the first iteration, when it took at least twice "
                                                             "the others' median; the window then leaves it out")]


class Finding(TypedDict):
    """What one rule (``profguide.analysis.rules``) found: an anti-pattern the trace shows."""

    rule: Annotated[RuleId, Meta(description="the rule's id, stable across versions")]
    source: Annotated[FindingSource, Meta(description="where the rule comes from: torch's anti-pattern matcher, the "
                                            "TensorBoard plugin, Nsight Systems' expert rules, or this guide")]
    measured: Annotated[float, Meta(description="the number the rule compared with its threshold (the reference "
                                                "page's table says what it is)")]
    evidence: Annotated[str, Meta(description="what it saw, in words: times, counts, names")]
    at_us: Annotated[float | None, Meta(description="where to look, on the trace's clock; null when no one place "
                                                    "shows it")]
    change: Annotated[str, Meta(description="the change to try")]
    guide: Annotated[str, Meta(description="the guide's page that shows it, from the site's root")]


class TrustReason(TypedDict):
    """One check of ``profguide.analysis.trust`` that the trace failed."""

    check: Annotated[TrustCheck, Meta(description="the check's id, stable across versions")]
    source: Annotated[TrustSource, Meta(description="where the check comes from: torch's trace validator or this "
                                                    "guide")]
    lowers_to: Annotated[Confidence, Meta(description="the confidence this failure leaves at most: reduced or none")]
    seen: Annotated[str, Meta(description="what it saw, in words")]
    count: Annotated[int, Meta(description="how many events it counted: those that fail the check, or, for the "
                                           "checks of the whole trace, the events (or GPU ops) it holds")]
    at_us: Annotated[float | None, Meta(description="the first place it saw it, on the trace's clock; null when no "
                                                    "one place shows it")]


class Trust(TypedDict):
    """Whether the trace can support a verdict: checks of its integrity, run before the verdict."""

    confidence: Annotated[Confidence, Meta(description="high when every check passed; else the lowest that a "
                                                       "failed check leaves; none gives no verdict")]
    checks: Annotated[int, Meta(description="how many checks ran")]
    reasons: Annotated[list[TrustReason], Meta(description="the checks that failed, in the reference page's order")]


class GraphUse(TypedDict):
    """CUDA (HIP) graphs in the trace: the captures that recorded graphs, and the replays in the window."""

    captures: Annotated[int, Meta(description="stream captures (cudaStreamBeginCapture, hipStreamBeginCapture) in "
                                              "the trace: a trace with any records graphs, whose kernels do not run "
                                              "while they are captured")]
    captured_calls: Annotated[int, Meta(description="launch, copy and set calls made inside those captures: the "
                                                    "nodes they recorded")]
    launches: Annotated[int, Meta(description="graph launches (cudaGraphLaunch, hipGraphLaunch) whose ops run in "
                                              "the window")]
    replayed_ops: Annotated[int, Meta(description="GPU ops in the window that a graph launch replayed: by their "
                                                  "`graph id`, else by the correlation id of their launch")]
    replayed_us: Annotated[float, Meta(description="their time added")]
    replayed_pct: Annotated[float | None, Meta(description="their share of all GPU ops' time in the window; null "
                                                           "without GPU ops")]
    graphs: Annotated[int | None, Meta(description="distinct `graph id`s among them; null where the trace writes "
                                                   "none (older Kineto, ROCm)")]


class ReplayedByOp(TypedDict):
    """The replayed GPU ops that one op of the capture trace recorded."""

    op: Annotated[str, Meta(description="the op (cpu_op) whose launch calls recorded them, in the capture trace")]
    ops: Annotated[int, Meta(description="how many replayed GPU ops it recorded")]
    us: Annotated[float, Meta(description="their time in the replay, added")]


class CaptureJoin(TypedDict):
    """A replay joined to the capture trace of its graphs (``explain --capture``)."""

    file: Annotated[str, Meta(description="the capture trace's path")]
    replayed_ops: Annotated[int, Meta(description="GPU ops the replay's graph launches ran")]
    unmatched_ops: Annotated[int, Meta(description="those no capture matched: their graph's capture recorded "
                                                   "another number of nodes, or is missing")]
    by_op: Annotated[list[ReplayedByOp], Meta(description="up to ten capturing ops, the most replayed time first")]


class ServingStep(TypedDict):
    """One step of a serving engine, as its own annotation names it."""

    name: Annotated[str, Meta(description="the annotation, as the trace writes it")]
    start_us: Annotated[float, Meta(description="its start on the host")]
    dur_us: Annotated[float, Meta(description="its length on the host")]
    phase: Annotated[Phase, Meta(description="prefill, decode, or mixed, from the annotation")]
    prefill_requests: Annotated[int | None, Meta(description="requests in prefill (vLLM's context_N); null where "
                                                             "the annotation does not say")]
    decode_requests: Annotated[int | None, Meta(description="requests decoding (vLLM's generation_M); null where "
                                                            "the annotation does not say")]
    batch: Annotated[int | None, Meta(description="requests in the step (SGLang's bs=, vLLM's N+M)")]
    tokens: Annotated[int | None, Meta(description="tokens the step runs (SGLang's toks=; vLLM's number after "
                                                   "execute_, else the query tokens that open each part's "
                                                   "parentheses, added); null where the annotation does not say")]


class ServingPhase(TypedDict):
    """The verdict over one phase's steps."""

    phase: Annotated[Phase, Meta(description="prefill, decode or mixed")]
    steps: Annotated[int, Meta(description="its steps")]
    window: Annotated[MeasuredWindow, Meta(description="the span judged: the GPU work its steps launched, first "
                                                       "start to last end (the steps themselves where they launched "
                                                       "none); only its longest step's where steps of another phase "
                                                       "lie between")]
    gpu_busy_pct: Annotated[float | None, Meta(description="the GPU's busy time over that span")]
    verdict: Annotated[Verdict, Meta(description="the verdict over that span, by the same rules as the trace's")]
    verdict_basis: Annotated[str, Meta(description="the measurement that decided it")]


class Serving(TypedDict):
    """A serving engine's steps, found from its own annotations, and a verdict per phase."""

    engine: Annotated[Engine, Meta(description="the engine whose annotations name the steps")]
    steps: Annotated[list[ServingStep], Meta(description="its steps, in order of start")]
    phases: Annotated[list[ServingPhase], Meta(description="one per phase the steps run, prefill first")]


class RooflineRow(TypedDict):
    """The counted calls of one op with one set of input shapes and one input type."""

    name: Annotated[str, Meta(description="the op's name as the trace writes it (aten::addmm); in a row by kernel, "
                                          "the kernel's")]
    shapes: Annotated[str, Meta(description="its Input Dims as the trace writes them, on one line; \"\" in a row "
                                            "by kernel")]
    dtype: Annotated[str, Meta(description="the type its work is done in, as the trace writes it (c10::BFloat16)")]
    family: Annotated[str, Meta(description="GEMM, convolution, attention, softmax, normalization, elementwise, "
                                            "reduction, copy or embedding")]
    calls: Annotated[int, Meta(description="how many calls")]
    flops: Annotated[int, Meta(description="their floating-point operations (a multiply-add is two)")]
    bytes: Annotated[int, Meta(description="the least bytes they move: each input read once, each output written "
                                           "once")]
    device_us: Annotated[float, Meta(description="the time of the GPU work launched inside them")]
    kernel: Annotated[str, Meta(description="the name of the kernel (or copy) with most of that time")]
    tflops: Annotated[float | None, Meta(description="flops over device time, in TFLOP/s; null without time")]
    tb_per_s: Annotated[float | None, Meta(description="bytes over device time, in TB/s; null without time")]
    intensity: Annotated[float | None, Meta(description="flops per byte; null when it moves no bytes")]
    peak_tflops: Annotated[float | None, Meta(description="the device's peak for this work (its flat roof), "
                                                          "TFLOP/s; null when the device is not in profguide's "
                                                          "table or has no figure for this type")]
    peak_name: Annotated[str | None, Meta(description="that peak's name: the type and the units (BF16 tensor, FP32 "
                                                      "vector)")]
    roof_tflops: Annotated[float | None, Meta(description="the roof at that intensity: the least of the device's "
                                                          "peak for this work and bandwidth × intensity, in "
                                                          "TFLOP/s; null when the device has no peak in "
                                                          "profguide's table")]
    bound: Annotated[str | None, Meta(description="memory or compute: which roof is the lower at that intensity; "
                                                  "null without a roof")]
    fraction: Annotated[float | None, Meta(description="tflops over roof_tflops (for work with no flops, TB/s over "
                                                       "the bandwidth); null without a roof")]
    lost_us: Annotated[float | None, Meta(description="device time above what the roof allows: device_us × (1 − "
                                                      "fraction); null without a roof")]


class UnmodelledRow(TypedDict):
    """GPU work that no counted op launched, by the op (or region) that launched it."""

    name: Annotated[str, Meta(description="the innermost op or region open at its launch; \"(no op found)\" for "
                                          "GPU work whose launch the trace lacks or no op holds")]
    calls: Annotated[int, Meta(description="GPU ops (kernels, copies, sets) it launched")]
    device_us: Annotated[float, Meta(description="their time")]


class Roofline(TypedDict):
    """Every counted op's place under the device's roof, and how much of the GPU's time that covers."""

    device: Annotated[str | None, Meta(description="the GPU's name from deviceProperties; null when absent")]
    shapes_recorded: Annotated[bool, Meta(description="whether any op records its input shapes "
                                                      "(record_shapes=True), which every formula needs")]
    peaks_model: Annotated[str | None, Meta(description="the row of profguide's peak table it matched; null when "
                                                        "none did (no roofs then)")]
    peaks_source: Annotated[str | None, Meta(description="where that row's peaks come from (a datasheet)")]
    tb_per_s: Annotated[float | None, Meta(description="the device's memory bandwidth, TB/s")]
    device_us: Annotated[float, Meta(description="the time of all GPU work in the window")]
    modelled_us: Annotated[float, Meta(description="the time of the GPU work of counted ops")]
    near_roof_us: Annotated[float, Meta(description="of modelled_us, the time of ops at half their roof or more")]
    furthest: Annotated[list[RooflineRow], Meta(description="the ops (by name, shapes and type) with the most time "
                                                            "lost below their roof, most first")]
    unmodelled: Annotated[list[UnmodelledRow], Meta(description="GPU work with no formula, by the op that launched "
                                                                "it, most time first (the first ten)")]


class Measured(TypedDict):
    """What ``summarise`` measures about one trace, over one window, before it gives the verdict."""

    events: Annotated[int, Meta(description="complete events read")]
    device: Annotated[str | None, Meta(description="the GPU's name; null when the trace does not say")]
    skipped_events: Annotated[dict[str, int], Meta(description="events left out, by reason")]
    repairs: Annotated[dict[str, int], Meta(description="what the loader mended in the trace's text to read it "
                                                        "(bytes that are not UTF-8, lone surrogate escapes), kept "
                                                        "in the events as U+FFFD: how many of each")]
    unanalysed_events: Annotated[dict[str, int], Meta(description="events of device kinds not analysed, by "
                                                                  "category")]
    steps: Annotated[list[Step], Meta(description="the ProfilerSteps, in order of start")]
    iterations: Annotated[Iterations | None, Meta(description="without ProfilerSteps, the iterations of the loop; "
                                                              "null when nothing repeats or the trace has steps")]
    device_setup: Annotated[DeviceSetup | None, Meta(description="device set-up over the window; null without "
                                                                 "GPU work")]
    window: Annotated[MeasuredWindow | None, Meta(description="the GPU window measured; null without GPU work")]
    window_definition: Annotated[str, Meta(description="what the window is, in words")]
    host: Annotated[HostBreakdown | None, Meta(description="the host's time, on a trace without GPU work; null "
                                                           "otherwise")]
    left_out_of_window: Annotated[LeftOut | None, Meta(description="what HTA's window would have left out, when "
                                                                   "the tool widened it")]
    gpu_busy_pct: Annotated[float | None, Meta(description="the GPU's busy time over the window")]
    gpu_idle_pct: Annotated[float | None, Meta(description="its idle time over the window")]
    gpu_idle_pct_by_htas_rule: Annotated[float | None, Meta(description=(
        "the GPU's idle time over the same window with busy time from the ops HolisticTraceAnalysis's temporal "
        "breakdown counts, at the trace's own times; the reference page checks it against HTA's own; null "
        "without GPU work"))]
    idle: Annotated[IdleBreakdown | None, Meta(description="the idle time's causes; null without GPU work")]
    top_kernels: Annotated[list[KernelRow], Meta(description="up to ten kernels of the window, most time first")]
    kernel_families: Annotated[list[FamilyRow], Meta(description="the kernels that start in the window by family, "
                                                                 "most time first")]
    communication: Annotated[Communication, Meta(description="communication kernels over the window")]
    launch_delay_us: Annotated[dict[str, Distribution], Meta(description="call end to GPU start on an empty "
                                                                         "stream, by API (runtime, driver)")]
    queueing_us: Annotated[Distribution | None, Meta(description="the same behind earlier work on the stream")]
    clock_skew: Annotated[ClockSkew | None, Meta(description="null when no GPU op is joined to its launch")]
    profiler_overhead: Annotated[ProfilerOverhead, Meta(description="the profiler's own work")]
    synchronisations: Annotated[Synchronisations, Meta(description="host syncs and GPU sync events")]
    memory_traffic: Annotated[list[MemoryTraffic], Meta(description="memcpy and memset by name, most time first")]
    occupancy: Annotated[list[Occupancy], Meta(description="up to ten kernels' occupancy, most time first")]
    compile: Annotated[CompileMarkers, Meta(description="what torch.compile left")]
    gemm: Annotated[list[GemmRow], Meta(description="matrix multiplies with recorded shapes, most time first")]
    roofline: Annotated[Roofline | None, Meta(description="the ops' place under the device's roof; null for a trace "
                                                          "without GPU work")]
    trust: Annotated[Trust, Meta(description="whether the trace can support a verdict, and why not")]
    graphs: Annotated[GraphUse | None, Meta(description="CUDA graphs captured in the trace or replayed in the "
                                                        "window; null when it does neither")]


class Summary(Measured):
    """Everything explain says about one trace, over one window."""

    verdict: Annotated[Verdict, Meta(description="what limits the run, one word (the page's table)")]
    verdict_text: Annotated[str, Meta(description="the verdict in a sentence, with what to try")]
    verdict_basis: Annotated[str, Meta(description="the measurement that decided the verdict, and the rule's "
                                                   "threshold, in words")]
    findings: Annotated[list[Finding], Meta(description="what the rules found, in the order of the reference "
                                                        "page's table")]
    serving: Annotated[Serving | None, Meta(description="a serving engine's steps and a verdict per phase; null "
                                                        "when the trace has no engine's step annotations")]


class TraceSummary(Summary):
    """``explain --json`` of one trace file."""

    schema_version: Annotated[SchemaVersion, Meta(description="the version of this shape")]
    file: Annotated[str, Meta(description="the trace's path")]
    trace_start_us: Annotated[float, Meta(description="the first event's start: Perfetto's zero")]
    rank: Annotated[int | None, Meta(description="the rank distributedInfo gives; null without one")]
    capture: Annotated[CaptureJoin | None, Meta(description="with --capture, the replay's GPU ops joined to the ops "
                                                            "that captured them; null otherwise")]


Stream = int | str | None  # a kernel's stream (the tid of its lane); None for a host op
# (name, stream, start µs, duration µs, which collective of which process group it is where the trace says)
Collective = tuple[str, Stream, float, float, str | None]


class RankFields(TypedDict):
    """What one rank's row says, whether it lists its collectives or counts them."""

    file: Annotated[str, Meta(description="the rank's trace")]
    rank: Annotated[int | None, Meta(description="the rank distributedInfo gives")]
    world_size: Annotated[int | None, Meta(description="the world size distributedInfo gives")]
    backend: Annotated[str | None, Meta(description="nccl, gloo…, as distributedInfo gives it")]
    host_name: Annotated[str | None, Meta(description="the machine the rank ran on, as the trace's host_name "
                                                      "metadata gives it; null without one")]
    device: Annotated[str | None, Meta(description="the GPU's name")]
    events: Annotated[int, Meta(description="complete events read")]
    measured_on: Annotated[MeasuredOn, Meta(description="GPU, main thread (no GPU work), or nothing")]
    window: Annotated[MeasuredWindow | None, Meta(description="the span measured")]
    busy_us: Annotated[float, Meta(description="the GPU's busy time, or the main thread's time in ops")]
    idle_us: Annotated[float, Meta(description="the rest of the window")]
    communication_us: Annotated[float, Meta(description="time any collective ran, in the window")]
    exposed_us: Annotated[float, Meta(description="the part of it nothing else on the rank overlapped")]
    steps: Annotated[int, Meta(description="how many ProfilerSteps")]
    median_step_us: Annotated[float | None, Meta(description="their median duration")]
    verdict: Annotated[Verdict, Meta(description="the rank's own verdict")]
    trust: Annotated[Confidence, Meta(description="the confidence of the rank's trust check (its trace's explain "
                                                  "gives the reasons)")]
    collectives_are: Annotated[CollectivesAre, Meta(description="kernels, or host ops (a backend's op on the host)")]


class RankSummary(RankFields):
    """One rank, as ``rank_summary`` reads it: its collectives listed in order."""

    collectives: list[Collective]


class RankRow(RankFields):
    """One rank's row of the job."""

    collectives: Annotated[int, Meta(description="how many collectives it ran")]
    shared_collective_us: Annotated[float, Meta(description="the durations of the collectives every rank ran, "
                                                            "added")]
    wait_us: Annotated[float | None, Meta(description="its wait for the straggler; null when none is named")]
    wait_pct: Annotated[float | None, Meta(description="that wait over its window")]


class Alignment(TypedDict):
    """The collective the ranks are aligned on: the n-th of its name on its stream, on every rank."""

    name: Annotated[str, Meta(description="its name")]
    stream: Annotated[Stream, Meta(description="its stream; null for a host op")]
    occurrence: Annotated[int, Meta(description="n, from 0")]
    end_us: Annotated[list[float], Meta(description="where it ends on each rank, in rank order")]


class Job(TypedDict):
    """A distributed job from its ranks' traces."""

    ranks: Annotated[list[RankRow], Meta(description="a row per rank, in rank order")]
    world_size: Annotated[int | None, Meta(description="the largest world size a rank gives")]
    shared_collectives: Annotated[int, Meta(description="collectives every rank ran")]
    matched_by: Annotated[CollectivesMatchedBy, Meta(description="how a rank's collectives are matched to the "
                                                                  "others': by their process group and Seq where "
                                                                  "every one carries them, else by name, stream and "
                                                                  "order")]
    aligned_on: Annotated[Alignment | None, Meta(description="null when no collective is shared")]
    stray_us: Annotated[float, Meta(description="how far matched collectives' ends stray from the clock "
                                                "offsets (median)")]
    strays: Annotated[bool, Meta(description="whether they stray too far to match (then no straggler)")]
    straggler: Annotated[int | None, Meta(description="an index into ranks; null when none is named")]
    straggler_host_alone: Annotated[bool | None, Meta(description="whether no other rank ran on the straggler's "
                                                                  "machine (host_name): true points at the "
                                                                  "machine, false at the rank; null without a "
                                                                  "straggler or host names")]
    verdict: Annotated[JobVerdict, Meta(description="straggler, or what most ranks' verdicts say")]
    verdict_text: Annotated[str, Meta(description="the verdict in a sentence")]


class FolderJob(Job):
    """``explain --json`` of a folder of rank traces."""

    findings: Annotated[list[Finding], Meta(description="what the job rules found (each rank's own are in its "
                                                        "trace's explain)")]
    schema_version: Annotated[SchemaVersion, Meta(description="the version of this shape")]
    folder: Annotated[str, Meta(description="the folder, or the recording")]


OUTPUTS = (TraceSummary, FolderJob)  # what ``--json`` prints: one of these


def json_schema(outputs: tuple[Any, ...] = OUTPUTS, title: str = "profguide explain --json") -> dict[str, Any]:
    """The JSON Schema of a command's ``--json`` output, one of the types ``outputs`` (default: explain's, a
    trace's summary or a folder's job; ``profguide.analysis.diff.OUTPUTS`` for diff's)."""
    refs, definitions = msgspec.json.schema_components(outputs)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": title,
            "description": f"schema_version {SCHEMA_VERSION}; the fields are documented in docs/reference/explain.md",
            "anyOf": list(refs), "$defs": definitions}


def schema_text(outputs: tuple[Any, ...] = OUTPUTS, title: str = "profguide explain --json") -> str:
    return json.dumps(json_schema(outputs, title), indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def type_text(schema: dict[str, Any]) -> str:
    """A property's type as a table cell: ``float``, ``list of Step``, ``MeasuredWindow or null``."""
    if "$ref" in schema:
        return f"[{schema['$ref'].rpartition('/')[2]}](#{schema['$ref'].rpartition('/')[2].lower()})"
    if "anyOf" in schema:
        return " or ".join(type_text(option) for option in schema["anyOf"])
    if "enum" in schema and all(isinstance(value, str) for value in schema["enum"]):
        return "str"  # a closed vocabulary: the schema lists its words, the field's meaning says what they are
    if "enum" in schema:
        return " or ".join(f"`{value}`" for value in schema["enum"])
    kind = str(schema.get("type"))
    if kind == "array" and "prefixItems" in schema:
        return "[" + ", ".join(type_text(item) for item in schema["prefixItems"]) + "]"
    if kind == "array":
        return "list of " + type_text(schema["items"])
    if kind == "object":
        return "object of " + type_text(schema.get("additionalProperties", {}))
    return {"integer": "int", "number": "float", "string": "str", "boolean": "bool", "null": "null"}.get(kind, "any")


def field_tables() -> str:
    """The Markdown tables of every type's fields, from the schema: name, type, meaning."""
    definitions = json_schema()["$defs"]
    parts = []
    for name, schema in definitions.items():
        rows = [f"| `{field}` | {type_text(spec)} | {spec.get('description', '')} |"
                for field, spec in schema["properties"].items()]
        parts.append(f"### {name}\n\n{schema.get('description', '')}\n\n| Key | Type | Meaning |\n|---|---|---|\n"
                     + "\n".join(rows) + "\n")
    return "\n".join(parts)
