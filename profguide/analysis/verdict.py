"""The verdict on a trace: what limits the run, in one word, from what ``profguide.analysis.summarise`` measured.

``verdict`` is a pure function of those measurements: it reads no trace. The
verdicts and their words are declared once, in ``WORDS``: when each is given
(the reference page's table), and the sentence ``explain`` prints.
"""

from typing import NamedTuple

from profguide.analysis.families import family_sentence
from profguide.analysis.host import CPU_LABELS
from profguide.analysis.idle import LATE_LAUNCH
from profguide.analysis.startup import STARTUP_PCT, is_startup
from profguide.analysis.summary import HostActivity, HostBreakdown, IdleActivity, IdleBreakdown, Measured
from profguide.analysis.vocabulary import Activity, Cause, CpuActivity, Verdict
from profguide.patterns import COMMUNICATION

COMPUTE_BOUND_BUSY_PCT = 80  # a GPU busy this much of the window is the bottleneck
EXPOSED_COMMUNICATION_PCT = 30  # communication not hidden behind computation, as a share of the window
SYNC_STARTS_PCT = 50  # late launches after a sync, as a share of the host's idle time, make the run sync-bound


class Words(NamedTuple):
    """What a verdict says: when it is given, as the reference page's table puts it (Markdown), and the
    sentence ``explain`` prints, on a trace with GPU work (``text``) and on one without, where it names what
    the host's time went to (``host_text``); None where the verdict is not given. ``{label}`` is what the
    verdict points at (``{categories}``: the device events it does not read)."""

    when: str
    text: str | None
    host_text: str | None = None


# Every verdict, in the order of the reference page's table.
WORDS: dict[Verdict, Words] = {
    "cpu-only": Words(
        "The trace has no GPU work, and no host events to break down either.",
        "No GPU work in this trace, and no host events to break down."),
    "not-analysed": Words(
        "No GPU work the tool reads, but events of another device (MTIA's `mtia_ccp_events`, for one).",
        "This trace holds device events profguide does not analyse ({categories}): it can say nothing about that "
        "device's busy or idle time."),
    "start-up": Words(
        f"Device set-up takes at least {STARTUP_PCT}% of the window: creating the CUDA context, growing the "
        "allocator (`cudaMalloc`, `cudaFree`), a first launch that loads its kernel's module, cuDNN and cuBLAS "
        "set-up. Or the GPU waited for the host most, and the host was mostly in such calls.",
        "Most of this window is the device starting up ({label}): the CUDA context, the allocator's first blocks, "
        "each kernel's module loaded at its first launch, library set-up. A process pays it once: profile past it "
        "(torch.profiler.schedule with wait and warmup steps) to see the steady state."),
    "communication-bound": Words(
        "Communication kernels (NCCL, RCCL, and the [other libraries](#kernels-by-family) of collectives) that "
        f"overlap no computation take over {EXPOSED_COMMUNICATION_PCT}% of the window.",
        "Communication kernels take much of the time without overlapping computation.",
        "The main thread records no op for most of its time while other threads spend most of it in "
        "communication ({label}): the step waits for the other ranks; look at the slowest rank, and overlap "
        "communication with computation."),
    "compute-bound": Words(
        f"The GPU is busy at least {COMPUTE_BOUND_BUSY_PCT}% of the window.",
        "The GPU is busy most of the time: speed comes from faster kernels, not from the host.{label}"),
    "host-compute-bound": Words(
        "The trace has no GPU work, and the host spent the most time in ops: the forward pass, the loss, the "
        "backward pass.",
        None,
        "Computing takes more of the host's time than anything else ({label}): speed comes from cheaper ops, "
        "more threads, or a GPU."),
    "input-bound": Words(
        "The GPU waited for the host most, and the host was mostly loading data (a `DataLoader`'s `__next__`).",
        "The GPU waits while the host loads the next batch ({label}): load it in worker processes (DataLoader "
        "num_workers), pin its memory, and prefetch it.",
        "Loading the next batch takes more of the host's time than anything else ({label}): load it in worker "
        "processes (DataLoader num_workers), so that loading overlaps computing."),
    "sync-bound": Words(
        f"The GPU waited for the host most, and at least {SYNC_STARTS_PCT}% of that wait began while the host sat "
        "in a synchronisation (`aten::item`, `cudaStreamSynchronize` and kin), or the host was mostly in one.",
        "The GPU runs dry while the host waits in a synchronisation ({label}): read values back from the GPU less "
        "often (log every N steps), so that the host can queue work ahead."),
    "optimizer-bound": Words(
        "The GPU waited for the host most, and the host was mostly in the optimizer step (`Optimizer.step#…`).",
        "The GPU waits while the host runs the optimizer step op by op ({label}): use a fused or foreach "
        "optimizer (fused=True), or capture the step in a CUDA graph.",
        "The optimizer takes more of the host's time than anything else ({label}): use a foreach or fused "
        "optimizer (foreach=True, fused=True)."),
    "python-bound": Words(
        "The GPU waited for the host most, and the host was mostly in nothing the profiler records: Python "
        "between ops.",
        "The GPU waits while the host runs Python that no op records ({label}): profile with with_stack=True to "
        "find it, and move it out of the step.",
        "Python that no op records takes more of the host's time than anything else ({label}): profile with "
        "with_stack=True to find it."),
    "launch-bound": Words(
        "The GPU waited for the host most, and the host was mostly running ops and launching their kernels.",
        "The GPU waits while the host issues many small ops ({label}): fewer, larger ops (torch.compile, "
        "batching) or CUDA graphs cut the launches."),
    "profiler-bound": Words(
        "Most of the idle time lies under the profiler's own work (an `Activity Buffer Request`).",
        "The GPU waits on the profiler's own work ({label}): profile more steps and look past it; the run itself "
        "is not slowed by this."),
    "idle-queued": Words(
        "Most of the idle time came before ops that were already queued: waits between streams, or many tiny ops.",
        "The GPU is idle between ops that were already queued: dependencies between streams, or many tiny ops "
        "back to back."),
    "idle-unexplained": Words(
        "The trace has no launch calls that explain the idle time.",
        "The GPU is idle much of the time, and the trace has no launch calls that explain why."),
}
# Each verdict's sentence on a trace with GPU work, and on one without: there the host's time is the run's time,
# and the verdict names where the most of it went. The host's computing has a name of its own: compute-bound
# means a GPU busy most of the window, which such a trace cannot have.
VERDICTS = {name: words.text for name, words in WORDS.items() if words.text is not None}
HOST_VERDICTS = {name: words.host_text for name, words in WORDS.items() if words.host_text is not None}
# The sentences that advise a CUDA graph, for a trace that captures graphs or whose window replays them already.
WITH_GRAPHS: dict[Verdict, str] = {
    "optimizer-bound": "The GPU waits while the host runs the optimizer step op by op ({label}): use a fused or "
                       "foreach optimizer (fused=True).",
    "launch-bound": "The GPU waits while the host issues many small ops ({label}): this trace already captures or "
                    "replays CUDA graphs, so look for the ops launched outside them, and make them fewer and larger "
                    "(torch.compile, batching).",
}
HOST_ACTIVITY_VERDICTS: dict[CpuActivity, Verdict] = {
    "data loading": "input-bound", "ops": "host-compute-bound", "backward": "host-compute-bound",
    "optimizer": "optimizer-bound", "region": "python-bound", "python": "python-bound"}
