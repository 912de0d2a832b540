"""The ranks of a distributed job, one trace each: a small summary per rank, and the job's straggler.

A collective ends on every rank at about the same moment, when the last rank
has arrived and the data has moved; a rank that arrived early spent the time
until then waiting inside it. So the rank whose collectives are the shortest
is the one the others waited for: the straggler. Each other rank waited, in
each collective the ranks share, for its duration there minus the
straggler's, from its start. Collectives are matched by their process group
and sequence number (``Seq``) where every one carries them, as newer Kineto
writes on NCCL's kernels: ranks that record them in different orders, or one
that misses the first, still pair the same collective. Else they are matched
by name, stream and order among those of the same name and stream.

``rank_summary`` reads one loaded trace and its summary
(``profguide.analysis.summarise``) and returns plain data, small whatever the
trace's size, so that a job of many ranks is summarised one trace at a time;
``job_summary`` puts the summaries together.
"""

from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np

from profguide.analysis.collectives import collective_identity
from profguide.analysis.communication import communication
from profguide.analysis.host import main_lane
from profguide.analysis.intervals import Intervals, Mask, Window, union_length
from profguide.analysis.select import kinds_mask, names_where
from profguide.analysis.summary import Alignment, Collective, Job, RankFields, RankRow, RankSummary, Stream, Summary
from profguide.analysis.vocabulary import CollectivesAre, CollectivesMatchedBy, JobVerdict, MeasuredOn
from profguide.jsontypes import JSONObject
from profguide.patterns import BACKEND_OP, COMMUNICATION
from profguide.stats import median
from profguide.trace.model import KIND, Trace

# A collective as the ranks match it: (name, stream, occurrence) by order, or ("<group>#<Seq>", None, occurrence)
Key = tuple[str, Stream, int]

# Matched collectives whose ends stray from their rank's clock offset by more than this share of the median
# collective, in the median, do not correspond: the job's traces are sampled or cut unlike each other.
STRAY_SHARE = 0.5
STRAGGLER_WAIT_PCT = 10  # another rank waiting this share of its time or more makes the straggler the job's verdict
JOB_VERDICTS = {
    "straggler": "{label} is the straggler: another rank spent {wait_pct:.0f}% of its time in collectives "
    "waiting for it. Find what it does that the others do not (more data, more work, a slower "
    "host or GPU, a sleep, a log line) and even it out; the others can go no faster than it.",
}


def collectives(trace: Trace, window: Window | None = None) -> tuple[Mask, CollectivesAre]:
    """(mask, what they are) of the events that are the trace's collectives: the communication kernels on a
    trace that has them, else the backend's ops on the host (``gloo:all_reduce``). With ``window``, those
    that start in it."""
    kernels = (trace.kind == KIND["kernel"]) & names_where(trace, COMMUNICATION.search)
    source: CollectivesAre = "kernels" if kernels.any() else "host ops"
    mask = kernels if source == "kernels" else (kinds_mask(trace, ("cpu_op", "annotation"))
                                                & names_where(trace, BACKEND_OP.match))
    if window is not None:
        mask = mask & (trace.ts >= window[0]) & (trace.ts < window[1])
    return mask, source


def collective_sequence(trace: Trace, mask: Mask) -> list[Collective]:
    """[(name, stream, start µs, duration µs, identity)] of the collectives in ``mask``, in order of start; the
    stream of a kernel (ranks number their streams alike), None for a host op (gloo's worker threads take
    turns); the identity ``collective_identity`` gives (None where the trace has no ``Seq``)."""
    indices = np.flatnonzero(mask)
    streams = [trace.lanes[code][1] if kind == KIND["kernel"] else None
               for code, kind in zip(trace.lane[indices].tolist(), trace.kind[indices].tolist(), strict=True)]
    identities = [collective_identity(trace, index) for index in indices.tolist()]
    return [(trace.names[code], stream, start, dur, identity) for code, stream, start, dur, identity in
            zip(trace.name[indices].tolist(), streams, trace.ts[indices].tolist(), trace.dur[indices].tolist(),
                identities, strict=True)]


