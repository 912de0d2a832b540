"""The verdict on a trace: what limits the run, in one word, from what ``profguide.analysis.summarise`` measured.

``verdict`` is a pure function of those measurements: it reads no trace. The
verdicts and their words are declared once, in ``WORDS``: when each is given
(the reference page's table), and the sentence ``explain`` prints.
"""

from typing import NamedTuple

from profguide.analysis.families import family_sentence
from profguide.analysis.host import CPU_LABELS, INDUCTOR_FILE, PYTHON_FRAME
from profguide.analysis.idle import LATE_LAUNCH
from profguide.analysis.startup import STARTUP_PCT, is_startup
from profguide.analysis.summary import HostActivity, HostBreakdown, IdleActivity, IdleBreakdown, Measured
from profguide.analysis.vocabulary import Activity, Cause, CpuActivity, Verdict
from profguide.patterns import COMMUNICATION
from profguide.text import count_of

COMPUTE_BOUND_BUSY_PCT = 80  # a GPU busy this much of the window is the bottleneck
# Communication not hidden behind computation, as a share of the window, that makes a GPU busy most of it
# communication-bound; on a GPU idle much of it, exposed communication is weighed against the idle causes.
EXPOSED_COMMUNICATION_PCT = 30
SYNC_STARTS_PCT = 50  # late launches after a sync, as a share of the host's idle time, make the run sync-bound


class Words(NamedTuple):
    """What a verdict says: when it is given, as the reference page's table puts it (Markdown), and the
    sentence ``explain`` prints, on a trace with GPU work (``text``) and on one without, where it names what
    the host's time went to (``host_text``); None where the verdict is not given. ``{label}`` is what the
    verdict points at (``{categories}``: the device events it does not read). ``named_text`` and
    ``named_host_text`` replace the two where the label already names the code to change (``names_code``): a
    Python frame the trace recorded, Inductor's generated wrapper; advice to find it would contradict the trace."""

    when: str
    text: str | None
    host_text: str | None = None
    named_text: str | None = None
    named_host_text: str | None = None


# Every verdict, in the order of the reference page's table.
WORDS: dict[Verdict, Words] = {
    "no-verdict": Words(
        "The [trust check](#can-the-trace-be-trusted) finds that the trace cannot support a verdict: too little "
        "GPU work to judge, only metadata, a CUPTI range profiler's trace, or most GPU events dropped.",
        "This trace cannot support a verdict: {label}."),
    "cpu-only": Words(
        "The trace has no GPU work, and no host events to break down either.",
        "No GPU work in this trace, and no host events to break down."),
    "not-analysed": Words(
        "No GPU work the tool reads, but events of another device (MTIA's `mtia_ccp_events`, for one).",
        "This trace holds device events profguide does not analyse ({categories}): it can say nothing about that "
        "device's busy or idle time."),
    "graph-capture": Words(
        "The trace captures CUDA (HIP) graphs (`cudaStreamBeginCapture`, `hipStreamBeginCapture`), records more "
        "launches into them than kernels run in its window, and replays none: a captured launch runs no kernel, "
        "so the window's time is the capture's, paid once.",
        "This trace records CUDA graphs being captured ({label}) and replays none: a captured launch runs no "
        "kernel, so the GPU's idle time here is the capture's, paid once when the engine starts, and says nothing "
        "of a step. Profile a replayed step after warm-up to judge the steady state; beside this capture, "
        "`profguide.analysis.graphs.captured_by` names the op that captured each replayed kernel."),
    "start-up": Words(
        f"Device set-up takes at least {STARTUP_PCT}% of the window: creating the CUDA context, growing the "
        "allocator (`cudaMalloc`, `cudaFree`), a first launch that loads its kernel's module, cuDNN and cuBLAS "
        "set-up. Or the GPU waited for the host most, and the host was mostly in such calls.",
        "Most of this window is the device starting up ({label}): the CUDA context, the allocator's first blocks, "
        "each kernel's module loaded at its first launch, library set-up. A process pays it once: profile past it "
        "(torch.profiler.schedule with wait and warmup steps) to see the steady state."),
    "communication-bound": Words(
        "Communication kernels (NCCL, RCCL, and the [other libraries](#kernels-by-family) of collectives) that "
        "overlap no computation take more of the window than any other cause of lost time (see [how the causes "
        f"are weighed](#causes-weighed)), or over {EXPOSED_COMMUNICATION_PCT}% of it on a GPU busy at least "
        f"{COMPUTE_BOUND_BUSY_PCT}% of it.",
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
        "with_stack=True to find it.",
        "The GPU waits while the host runs Python that no op records, most in {label}: move that work out of the "
        "step, or make it cheaper.",
        "Python that no op records takes more of the host's time than anything else, most in {label}: that is "
        "the code to make cheaper."),
    "launch-bound": Words(
        "The GPU waited for the host most, and the host was mostly running ops and launching their kernels.",
        "The GPU waits while the host issues many small ops ({label}): fewer, larger ops (torch.compile, "
        "batching) or CUDA graphs cut the launches.",
        None,
        "The GPU waits while a compiled graph's generated code launches its kernels one by one ({label}): that is "
        "the graph's launch overhead, not your Python; replay it as a CUDA graph (torch.compile's "
        "mode=\"reduce-overhead\") or give each launch more work (a larger batch)."),
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
    "region": "python-bound", "ops": "launch-bound", "backward": "launch-bound", "compiled": "launch-bound",
    "setup": "start-up"}