ACTIVITY_VERDICTS: dict[Activity, Verdict] = {
    "data loading": "input-bound", "sync": "sync-bound", "optimizer": "optimizer-bound", "python": "python-bound",
    "region": "python-bound", "ops": "launch-bound", "backward": "launch-bound", "setup": "start-up"}


def top_label(row: HostActivity | IdleActivity) -> str:
    return row["top"][0][0] if row["top"] else "?"


def late_launch_verdict(idle: IdleBreakdown) -> tuple[Verdict, str]:
    """The verdict when the host launched late: named after what the host was doing, with its label."""
    activities = idle["by_activity"]
    dominant = max(activities, key=lambda name: activities[name]["idle_us"])
    late_us = sum(idle["by_cause"][cause]["idle_us"] for cause in LATE_LAUNCH)
    after_sync = idle["by_cause"]["sync"]["idle_us"]
    if dominant != "data loading" and late_us and 100 * after_sync / late_us >= SYNC_STARTS_PCT:
        syncs = activities["sync"]
        return "sync-bound", top_label(syncs) if syncs["top"] else "the call the gaps began in"
    return ACTIVITY_VERDICTS[dominant], top_label(activities[dominant])


def host_verdict(host: HostBreakdown) -> tuple[Verdict, str]:
    """(the verdict, the name it points at) for a trace without GPU work: named after the activity that took
    the most host time, as ``late_launch_verdict`` names the GPU's wait."""
    activities = host["by_activity"]
    dominant = max(activities, key=lambda name: activities[name]["us"])
    # A thread that records nothing may be running Python or may be blocked on a collective that other
    # threads carry out: when those threads are busy communicating most of the time, say the latter.
    talking = [thread for thread in host.get("other_threads", []) if COMMUNICATION.search(thread["top"] or "")
               and thread["busy_us"] >= host["dur_us"] / 2]
    if dominant == "python" and talking:
        return "communication-bound", talking[0]["top"]
    return HOST_ACTIVITY_VERDICTS[dominant], top_label(activities[dominant])