def common_length(*interval_sets: Intervals) -> float:
    """The length of the time that every one of the (starts, ends) interval sets covers, by inclusion and
    exclusion over their unions (a few sets, each sorted once per union)."""
    total = 0.0
    for size in range(1, len(interval_sets) + 1):
        for chosen in combinations(interval_sets, size):
            starts = np.concatenate([s for s, _ in chosen])
            ends = np.concatenate([e for _, e in chosen])
            total += (-1) ** (size + 1) * union_length(starts, ends)
    return max(total, 0.0)


def host_communication(trace: Trace, windows: Intervals, comm: Mask) -> tuple[float, float]:
    """(communication µs, exposed µs) on a trace without GPU work: the time inside ``windows`` ((starts,
    ends) arrays) when a host collective of ``comm`` ran, and the part of it when the main thread ran no op
    of its own (other than handing work to the backend)."""
    collectives_run = (trace.ts[comm], trace.end[comm])
    total = common_length(windows, collectives_run)
    lane = main_lane(trace)
    if lane is None:
        return total, total
    working = ((trace.lane == lane) & (trace.kind == KIND["cpu_op"])
               & ~names_where(trace, lambda name: bool(COMMUNICATION.search(name)) or name.startswith("c10d::")))
    hidden = common_length(windows, collectives_run, (trace.ts[working], trace.end[working]))
    return total, total - hidden


def rank_number(info: JSONObject | None, key: str) -> int | None:
    value = (info or {}).get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def time_split(trace: Trace, summary: Summary) -> tuple[MeasuredOn, Window | None, float, float, float, float]:
    """What the rank's table row says about its time: (measured on, window (start, end), busy µs, idle µs,
    communication µs, exposed communication µs). On a GPU, over ``explain``'s window; without GPU work, over
    the recorded steps on the main thread, busy being its time in ops: a ``record_function`` region's own
    time (a sleep inside one) is Python between ops, idle as the rest is."""
    measured, idle_gpu = summary["window"], summary["idle"]
    if measured and idle_gpu:
        window = (measured["start_us"], measured["end_us"])
        comm = communication(trace, window)
        return "GPU", window, idle_gpu["busy_us"], idle_gpu["idle_us"], comm["kernel_us"], comm["exposed_us"]
    host = summary["host"]
    if not host or not host["dur_us"]:
        return "nothing", None, 0.0, 0.0, 0.0, 0.0
    windows = (np.array([w["start_us"] for w in host["windows"]]),
               np.array([w["start_us"] + w["dur_us"] for w in host["windows"]]))
    comm_us, exposed_us = host_communication(trace, windows, collectives(trace)[0])
    idle = host["by_activity"]["python"]["us"] + host["by_activity"]["region"]["us"]
    return ("main thread", (float(windows[0].min()), float(windows[1].max())), host["dur_us"] - idle, idle,
            comm_us, exposed_us)


def rank_summary(trace: Trace, file: Path | str, summary: Summary, window: Window | None = None) -> RankSummary:
    """One rank's row of the job: who it is, where its time went, its verdict, and its collectives in order,
    from its trace and the trace's summary over ``window`` (``summarise``'s).

    Plain data of a size that does not grow with the trace's events, except ``collectives``
    ([(name, start µs, duration µs)]), which grows with the number of collectives only.
    """
    info = trace.distributed_info or {}
    measured_on, span, busy, idle, comm_us, exposed_us = time_split(trace, summary)
    mask, source = collectives(trace, window)
    steps = sorted(step["dur_us"] for step in summary["steps"])
    backend = info.get("backend")
    return {
        "file": str(file),
        "rank": rank_number(info, "rank"),
        "world_size": rank_number(info, "world_size"),
        "backend": backend if isinstance(backend, str) else None,
        "host_name": trace.host_name,
        "device": summary["device"],
        "events": len(trace),
        "measured_on": measured_on,
        "window": None if span is None else {"start_us": span[0], "end_us": span[1], "dur_us": busy + idle},
        "busy_us": busy,
        "idle_us": idle,
        "communication_us": comm_us,
        "exposed_us": exposed_us,
        "steps": len(steps),
        "median_step_us": median(steps),
        "verdict": summary["verdict"],
        "trust": summary["trust"]["confidence"],
        "collectives_are": source,
        "collectives": collective_sequence(trace, mask),
    }


