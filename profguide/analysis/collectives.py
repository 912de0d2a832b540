"""A collective's anatomy: the events one ``torch.distributed`` collective leaves in a trace, layer by layer.

A collective (``dist.all_reduce``, or DDP's reducer sending a bucket of
gradients) leaves up to five kinds of event: the op the call dispatches
(``c10d::allreduce_``) on the thread that called it; where the backend records
them, its parameters (``record_param_comms``: message size, data type, process
group); the backend's own op (``gloo:all_reduce`` on one of gloo's threads,
``nccl:all_reduce`` on the calling thread, which only enqueues the work); and,
on a GPU, the same name on a stream around the NCCL kernel that moves the data.
DDP's reducer adds ops of its own around them.

These need the events' args and the threads' names, which the trace model
leaves out, so the functions here read the trace's JSON document (a dict);
the traces they are meant for are a recording's or one rank's of a real job.
"""

import re
import statistics
from math import prod

BACKEND_OP = re.compile(r"^(gloo|nccl|mpi|ucc|xccl):(\w+)$")
COMM_KERNEL = re.compile(r"^(nccl|rccl)", re.IGNORECASE)
THREAD_LABEL = re.compile(r"\((.+)\)\s*$")
STEP = re.compile(r"^ProfilerStep#(\d+)$")
# The layers in the order a collective goes through them, and what each is, in words.
LAYERS = {
    "call": "the op the call dispatches",
    "parameters": "its sizes and process group",
    "backend": "the backend's op",
    "stream": "the backend's op on the GPU",
    "kernel": "the kernel that moves the data",
    "reducer": "DDP's reducer, around the buckets",
}
# Bytes per element of the type names traces use: ``Input type`` (``float``) and ``dtype`` (``Float``).
DTYPE_BYTES = {"float": 4, "double": 8, "c10::half": 2, "half": 2, "c10::bfloat16": 2, "bfloat16": 2,
               "long": 8, "long int": 8, "int": 4, "short": 2, "signed char": 1, "unsigned char": 1, "bool": 1}


def complete_events(document):
    """The complete (``ph: X``) events of a trace document."""
    return [e for e in document.get("traceEvents") or () if isinstance(e, dict) and e.get("ph") == "X"]


def layer_of(event):
    """The layer of a collective an event belongs to (a key of ``LAYERS``), or None."""
    category, name = event.get("cat"), str(event.get("name", ""))
    if category == "cpu_op" and name.startswith("c10d::"):
        return "call"
    if category == "cpu_op" and name == "record_param_comms":
        return "parameters"
    if BACKEND_OP.match(name):
        return {"user_annotation": "backend", "gpu_user_annotation": "stream"}.get(category)
    if category == "kernel" and COMM_KERNEL.match(name):
        return "kernel"
    if category == "cpu_op" and "reducer::" in name:
        return "reducer"
    return None


def thread_labels(document):
    """(pid, tid) → the name the trace gives the lane: ``pt_gloo_runloop``, ``pt_autograd_0``, ``stream 40``.

    torch names a thread more than once (``python`` and then ``pt_gloo_runloop``);
    the name that differs from the main thread's is the one that says what the thread does.
    """
    names = {}
    for event in document.get("traceEvents") or ():
        if isinstance(event, dict) and event.get("ph") == "M" and event.get("name") == "thread_name":
            raw = str((event.get("args") or {}).get("name", "")).strip()
            label = match.group(1) if (match := THREAD_LABEL.search(raw)) else raw
            names.setdefault((event.get("pid"), event.get("tid")), []).append(label)
    main = {pid: labels[0] for (pid, tid), labels in names.items() if pid == tid and labels}
    return {lane: next((label for label in labels if label != main.get(lane[0])), labels[0])
            for lane, labels in names.items() if labels}


def lane(event):
    return event.get("pid"), event.get("tid")


def anatomy(document):
    """The collective's events grouped by layer, name and the thread or stream they run on, in layer order:
    [{"layer", "name", "category", "runs_on", "lanes", "count", "median_us"}]."""
    labels = thread_labels(document)
    groups = {}
    for event in sorted(complete_events(document), key=lambda e: float(e.get("ts") or 0)):
        layer = layer_of(event)
        if layer is None:
            continue
        runs_on = labels.get(lane(event), f"thread {event.get('tid')}")
        group = groups.setdefault((layer, event["name"], runs_on), {"lanes": set(), "durations": [],
                                                                   "category": event.get("cat")})
        group["lanes"].add(lane(event))
        group["durations"].append(float(event.get("dur") or 0))
    order = list(LAYERS)
    return [{"layer": layer, "name": name, "category": group["category"], "runs_on": runs_on,
             "lanes": len(group["lanes"]), "count": len(group["durations"]),
             "median_us": statistics.median(group["durations"])}
            for (layer, name, runs_on), group in sorted(groups.items(), key=lambda item: order.index(item[0][0]))]


def encloses(outer, inner):
    """Whether ``outer`` holds ``inner`` in time on the same thread."""
    start, end = float(outer["ts"]), float(outer["ts"]) + float(outer.get("dur") or 0)
    return lane(outer) == lane(inner) and start <= float(inner["ts"]) and \
        float(inner["ts"]) + float(inner.get("dur") or 0) <= end


def enclosing(event, candidates):
    """The first of ``candidates`` that holds ``event``, or None (the candidates are few per trace)."""
    return next((outer for outer in candidates if outer is not event and encloses(outer, event)), None)


