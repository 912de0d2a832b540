"""The cheat sheet: what a table or trace shows, what it means, what to try, where the guide shows it,
and the number one of the guide's runs measured for it (a claim's, so the build checks it)."""

import re
from collections.abc import Sequence
from dataclasses import dataclass

from profguide.site.claims import DEVICE_WORDS, WAITS, ClaimCheck
from profguide.site.fragment_run import FragmentError
from profguide.site.recordings import Measure
from profguide.text import count_of


@dataclass(frozen=True)
class Sign:
    """One row: what you see, what it means, what to try, where it is shown (markdown, relative to the cheat
    sheet's page), and the claims whose measurements stand for it: (recording or real trace id, the claims'
    words, what they measure in words with a place for each value: ``{share}``, ``{times}``, ``{count}`` or
    ``{yes_no}``). Where several claims of the recording share the words (one sentence, several measures), the
    words have a place for each, in the order the recording lists them."""

    see: str
    means: str
    try_: str
    shown: str
    evidence: tuple[str, str, str] | None = None


SIGNS = {
    "In the summary table": (
        Sign("A row with a large total and a tiny self time (`aten::linear`, `aten::matmul`, your own region)",
             "The time is its children's: the row only decides and calls",
             "Sort by `self_cpu_time_total` (on a GPU, `self_device_time_total`)",
             "[Self and total](table.md#self-and-total)",
             ("reading-table", "`aten::linear` has almost no self time",
              "`aten::linear`'s self time: {share} of its total")),
        Sign("Totals that add up to far more than 100%",
             "Totals overlap through nesting; only self times add up", "Add up self times, never totals",
             "[Self and total](table.md#self-and-total)"),
        Sign("One row for an op called with different shapes", "The table merges every call of a name",
             "`record_shapes=True`, then `key_averages(group_by_input_shape=True)`",
             "[`group_by_input_shape`](table.md#group_by_input_shape)",
             ("reading-table", "`aten::addmm` on four rows",
              "`aten::addmm` on {count} rows, grouped by input shape")),
        Sign("No *Source Location* column, or empty `stack`s, with `with_stack=True`",
             "A known regression: stacks need the verbose experimental option",
             "`experimental_config=_ExperimentalConfig(verbose=True)`",
             "[`group_by_stack_n`](table.md#group_by_stack_n)",
             ("reading-table-stacks", "`aten::addmm` appears once for each `nn.Linear`",
              "`aten::addmm` on {count} rows, grouped by stack")),
        Sign("Rows named after Python files (`module.py(…): _call_impl`)",
             "`with_stack` records Python functions as events",
             "Read the op rows; group by stack to find the caller",
             "[`group_by_stack_n`](table.md#group_by_stack_n)"),
        Sign("The same CUDA time on several rows",
             "Device time is attributed up the nesting, and each kernel's time is on its own row and on its "
             "operator's",
             "Read the *Self CUDA time total* line, or add up *Self CUDA* over the operator rows only; never add "
             "up *CUDA total*",
             "[On a GPU](table.md#on-a-gpu-device-time-and-three-known-confusions)",
             ("reading-table-h100-bert", "the same kernel time appears on the rows of `aten::linear` and again on "
                                         "those of `aten::addmm`",
              "`aten::linear`'s device time: {times} `aten::addmm`'s")),
        Sign("*Self CUDA %* above 100",
             "A region's GPU-side annotation: its row holds the region's span on the GPU, which the total leaves "
             "out",
             "Read the region's device time off the trace",
             "[On a GPU](table.md#on-a-gpu-device-time-and-three-known-confusions)"),
        Sign("A negative *Self CPU Mem*",
             "The event freed more than it allocated: frees count as negative allocations",
             "Nothing: it says where memory went back",
             "[The memory columns](table.md#the-memory-columns), [Memory](memory.md#two-memory-columns)",
             ("reading-table", "the `forward` region's Self CPU Mem is negative",
              "`forward` freed {share} of what its ops allocated")),
    ),
    "In the trace: the CPU lane": (
        Sign("The first call or step many times slower than the rest",
             "One-time set-up: kernels loaded, memory allocated, libraries initialised",
             "Leave it out with a schedule (`wait`, `warmup`), and never average it in",
             "[Small inputs against large ones](../basics/index.md#small-inputs-against-large-ones), "
             "[Why is the first step slow?](../basics/steps.md#why-is-the-first-step-slow)",
             ("basics-steps-from-first", "the first step is by far the slowest",
              "the first step took {times} as long as the slowest later one")),
        Sign("Gaps between the ops inside a region", "Python, module calls and dispatch between ops",
             "Fewer, larger ops; `with_stack=True` to find the Python",
             "[Your first trace](../basics/first-trace.md#the-cpu-lane-nesting-is-the-call-stack), "
             "[Small inputs against large ones](../basics/index.md#small-inputs-against-large-ones)",
             ("basics-matmul-64-calls", "a large share of every later call is spent in no operator at all",
              "{share} of each later `matmul_bias` call in no op")),
        Sign("`aten::copy_` (or `aten::clone`) under `aten::matmul`, `aten::linear` or `aten::reshape`",
             "A non-contiguous input (a transpose, a permute, a strided slice) copied before the multiply",
             "Make the tensor contiguous once, upstream, or change the layout that forces it",
             "[Reading the chains](dispatch.md#reading-the-chains)",
             ("reading-dispatch", "the transposed input is copied first",
              "`nn.Linear` on a transposed 3-D input calls `aten::copy_`: {yes_no}")),
        Sign("`aten::bmm` where you expected `aten::mm`, or the reverse",
             "`aten::matmul` picks the operator from the shapes",
             "Check the shapes with `group_by_input_shape`", "[Reading the chains](dispatch.md#reading-the-chains)",
             ("reading-dispatch", "two batched operands go to `aten::bmm`",
              "`x @ y` of two 3-D tensors calls `aten::bmm`: {yes_no}")),
        Sign("`cudaOccupancyMaxActiveBlocksPerMultiprocessor…` before a launch",
             "A GEMM library (cuDNN's inside a convolution, or cuBLAS) sizing some matrix-multiply launches",
             "Nothing, unless launches are the bottleneck",
             "[The launch and the kernel](dispatch.md#on-a-gpu-the-launch-and-the-kernel)",
             ("reading-a100-2rank-launches",
              "every occupancy query in this trace is followed by the launch of a matrix-multiply kernel",
              "{share} of the occupancy queries followed by a matrix-multiply launch")),
        Sign("`enumerate(DataLoader)#…__next__` taking a large part of every step",
             "The step waits for its data (`input-bound`)",
             "`DataLoader(num_workers=…)`, then `pin_memory`, prefetching",
             "[The input pipeline](input-pipeline.md#without-workers)",
             ("reading-input-workers-0", "waiting for data is the largest single part of every step",
              "waiting for data took {times} as long as the next largest host activity, in the step where it led "
              "least")),
        Sign("A last `ProfilerStep` with nothing in it",
             "The loop ended before the schedule's active phase: a phantom step",
             "Leave it out of averages; run `wait + warmup + active` steps",
             "[The phantom step](footprint.md#the-phantom-step)",
             ("reading-footprint-phantom", "It holds no op at all",
              "{count} ops in the last recorded step")),
        Sign("Host ops that take tens of µs in a trace, even views (`aten::view`, `aten::empty`)",
             "Time besides the op itself: the profiler's bookkeeping, its options, a busy host",
             "Time a few steps without the profiler before you trust a `launch-bound` verdict",
             "[A slow host, or a profiled one?](gpu-waits.md#a-slow-host-or-a-profiled-one), "
             "[What each option costs](footprint.md#what-each-option-costs)",
             ("reading-a100-2rank", "Even `aten::view`, which makes a new view of a tensor's sizes and does no "
                                    "arithmetic, takes longer at the median than the median kernel, though less "
                                    "than twice as long",
              "the median `aten::view` took {times} as long as the median kernel of the same trace")),
        Sign("Steps slower under the profiler than without it", "The profiler's own cost, larger with each option",
             "Turn on only the options you need; profile a few steps",
             "[What each option costs](footprint.md#what-each-option-costs)",
             ("reading-footprint-cost", "With all three options on, the median step is clearly slower than "
                                        "without the profiler, but less than twice as slow",
              "the median step with all three options took {times} as long as without the profiler")),
    ),
    "In the trace: the GPU lanes": (
        Sign("A long `cudaDeviceSynchronize` at the end, after the last `ProfilerStep`",
             "The host waiting for the GPU to finish what it was given; after the last step, the profiler's own "
             "sync when it stops",
             "Read the GPU lane, not the sync; leave the profiler's sync out of the steps",
             "[Why is the sync so long?](../basics/first-trace.md#why-is-the-sync-so-long), "
             "[The long synchronisation](gpu-waits.md#the-long-synchronisation)",
             ("reading-a100-16rank", "The longest synchronisation of the trace starts only after the last step has "
                                     "ended",
              "the longest host sync starts after the last step: {yes_no}")),
        Sign("Short kernels with gaps between them (`launch-bound`)",
             "The GPU finishes each kernel before the host launches the next",
             "Fewer, larger ops: `torch.compile`, bigger batches, CUDA graphs",
             "[Idle time and its causes](gpu-waits.md#idle-time-and-its-causes)",
             ("reading-a100-2rank", "most of the window went by with the GPU waiting for the host to launch",
              "the GPU idle, waiting for the host to launch, {share} of the window")),
        Sign("A kernel that starts long after its launch",
             "Queueing behind earlier work on its stream (the GPU is busy), not launch delay",
             "Nothing if the GPU is busy; otherwise look at what it waited for",
             "[Launch delay against queueing](gpu-waits.md#launch-delay-against-queueing)",
             ("reading-a100-2rank", "waited more than ten times as long as an op launched onto an empty stream",
              "the median kernel queued {times} as long as the median launch delay")),
        Sign("A sync inside every step (`cudaStreamSynchronize`, `aten::item`)",
             "The host stops until the GPU catches up; it costs the step only when it lasts, or the GPU runs dry "
             "after it (`sync-bound`)",
             "Check how long each lasts and the GPU's idle time after it; read values back less often",
             "[The long synchronisation](gpu-waits.md#the-long-synchronisation)",
             ("reading-a100-16rank", "none of them lasts a hundredth of its step",
              "the longest sync inside a step: {share} of that step")),
        Sign("GPU idle with the next op already queued",
             "The op waits for something else: another stream, or another rank",
             "Look at communication and at the slowest rank",
             "[Idle time and its causes](gpu-waits.md#idle-time-and-its-causes)",
             ("reading-a100-16rank", "the GPU sat idle for most of the window with its next op already queued",
              "the GPU idle with its next op queued {share} of the window")),
        Sign("One kernel's calls of very different lengths", "The mean describes no call",
             "Read the median and the p95",
             "[Kernel time that varies](gpu-waits.md#kernel-time-that-varies-from-call-to-call)",
             ("reading-a100-16rank", "its mean is about five times its median",
              "the top kernel's mean duration: {times} its median")),
        Sign("A matrix multiply far below the datasheet's TFLOP/s",
             "Small shapes, a slow data type, or layout copies", "Larger shapes, bf16 or TF32, contiguous inputs",
             "[Achieved TFLOP/s](gpu-waits.md#achieved-tflops-against-the-peak)",
             ("reading-h100-qwen-gemms", "the multiply with the most kernel time reaches more than half of the "
                                         "datasheet's bf16 peak, but not two thirds",
              "the matrix multiply with the most kernel time at {share} of the datasheet's peak TFLOP/s")),
        Sign("An `Activity Buffer Request` event", "The profiler allocating buffers for CUPTI mid-step",
             "Treat that step as distorted; record after a warm-up",
             "[The Activity Buffer Request](footprint.md#on-a-gpu-the-activity-buffer-request)"),
    ),
    "Several ranks": (
        Sign("A collective (`gloo:all_reduce`, an NCCL kernel) much longer on one rank than on another",
             "The rank with the long one waited for the other: the one with the shortest is the straggler",
             "`profguide explain DIR` on the folder of rank traces; then find what delays the straggler",
             "[The straggler](../multi-gpu/straggler.md#measured-wait-per-rank)",
             ("multigpu-straggler", "rank 0 spends about nine tenths of its time waiting for it",
              "the longest wait for the straggler: {share} of that rank's window")),
        Sign("NCCL kernels alone on their stream while the compute stream is empty",
             "Exposed communication: the step waits for the data of the other ranks",
             "Start buckets earlier (a smaller `bucket_cap_mb`); look for a straggler first",
             "[Communication against computation](../multi-gpu/overlap.md#a-job-where-communication-is-the-cost)",
             ("multigpu-a100-16rank-overlap", "exposed communication takes more than a tenth of every step's window",
              "exposed communication: {share} of the step's window, in the step with the least")),
        Sign("Several `c10d::allreduce_` a step, each inside an `AccumulateGrad`",
             "DDP's reducer all-reducing one bucket of gradients as soon as the bucket is full",
             "Nothing: that is how the all-reduce overlaps the backward pass",
             "[The reducer's buckets](../multi-gpu/collectives.md#the-reducers-buckets)",
             ("multigpu-ddp", "every step all-reduces its gradients in more than one bucket",
              "at least {count} `all_reduce` ops in every step")),
    ),
    "Compiled code": (
        Sign("A first call of a compiled function many times longer than the rest, a `dynamo` event inside it",
             "Compilation: Dynamo, AOTAutograd and Inductor run inside the first call",
             "Leave it out of the profile with a schedule; a second run reuses Inductor's cache on disk",
             "[The first call](../torch-compile/cost.md#the-first-call)",
             ("compile-cost", "The first call took more than a thousand times as long as the calls after it",
              "the first call took {times} as long as the median later call")),
        Sign("A long call among fast ones, in a region whose number after the slash grew (`0/1`)",
             "A recompilation: a new shape (or value) failed the guards of every compiled version",
             "`TORCH_LOGS=\"recompiles\"` to see the guard; `dynamic=True`, or fewer shapes",
             "[A new shape](../torch-compile/cost.md#a-new-shape)",
             ("compile-cost", "the first new shape compiled again",
              "{count} calls compiled")),
        Sign("Two `Torch-Compiled Region`s in one call, with an op such as `aten::item` between their graphs",
             "A graph break: Dynamo stopped the graph, ran Python eagerly, and resumed in a second graph",
             "`torch._dynamo.explain` or `TORCH_LOGS=\"graph_breaks\"` to name the cause; keep values on the device",
             "[Reading the break](../torch-compile/graph-breaks.md#reading-the-break)",
             ("compile-graph-break", "each call runs two compiled regions",
              "{count} `Torch-Compiled Region`s in each call, calling {count} compiled graphs")),
        Sign("Fewer ops per step once compiled, the elementwise ones gone", "Inductor fused them into generated code",
             "Nothing; on a GPU, count the kernels too",
             "[Ops and kernels per step](../torch-compile/fusion.md#ops-and-kernels-per-step)",
             ("compile-fusion-compiled", "The compiled step records fewer ops than the eager one, but more than "
                                         "half as many",
              "the eager step recorded {times} as many ops as the compiled one")),
        Sign("A compiled step no faster (or slower) than the eager one at a small size",
             "The compiled code's own overhead (guards, wrappers) is larger than what it saves",
             "Compile larger pieces of work; on a GPU, `mode=\"reduce-overhead\"` (CUDA graphs)",
             "[Small and large](../torch-compile/when-it-pays.md#small-and-large)",
             ("compile-pays-small", "At the small size, compiling did not pay: the compiled step was slower "
                                    "than the eager one, by up to two fifths",
              "the median compiled step took {times} as long as the eager one")),
    ),
    "Memory": (
        Sign("Memory that grows from step to step",
             "Something kept across steps: a tensor held in Python, a graph kept alive",
             "Compare the categories step by step; on a GPU, take a memory snapshot",
             "[Memory by category](memory.md#memory-by-category), "
             "[Memory snapshots](memory.md#on-a-gpu-memory-snapshots)",
             ("reading-memory", "activations come and go inside each step: none are left when the last step ends",
              "the activations left at the end: {share} of their peak")),
    ),
    "Inside a model": (
        Sign("`aten::t`, `aten::view`, `aten::as_strided` under a layer, with no kernel of their own",
             "Views: a new shape and strides over the same memory, no arithmetic",
             "Nothing on the GPU; on the host they are bookkeeping that compiling removes",
             "[Views](../inside-a-model/linear.md#views-bookkeeping-not-arithmetic)",
             ("model-linear-eager", "under `aten::t`, `aten::transpose` ends in one `aten::as_strided`",
              "{count} `aten::as_strided` under `aten::t`, per call")),
        Sign("No `aten::add` (or `aten::add_`) after a Linear's `aten::addmm`",
             "The bias rides in the multiply (on a GPU, in the GEMM's epilogue)",
             "Nothing: a separate add after a Linear would be the surprise",
             "[The bias rides in the multiply](../inside-a-model/linear.md#the-bias-rides-in-the-multiply)",
             ("model-linear-eager", "There is no `aten::add` or `aten::add_` in the 2-D input's region",
              "{count} `aten::add` and {count} `aten::add_` in the layer's region")),
        Sign("`aten::clone` and `aten::copy_` under `aten::masked_fill`",
             "The out-of-place fill copies the scores before it masks them",
             "`masked_fill_` where the scores are yours to change, or SDPA with `is_causal=True`",
             "[By hand](../inside-a-model/attention.md#by-hand-the-copy-that-masked_fill-makes)",
             ("model-attention-masked-fill", "`aten::masked_fill` holds one `aten::clone`",
              "{count} `aten::clone` under each `aten::masked_fill`")),
        Sign("`aten::ones`, `aten::tril` and several `aten::_to_copy` under `scaled_dot_product_attention`",
             "The math backend ran: it builds the mask and upcasts to float32",
             "Pin a fused backend with `torch.nn.attention.sdpa_kernel` and read which op ran",
             "[The math backend](../inside-a-model/attention.md#the-math-backend)",
             ("model-attention-sdpa-math", "converts with `aten::_to_copy` seven times",
              "{count} `aten::_to_copy` in one call")),
        Sign("A compiled block whose GEMMs stay and whose pointwise ops are gone",
             "Inductor fused the pointwise ops into one generated kernel; the matrix multiplies stay library calls",
             "Read the generated kernel's name: it lists the ops it merged",
             "[Compiled](../inside-a-model/mlp.md#compiled-the-multiplies-stay-the-pointwise-ops-fuse)",
             ("model-mlp-compiled", "The compiled forward still holds three `aten::mm`",
              "{count} `aten::mm` left in the compiled forward")),
        Sign("A norm module that launches one kernel per operator (`pow`, `mean`, `rsqrt`, casts, multiplies)",
             "RMSNorm or LayerNorm written in operators: each kernel is a pass over the activations",
             "A fused norm: compile the block, or use a library's fused kernel",
             "[RMSNorm as a chain](../inside-a-model/transformer-block.md#rmsnorm-as-a-chain-of-elementwise-kernels)",
             ("reading-h100-qwen", "Each call of `Qwen2RMSNorm` launches eight kernels",
              "{count} kernels per `Qwen2RMSNorm` call, Qwen1.5-0.5B on an H100")),
        Sign("An op that `explain` names as losing the most time below its roofline",
             "Its kernel is slow for the work it does, not merely big: a poor tile for its shapes, a copy, too few "
             "rows for the weights it reads",
             "Read its kernel's name and footprint (`explain --ops`); more rows (a bigger batch), a fused kernel",
             "[When to stop](../inside-a-model/kernel-speed.md#when-to-stop)",
             ("speed-h100-qwen", "reaching about a fifth of that roof",
              "flash attention's forward at {share} of its roof, Qwen1.5-0.5B on an H100")),
        Sign("An elementwise op near the memory's bandwidth in `explain --ops`",
             "It is as fast as its bytes allow: a faster kernel cannot help",
             "Move fewer bytes: fuse it into its neighbour (`torch.compile`), or a smaller type",
             "[An elementwise op](../inside-a-model/kernel-speed.md#an-elementwise-op-bytes-not-flops)",
             ("speed-h100-qwen", "close to nine tenths of the H100's bandwidth",
              "the MLP's gated `aten::mul` at {share} of the bandwidth, Qwen1.5-0.5B on an H100")),
        Sign("Attention modules that take far longer than their attention kernel",
             "The elementwise work around it (a rotary embedding, `contiguous` copies of heads) costs more",
             "Fuse the rotary embedding (compile, or a fused kernel); keep heads in the layout the kernel reads",
             "[Flash attention in a real model](../inside-a-model/transformer-block.md"
             "#flash-attention-in-a-real-model)",
             ("reading-h100-qwen", "the flash attention kernel takes under a fifth of the attention modules' time",
              "the flash kernel: {share} of the attention modules' device time, Qwen1.5-0.5B on an H100")),
    ),
    "Serving a model": (
        Sign("The first step of a generation many times longer than the rest",
             "The prefill: one forward over the whole prompt, not a cold start",
             "Compare decode steps with decode steps; warm up with a whole generation outside the trace; name each "
             "phase's region `prefill …` or `decode …` and `explain` judges each phase",
             "[Prefill and decode in the table](../serving-a-model/generation.md#prefill-and-decode-in-the-table)",
             ("serving-generation-batch-1", "On the CPU, the prefill step took several times as long as a decode "
                                            "step", "the prefill took {times} as long as a decode step, on the CPU")),
        Sign("Allocations that grow by the same amount at every decode step, `aten::cat` at the top of *Self CPU "
             "Mem*",
             "A KV cache that grows by concatenation: it is allocated anew, one token longer, at every step",
             "Divide the growth by 2 × layers × key-value width × bytes × batch; a static or paged cache removes "
             "the copies",
             "[The dynamic cache in the trace](../serving-a-model/kv-cache.md#the-dynamic-cache-in-the-trace)",
             ("serving-kv-dynamic", "each decode step's `aten::cat` calls allocate exactly one token's keys and "
                                    "values more than the step's before",
              "`aten::cat`'s allocations grew by {times} a token's keys and values at each step")),
        Sign("`aten::cat` taking a large share of every decode step, growing with the context",
             "The cache copied whole at every step",
             "A static cache written in place (`index_copy_`), or a paged one",
             "[What the copies cost](../serving-a-model/kv-cache.md#what-the-copies-cost)",
             ("serving-kv-dynamic", "On the CPU stand-in, the concatenations take about a third of each decode "
                                    "step", "`aten::cat`: {share} of a decode step, on the CPU")),
        Sign("`Torch-Compiled Region: 0/N` whose N changes from one decode step to the next",
             "Dynamo compiling again as the shapes change",
             "A static cache, so that every decode step has the same shapes; `TORCH_LOGS=recompiles` names the "
             "guard",
             "[One graph for every decode step](../serving-a-model/compiled-decoding.md"
             "#one-graph-for-every-decode-step)",
             ("serving-decode-compiled", "Every decode step runs the same compiled graph, `Torch-Compiled Region: "
                                         "0/1`", "{count} decode steps ran the one compiled graph")),
        Sign("One `cudaGraphLaunch` (`hipGraphLaunch`), a row of kernels under it, and no op above them",
             "A replayed CUDA graph: its kernels carry no op of their own",
             "Keep a capture trace beside the replay: `profguide explain REPLAY --capture CAPTURE`",
             "[A capture and a replay](../serving-a-model/compiled-decoding.md"
             "#a-capture-and-a-replay-in-real-traces)",
             ("serving-vllm-replay", "only about an eighth of the trace's kernels are joined to an op",
              "{share} of the kernels joined to an op, a vLLM step replayed on an MI300X")),
        Sign("A serving step whose GPU is busy only a fraction of the time",
             "The host's Python and launches between small kernels: little work per step for the GPU",
             "Read `explain`'s verdict for the phase; batch more requests, or replay the step as a CUDA graph",
             "[vLLM on a B200](../serving-a-model/serving-engine.md#vllm-on-a-b200-one-prefill-tensor-parallel)",
             ("serving-b200-vllm", "busy about a seventh of it",
              "GPU busy {share} of a one-request prefill, vLLM on a B200 of eight")),
        Sign("One step many times longer than the others where a server's profile ends",
             "The profiler stopping and the trace being written, on the thread that serves",
             "Record few steps (`schedule`, the engine's `max_iterations`), leave `with_stack` off, and measure the "
             "stall",
             "[Handing the trace over](../serving-a-model/profiling-a-server.md#handing-the-trace-over)",
             ("serving-profiler-cost", "the step that hands the trace over lasts as long as ten to a few hundred "
                                       "ordinary steps put together",
              "the hand-over step lasted {times} a median step")),
    ),
}