def label(row: RankFields) -> str:
    """How the job's output names a rank: its number, or its file when the trace does not say."""
    return f"rank {row['rank']}" if row["rank"] is not None else row["file"]


def keyed(sequence: list[Collective], by_seq: bool = False) -> dict[Key, Window]:
    """{key: (start, end)}, in the sequence's order: with ``by_seq``, (its process group and Seq, None, n) for
    the n-th event of that collective (a collective may run as several kernels); else (name, stream, n) for the
    n-th collective of each name on each stream (every rank calls the same collectives in the same order)."""
    seen, keys = Counter[tuple[str, Stream]](), dict[Key, Window]()
    for name, stream, start, dur, identity in sequence:
        group: tuple[str, Stream] = (identity or "", None) if by_seq else (name, stream)
        keys[(*group, seen[group])] = (start, start + dur)
        seen[group] += 1
    return keys


def matched_by(ranks: list[RankSummary]) -> CollectivesMatchedBy:
    """By Seq when every collective of every rank carries one (and there are some), else by order."""
    sequences = [row["collectives"] for row in ranks]
    carried = all(sequences) and all(identity is not None for sequence in sequences for *_, identity in sequence)
    return "seq" if carried else "order"


def host_alone(rows: list[RankRow], straggler: int | None) -> bool | None:
    """Whether no other rank ran on the straggler's machine; None without a straggler or every rank's host."""
    hosts = [row["host_name"] for row in rows]
    if straggler is None or any(host is None for host in hosts):
        return None
    return hosts.count(hosts[straggler]) == 1


def straggler_of(keys: list[dict[Key, Window]], order: list[Key], totals: list[float],
                 rows: list[RankRow]) -> tuple[int, list[float], list[float | None]]:
    """(the straggler's index, each rank's wait µs, each rank's wait as a share of its window in %).

    A rank waits in each collective from its own start until the straggler arrived: the first (its
    duration − the straggler's) µs of it. Its wait is the time those stretches cover, so that two
    collectives waiting side by side (gloo's worker threads, NCCL's streams) count once.
    """
    straggler = int(np.argmin(totals))
    theirs = np.array([keys[straggler][key][1] - keys[straggler][key][0] for key in order])
    waits = []
    for found in keys:
        starts = np.array([found[key][0] for key in order])
        longer = np.maximum(np.array([found[key][1] for key in order]) - starts - theirs, 0.0)
        waits.append(union_length(starts, starts + longer))
    shares = [100 * wait / row["window"]["dur_us"] if row["window"] and row["window"]["dur_us"] else None
              for wait, row in zip(waits, rows, strict=True)]
    return straggler, waits, shares


def alignment(keys: list[dict[Key, Window]], order: list[Key]) -> tuple[Key, float]:
    """(the shared collective to align the ranks on, how far matched collectives stray from ending together).

    A collective ends on every rank at about the same time, so each rank's ends minus the first rank's
    should be one number, the offset of its clock. The collective chosen is the one whose ends agree best
    with each rank's median offset; the stray is the median distance from it over all matched collectives
    (large when the ranks' sequences do not correspond: sampled or cut traces).
    """
    offsets = np.array([[found[key][1] - keys[0][key][1] for key in order] for found in keys])
    distance = np.abs(offsets - np.median(offsets, axis=1, keepdims=True))
    return order[int(np.argmin(distance.sum(axis=0)))], float(np.median(distance[1:])) if len(keys) > 1 else 0.0