# Where the idle time of the causes other than a late launch lies, for the verdict's basis.
IDLE_WHEN: dict[Cause, str] = {"queued": "before ops already queued", "profiler": "under the profiler's own work",
                               "other": "before ops with no launch call in the trace"}


def share_of(part: float, whole: float) -> str:
    """``part`` as a share of ``whole`` in words: ``12%``."""
    return f"{100 * part / whole:.0f}%" if whole else "0%"


def verdict(summary: Measured) -> tuple[Verdict, str, str]:
    """(the verdict, the name it points at, the measurement that decided it, in words) from what
    ``summarise`` measured. The rules are tried in this order; the first that holds decides."""
    window, idle, busy_pct = summary["window"], summary["idle"], summary["gpu_busy_pct"]
    if window is None or idle is None or busy_pct is None:  # no GPU work: the three are None together
        unread = summary["unanalysed_events"]
        if unread:
            return "not-analysed", ", ".join(sorted(unread)), "no GPU work it reads, and device events it does not"
        host = summary["host"]
        if not host or not host["dur_us"]:
            return "cpu-only", "", "no GPU work and no host events"
        name, label = host_verdict(host)
        activity = max(host["by_activity"], key=lambda key: host["by_activity"][key]["us"])
        basis = (f"no GPU work; the host's largest share of time, "
                 f"{share_of(host['by_activity'][activity]['us'], host['dur_us'])}: {CPU_LABELS[activity]}")
        if name == "communication-bound":
            basis += ", while other threads spent at least half of it in communication"
        return name, label, basis
    length = window["dur_us"]
    setup = summary["device_setup"]
    if setup and is_startup(setup):
        return ("start-up", ", ".join(name for name, _ in setup["top"]),
                f"device set-up {setup['pct']:.0f}% of the window (at least {STARTUP_PCT}%)")
    comm = summary["communication"]
    if comm["kernel_us"] and comm["exposed_us"] > EXPOSED_COMMUNICATION_PCT / 100 * length:
        return ("communication-bound", "", f"communication that overlaps no computation "
                f"{share_of(comm['exposed_us'], length)} of the window (over {EXPOSED_COMMUNICATION_PCT}%)")
    if busy_pct >= COMPUTE_BOUND_BUSY_PCT:
        families = family_sentence(summary["kernel_families"])
        return ("compute-bound", f" {families}" if families else "",
                f"GPU busy {busy_pct:.0f}% of the window (at least {COMPUTE_BOUND_BUSY_PCT}%)")
    causes = idle["by_cause"]
    late = sum(causes[cause]["idle_us"] for cause in LATE_LAUNCH)
    largest = max(IDLE_WHEN, key=lambda cause: causes[cause]["idle_us"])
    if late >= causes[largest]["idle_us"]:
        name, label = late_launch_verdict(idle)
        busiest = max(idle["by_activity"].values(), key=lambda row: row["idle_us"])
        basis = (f"the GPU waited for the host {share_of(late, length)} of the window, more than for anything else; "
                 f"the host was mostly {busiest['meaning']}")
        if name == "sync-bound":
            basis += (f", and {share_of(causes['sync']['idle_us'], late)} of the wait began in a synchronisation "
                      f"(at least {SYNC_STARTS_PCT}% makes it sync-bound)")
        return name, label, basis
    basis = (f"the GPU idle {share_of(causes[largest]['idle_us'], length)} of the window {IDLE_WHEN[largest]}, "
             "more than for any other cause")
    if largest == "profiler":
        return "profiler-bound", ", ".join(summary["profiler_overhead"]["by_name"]) or "overhead events", basis
    return ("idle-queued" if largest == "queued" else "idle-unexplained"), "", basis


def verdict_text(name: Verdict, label: str, host_split: bool, uses_graphs: bool = False) -> str:
    """The verdict's sentence, naming ``label``: its words for a trace without GPU work when the summary splits
    the host's time (``host_split``) and the verdict has such words, else its words for one with; on a trace
    that captures or replays CUDA graphs (``uses_graphs``), words that do not advise one."""
    texts = HOST_VERDICTS if host_split and name in HOST_VERDICTS else VERDICTS
    if uses_graphs and name in WITH_GRAPHS and texts is VERDICTS:
        texts = WITH_GRAPHS
    return texts[name].format(label=label, categories=label)