def top_label(row: HostActivity | IdleActivity) -> str:
    return row["top"][0][0] if row["top"] else "?"


class LostTime(NamedTuple):
    """One cause of the window's lost time, as the verdict that names it: the verdict, what it points at, the
    µs its fix could win back, and the cause in words."""

    verdict: Verdict
    label: str
    us: float
    words: str


def late_launch_verdict(idle: IdleBreakdown) -> LostTime:
    """The cause when the host launched late: the verdict of the host activities that held up the GPU the
    longest (``ACTIVITY_VERDICTS``: ops and backward are launching, a region or unrecorded Python is Python),
    named after the largest of them; sync-bound instead when most of the wait began in a synchronisation."""
    activities = idle["by_activity"]
    by_verdict: dict[Verdict, float] = {}
    for activity, row in activities.items():
        by_verdict[ACTIVITY_VERDICTS[activity]] = by_verdict.get(ACTIVITY_VERDICTS[activity], 0.0) + row["idle_us"]
    name = max(by_verdict, key=lambda verdict_name: by_verdict[verdict_name])
    late_us = sum(idle["by_cause"][cause]["idle_us"] for cause in LATE_LAUNCH)
    after_sync = idle["by_cause"]["sync"]["idle_us"]
    if name != "input-bound" and late_us and 100 * after_sync / late_us >= SYNC_STARTS_PCT:
        syncs = activities["sync"]
        return LostTime("sync-bound", top_label(syncs) if syncs["top"] else "the call the gaps began in", after_sync,
                        f"the GPU waiting for the host from a synchronisation on ({share_of(after_sync, late_us)} "
                        f"of its wait for the host; at least {SYNC_STARTS_PCT}% makes it sync-bound)")
    mine = sorted((activity for activity in activities if ACTIVITY_VERDICTS[activity] == name),
                  key=lambda activity: -activities[activity]["idle_us"])
    meanings = " or ".join(activities[activity]["meaning"] for activity in mine if activities[activity]["idle_us"])
    return LostTime(name, top_label(activities[mine[0]]), by_verdict[name],
                    f"the GPU waiting for the host while the host was {meanings or activities[mine[0]]['meaning']}")


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


# Where the idle time of the causes other than a late launch lies, for the verdict's basis, and their verdicts.
IDLE_WHEN: dict[Cause, str] = {"queued": "before ops already queued", "profiler": "under the profiler's own work",
                               "other": "before ops with no launch call in the trace"}
IDLE_VERDICTS: dict[Cause, Verdict] = {"queued": "idle-queued", "profiler": "profiler-bound",
                                       "other": "idle-unexplained"}


def share_of(part: float, whole: float) -> str:
    """``part`` as a share of ``whole`` in words: ``12%``."""
    return f"{100 * part / whole:.0f}%" if whole else "0%"