def backend_ops(events, collective):
    """The backend's host-side ops of one collective (``all_reduce``), in order of start."""
    ops = [e for e in events if layer_of(e) == "backend" and BACKEND_OP.match(e["name"]).group(2) == collective]
    return sorted(ops, key=lambda e: float(e["ts"]))


def outside_calls_share(document, collective="all_reduce"):
    """The share of the backend's ops of ``collective`` that run outside the call that asked for them (on
    another thread): 1 for gloo, whose own threads do the work; 0 for NCCL, which enqueues it from the call."""
    events = complete_events(document)
    ops = backend_ops(events, collective)
    if not ops:
        return None
    calls = [e for e in events if layer_of(e) == "call"]
    return sum(enclosing(op, calls) is None for op in ops) / len(ops)


def inside_share(document, inner, outer_contains):
    """The share of the events named ``inner`` that an event whose name holds ``outer_contains`` encloses."""
    events = complete_events(document)
    inners = [e for e in events if e.get("name") == inner]
    if not inners:
        return None
    outers = [e for e in events if outer_contains in str(e.get("name", "")) and e.get("name") != inner]
    return sum(enclosing(event, outers) is not None for event in inners) / len(inners)


def message_bytes(event, parameters):
    """The bytes one backend op sends: from its ``Input Dims`` (recorded with ``record_shapes``), else from
    the ``record_param_comms`` event of ``parameters`` around it; None when neither says."""
    args = event.get("args") or {}
    dims, types = args.get("Input Dims"), args.get("Input type")
    if dims and isinstance(dims[0], list) and all(isinstance(n, int) for n in dims[0]) and types:
        elements, dtype = prod(dims[0]), types[0]
    else:
        around = enclosing(event, parameters) or {}
        elements, dtype = (around.get("args") or {}).get("In msg nelems"), (around.get("args") or {}).get("dtype")
    size = DTYPE_BYTES.get(str(dtype).lower())
    return elements * size if isinstance(elements, int) and size else None


def step_buckets(document, collective="all_reduce"):
    """Each ``ProfilerStep#N``: the backend ops of ``collective`` that start in it and the bytes of each,
    [{"step", "sizes"}] (a size is None where the trace does not say)."""
    events = complete_events(document)
    steps = sorted((e for e in events if e.get("cat") == "user_annotation" and STEP.match(str(e.get("name", "")))),
                   key=lambda e: float(e["ts"]))
    ops = backend_ops(events, collective)
    parameters = [e for e in events if layer_of(e) == "parameters"]
    rows = []
    for step in steps:
        start, end = float(step["ts"]), float(step["ts"]) + float(step.get("dur") or 0)
        inside = [op for op in ops if start <= float(op["ts"]) < end]
        rows.append({"step": int(STEP.match(step["name"]).group(1)),
                     "sizes": [message_bytes(op, parameters) for op in inside]})
    return rows


def fewest_per_step(document, collective="all_reduce"):
    """The fewest backend ops of ``collective`` that start in any one step; None without steps."""
    counts = [len(row["sizes"]) for row in step_buckets(document, collective)]
    return min(counts) if counts else None


def comm_stream_share(document):
    """Of the kernel time on the streams that run communication kernels, the share that is communication:
    1 when NCCL has its streams to itself."""
    kernels = [e for e in complete_events(document) if e.get("cat") == "kernel"]
    streams = {lane(e) for e in kernels if COMM_KERNEL.match(str(e.get("name", "")))}
    on_them = [e for e in kernels if lane(e) in streams]
    total = sum(float(e.get("dur") or 0) for e in on_them)
    if not total:
        return None
    return sum(float(e.get("dur") or 0) for e in on_them if COMM_KERNEL.match(e["name"])) / total


def ranks_named(infos):
    """The share of a job's rank traces whose ``distributedInfo`` names their own rank (their position among
    them) and the job's size."""
    if not infos:
        return None
    return sum(isinstance(info, dict) and info.get("rank") == rank and info.get("world_size") == len(infos)
               for rank, info in enumerate(infos)) / len(infos)


def communication_by_call(document):
    """The communication kernels' time by the collective that launched them and by kernel name.

    A kernel's name need not name its collective (a job's all-reduces can all run as
    ``ncclKernel_SendRecv_…``), so each kernel is joined to its launch call by ``correlation``, and the
    backend op that encloses that call on its thread (``nccl:all_reduce``) names the collective. A kernel
    whose launch the trace does not hold (launched before the profiler started) has no call.
    Returns [{"call", "kernel", "count", "us"}], most time first; ``call`` is the backend op
    (``nccl:all_reduce``, ``nccl:all_to_all``…) or None.
    """
    events = complete_events(document)
    launches = {}
    for event in events:
        correlation = (event.get("args") or {}).get("correlation")
        if event.get("cat") in ("cuda_runtime", "cuda_driver") and correlation is not None:
            launches[correlation] = event
    backend = [e for e in events if layer_of(e) == "backend"]
    rows = {}
    for kernel in (e for e in events if layer_of(e) == "kernel"):
        launch = launches.get((kernel.get("args") or {}).get("correlation"))
        op = enclosing(launch, backend) if launch else None
        call = op["name"] if op else None
        row = rows.setdefault((call, kernel["name"]), {"call": call, "kernel": kernel["name"], "count": 0, "us": 0.0})
        row["count"] += 1
        row["us"] += float(kernel.get("dur") or 0)
    return sorted(rows.values(), key=lambda row: -row["us"])