PLACE = re.compile(r"\{(share|times|count|yes_no)\}")


def value_words(value: float) -> dict[str, str]:
    """A measured value in each of the ways a row's words may put it: as a share, a ratio, a count, yes or no."""
    percent = 100 * value
    return {"share": f"{percent:,.0f}%" if abs(percent) >= 10 else f"{percent:.2g}%",
            "times": f"{value:,.0f}×" if abs(value) >= 100 else f"{value:.3g}×",
            "count": f"{value:,.0f}", "yes_no": "yes" if value else "no"}


def evidence_cell(checks: Sequence[ClaimCheck], words: str) -> str:
    """What one of the guide's runs measured for a row, in ``words`` (``Sign.evidence``): each place takes the
    value of the next of ``checks`` (the claims that share the row's words); and which run."""
    recording = checks[0].recording
    waiting = [check for check in checks if check.outcome == WAITS]
    if waiting:
        return f"waits for a {DEVICE_WORDS[waiting[0].claim.device]} run (`{recording}`)"
    values = [check.value for check in checks if check.value is not None]
    if len(values) < len(checks):
        return f"could not be measured (`{recording}`)"
    measured = iter(values)
    said = PLACE.sub(lambda place: value_words(next(measured))[place[1]], words)
    return f"{said} (`{recording}`, a {DEVICE_WORDS[checks[0].device]} run)"