def verdict(summary: Measured) -> tuple[Verdict, str, str]:
    """(the verdict, the name it points at, the measurement that decided it, in words) from what
    ``summarise`` measured. The rules are tried in this order; the first that holds decides. On a GPU idle
    much of the window, the causes of lost time (``lost_time``) are weighed: the largest decides."""
    window, idle, busy_pct = summary["window"], summary["idle"], summary["gpu_busy_pct"]
    trust = summary["trust"]
    if trust["confidence"] == "none":
        return ("no-verdict", "; ".join(reason["seen"] for reason in trust["reasons"] if reason["lowers_to"] == "none"),
                "the trust check's confidence, none: " + ", ".join(reason["check"] for reason in trust["reasons"]))
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
    graphs = summary["graphs"]
    kernels_run = sum(row["count"] for row in summary["kernel_families"])
    if graphs and not graphs["replayed_ops"] and graphs["captured_calls"] > kernels_run:
        return ("graph-capture", f"{count_of(graphs['captures'], 'stream capture')}, "
                f"{count_of(graphs['captured_calls'], 'launch call')}",
                f"{count_of(graphs['captures'], 'stream capture')} recorded "
                f"{count_of(graphs['captured_calls'], 'launch call')} into CUDA graphs, more than the "
                f"{count_of(kernels_run, 'kernel')} the window ran, and no graph is replayed in it")
    length = window["dur_us"]
    setup = summary["device_setup"]
    if setup and is_startup(setup):
        return ("start-up", ", ".join(name for name, _ in setup["top"]),
                f"device set-up {setup['pct']:.0f}% of the window (at least {STARTUP_PCT}%)")
    comm = summary["communication"]
    exposed = comm["exposed_us"] if comm["kernel_us"] else 0.0
    if busy_pct >= COMPUTE_BOUND_BUSY_PCT:
        if exposed > EXPOSED_COMMUNICATION_PCT / 100 * length:
            return ("communication-bound", "", f"communication that overlaps no computation "
                    f"{share_of(exposed, length)} of the window (over {EXPOSED_COMMUNICATION_PCT}%)")
        families = family_sentence(summary["kernel_families"])
        return ("compute-bound", f" {families}" if families else "",
                f"GPU busy {busy_pct:.0f}% of the window (at least {COMPUTE_BOUND_BUSY_PCT}%)")
    causes = lost_time(summary)
    largest = max(causes, key=lambda cause: cause.us)  # the first of equals: the host's late launches
    # The next two, where they round to a share: "0%" would say nothing.
    others = sorted((cause for cause in causes if cause is not largest and share_of(cause.us, length) != "0%"),
                    key=lambda cause: -cause.us)
    basis = f"{largest.words}: {share_of(largest.us, length)} of the window, the largest cause of lost time"
    if others:
        basis += " (then " + "; ".join(f"{cause.words}: {share_of(cause.us, length)}" for cause in others[:2]) + ")"
    return largest.verdict, largest.label, basis


def lost_time(summary: Measured) -> list[LostTime]:
    """Each cause of a GPU window's lost time, as the verdict that names it, the host's late launches first:
    the idle time by cause (the late launches by what the host was doing) and the communication that
    overlaps no computation, each the time its fix could win back."""
    idle, comm = summary["idle"], summary["communication"]
    assert idle is not None  # a GPU window has its idle breakdown
    by_cause = idle["by_cause"]
    causes = [late_launch_verdict(idle)] if any(by_cause[cause]["idle_us"] for cause in LATE_LAUNCH) else []
    for cause, where in IDLE_WHEN.items():
        overhead = ", ".join(summary["profiler_overhead"]["by_name"]) or "overhead events"
        causes.append(LostTime(IDLE_VERDICTS[cause], overhead if cause == "profiler" else "",
                               by_cause[cause]["idle_us"], f"the GPU idle {where}"))
    if comm["kernel_us"]:
        causes.append(LostTime("communication-bound", "", comm["exposed_us"],
                               "communication that overlaps no computation"))
    return causes


def names_code(name: Verdict, label: str) -> bool:
    """Whether the verdict's label already names the code to change: a user's Python frame for python-bound,
    Inductor's generated wrapper for launch-bound."""
    frame = PYTHON_FRAME.match(label)
    return frame is not None and (name == "python-bound" or (name == "launch-bound"
                                                             and INDUCTOR_FILE.search(frame["file"]) is not None))


def verdict_text(name: Verdict, label: str, host_split: bool, uses_graphs: bool = False) -> str:
    """The verdict's sentence, naming ``label``: its words for a trace without GPU work when the summary splits
    the host's time (``host_split``) and the verdict has such words, else its words for one with; their
    ``named`` variants where the label names the code to change; on a trace that captures or replays CUDA graphs
    (``uses_graphs``), words that do not advise one."""
    words = WORDS[name]
    named = names_code(name, label)
    host = (words.named_host_text if named else None) or words.host_text
    text: str | None
    if host_split and host is not None:
        text = host
    elif uses_graphs and name in WITH_GRAPHS:
        text = WITH_GRAPHS[name]
    else:
        text = (words.named_text if named else None) or words.text
    assert text is not None  # every verdict given has its words
    return text.format(label=label, categories=label)
