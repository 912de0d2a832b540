"""The closed vocabularies of what ``profguide explain`` reports: each word it can print for a verdict, a rule, an
idle cause or a host activity, as a ``Literal`` type.

Each type is the one list of its words. ``profguide.analysis.summary`` types the summaries' fields with them,
so that the JSON Schema lists them as an ``enum`` and rejects any other; the tables that say what each word
means (``verdict.VERDICTS``, the rules, ``idle.IDLE_CAUSES``, ``host.ACTIVITIES``) are keyed by them, and their
tests check that every word has its entry. Standard library only: the recordings' declarations
(``profguide.site.recordings``), which a bare GPU machine imports, can name these types too.
"""

from typing import Literal

# What limits the run (``verdict.VERDICTS`` says when each is given, in this order).
Verdict = Literal[
    "no-verdict",
    "cpu-only",
    "not-analysed",
    "graph-capture",
    "start-up",
    "communication-bound",
    "compute-bound",
    "host-compute-bound",
    "input-bound",
    "sync-bound",
    "optimizer-bound",
    "python-bound",
    "launch-bound",
    "profiler-bound",
    "idle-queued",
    "idle-unexplained",
]
JobVerdict = Literal["straggler", Verdict]  # a job's: its straggler, or what most ranks' verdicts say

# The rules (``profguide.analysis.rules``), by the module that holds them.
RuleId = Literal[
    # torch's anti-pattern matcher (rules_program)
    "dataloader-without-workers",
    "single-tensor-optimizer",
    "zero-grad-zeroes",
    "cpu-filled-then-copied",
    "conv-bias-before-batch-norm",
    "half-matmul-not-multiple-of-8",
    "fp32-matmul-on-tensor-core-gpu",
    # the TensorBoard plugin and Nsight Systems' expert rules (rules_device)
    "data-loading-over-5pct",
    "data-parallel",
    "ddp-on-gloo-with-gpus",
    "communication-over-10pct",
    "gpu-utilisation-under-50pct",
    "tensor-core-eligible-not-on-tensor-cores",
    "memory-over-90pct",
    "pageable-host-to-device-copy",
    "synchronous-memcpy-memset",
    "sync-inside-steps",
    "long-gpu-gaps",
    "low-gpu-utilisation-stretch",
    # this guide's own (rules_guide)
    "cold-first-step",
    "profiler-overhead-options",
    "recompilations",
    "graph-breaks",
    "tiny-launches",
    "exposed-communication",
    "straggler-rank",  # over a folder of rank traces
]
RuleSource = Literal["torch", "tensorboard", "nsight", "guide"]  # where a rule comes from (``rule.SOURCES``)
# The same in the words a finding carries.
FindingSource = Literal["torch's anti-pattern matcher", "the TensorBoard plugin", "Nsight Systems' expert rules",
                        "this guide"]

# How far the trace can be trusted (``profguide.analysis.trust``), and the checks that can lower it, in order.
Confidence = Literal["high", "reduced", "none"]
TrustCheck = Literal[
    # torch's trace validator
    "kernel-before-launch",
    "stream-wait-unfilled",
    "stream-wait-not-in-past",
    "kernel-running-at-stream-sync",
    "collective-metadata-missing",
    "backward-sequence-shared",
    # this guide's own
    "gpu-ops-without-launch",
    "launches-without-gpu-op",
    "event-cap-reached",
    "little-gpu-work",
    "metadata-only",
    "range-profiler-only",
]
TrustSource = Literal["torch's trace validator", "this guide"]

Cause = Literal["host", "sync", "profiler", "queued", "other"]  # why the GPU was idle (``idle.IDLE_CAUSES``)
# What the host was doing while the GPU waited for it (``host.ACTIVITIES``).
Activity = Literal["data loading", "sync", "optimizer", "backward", "ops", "compiled", "region", "python", "setup"]
# What the host's time went to on a trace without GPU work (``host.CPU_ACTIVITIES``).
CpuActivity = Literal["data loading", "ops", "backward", "optimizer", "region", "python"]

TrafficKind = Literal["memcpy", "memset"]
MeasuredOn = Literal["GPU", "main thread", "nothing"]  # what a rank's busy and idle time were measured on
CollectivesAre = Literal["kernels", "host ops"]  # what a rank's collectives are, in its trace
CollectivesMatchedBy = Literal["seq", "order"]  # how a job's ranks' collectives are paired (``ranks.job_summary``)
Engine = Literal["vLLM", "SGLang", "record_function"]  # whose step annotations a trace carries (``serving``): an
# engine's, or a reader's own regions named after their phase
# What a serving step runs: prompts only (prefill), new tokens of running requests only (decode), or both.
Phase = Literal["prefill", "decode", "mixed"]