def cheat_sheet(checks: Sequence[ClaimCheck]) -> str:
    """Markdown: a table per section, each row with the numbers its claims measured in the guide's runs."""
    # (recording, words): {measure: check}, in the recording's order
    by_words: dict[tuple[str, str], dict[Measure, ClaimCheck]] = {}
    for check in checks:  # a claim made twice (once per device) is quoted by the check that applies
        same = by_words.setdefault((check.recording, check.claim.says), {})
        measure = check.claim.measure
        if measure not in same or same[measure].outcome == WAITS:
            same[measure] = check
    blocks = []
    for section, signs in SIGNS.items():
        # pg-reflow: on a phone each row reads as a block of labelled cells (docs/assets/figures.css).
        lines = [f"## {section}", "", '<div class="pg-reflow" markdown>', "",
                 "| If you see… | It means… | Try… | Shown on | In this guide's runs |", "|---|---|---|---|---|"]
        for sign in signs:
            evidence = "–"
            if sign.evidence:
                recording, says, words = sign.evidence
                if (recording, says) not in by_words:
                    raise FragmentError(f"no claim {says!r} of {recording} for the cheat sheet")
                quoted = list(by_words[recording, says].values())
                places = len(PLACE.findall(words))
                if places != len(quoted):
                    raise FragmentError(f"{count_of(len(quoted), 'claim')} {says!r} of {recording}, but the "
                                        f"cheat sheet's words {words!r} have {count_of(places, 'place')} for "
                                        "their values")
                evidence = evidence_cell(quoted, words)
            lines.append(f"| {sign.see} | {sign.means} | {sign.try_} | {sign.shown} | {evidence} |")
        blocks.append("\n".join([*lines, "", "</div>"]))
    return "\n\n".join(blocks) + "\n"