def job_verdict(rows: list[RankRow], straggler: int | None, shares: list[float | None],
                unmatched: str | None) -> tuple[JobVerdict, str]:
    """(verdict, text) of the whole job: the straggler when another rank waited long for it, else what most
    ranks' own verdicts say. ``unmatched`` says why the ranks' collectives cannot be compared, if they cannot."""
    waited = [share for index, share in enumerate(shares) if index != straggler and share is not None]
    if straggler is not None and waited and max(waited) >= STRAGGLER_WAIT_PCT:
        return "straggler", JOB_VERDICTS["straggler"].format(label=label(rows[straggler]).capitalize(),
                                                             wait_pct=max(waited))
    counts = Counter(row["verdict"] for row in rows)
    verdict = counts.most_common(1)[0][0]
    said = "; ".join(f"{name} on {count} of {len(rows)}" for name, count in counts.most_common())
    if len(rows) == 1:
        return verdict, f"One rank: its own verdict is the job's ({said})."
    if unmatched:
        return verdict, f"{unmatched}, so no straggler is named; the ranks' own verdicts: {said}."
    return verdict, f"No rank held the others up for long; the ranks' own verdicts: {said}."


def job_summary(ranks: list[RankSummary]) -> Job:
    """The job from its ranks' summaries (``rank_summary``'s, in rank order).

    Returns each rank's row (its collectives counted, not listed, with its wait
    for the straggler), how many collectives every rank has, the one the ranks
    are aligned on, whether the matched collectives stray from ending together
    (then no straggler is named), the straggler's index and the job's verdict.
    """
    by = matched_by(ranks)
    keys = [keyed(row["collectives"], by == "seq") for row in ranks]
    shared = set(keys[0]).intersection(*keys[1:]) if keys else set[Key]()
    order = sorted(shared, key=lambda key: keys[0][key][0])
    totals = [sum(found[key][1] - found[key][0] for key in order) for found in keys]
    rows: list[RankRow] = [{**row, "collectives": len(row["collectives"]), "shared_collective_us": total,
                            "wait_us": None, "wait_pct": None} for row, total in zip(ranks, totals, strict=True)]
    aligned: Alignment | None = None
    stray_us, straggler = 0.0, None
    if order:
        key, stray_us = alignment(keys, order)
        # Named as rank 0 names it: the n-th of its name on its stream there.
        name, stream, occurrence = dict(zip(keys[0], keyed(ranks[0]["collectives"]), strict=True))[key]
        aligned = {"name": name, "stream": stream, "occurrence": occurrence,
                   "end_us": [found[key][1] for found in keys]}
    median_us = median([end - start for found in keys for start, end in (found[k] for k in order)]) or 0.0
    strays = bool(order) and stray_us > STRAY_SHARE * median_us
    if len(rows) > 1 and order and not strays:
        straggler, waits, shares = straggler_of(keys, order, totals, rows)
        for row, wait, share in zip(rows, waits, shares, strict=True):
            row["wait_us"], row["wait_pct"] = wait, share
    unmatched = ("No collective appears on every rank" if not order else
                 "The ranks' collectives do not line up one for one (sampled traces, or traces cut at different "
                 "steps?)" if strays else None)
    verdict, text = job_verdict(rows, straggler, [row["wait_pct"] for row in rows], unmatched)
    sizes = {row["world_size"] for row in rows if row["world_size"] is not None}
    return {
        "ranks": rows,
        "world_size": max(sizes) if sizes else None,
        "shared_collectives": len(order),
        "matched_by": by,
        "aligned_on": aligned,
        "stray_us": stray_us,
        "strays": strays,
        "straggler": straggler,
        "straggler_host_alone": host_alone(rows, straggler),
        "verdict": verdict,
        "verdict_text": text,
    }


def ranks_to_show(job: Job, limit: int) -> list[int]:
    """Indices of the ranks worth listing or drawing, in rank order: every one, or for a job of more than
    ``limit`` the straggler and the ranks that waited longest for it (else those with the most exposed
    communication)."""
    rows = job["ranks"]
    if len(rows) <= limit:
        return list(range(len(rows)))
    ranked = sorted(range(len(rows)), key=lambda i: (i != job["straggler"], -(rows[i]["wait_us"] or 0.0),
                                                     -rows[i]["exposed_us"]))
    return sorted(ranked[:limit])
