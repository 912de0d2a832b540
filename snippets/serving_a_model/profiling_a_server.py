"""What profiling a server costs, setting by setting, on the generation of ``generation.py``: each decode step
timed without the profiler and under it with each option; the stall that handing a finished profile over puts on
the serving thread, with the trace written on that thread or on another; the size of the trace with and without
``with_stack``; and a schedule that records a few steps of a long run and leaves the rest alone.

Run it as a script to print what it measured.
"""

import json
import os
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import torch
from torch.profiler import ProfilerActivity, profile, schedule

from snippets.serving_a_model.generation import generate, make_decoder

# --8<-- [start:options]
# What each configuration passes to profile(); None: no profiler at all.
OPTIONS = {
    "no profiler": None,
    "defaults": {},
    "record_shapes": {"record_shapes": True},
    "with_stack": {"with_stack": True},
    "profile_memory": {"profile_memory": True},
}
# --8<-- [end:options]


def activities_on(device):
    return [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])


class StepClock:
    """Called after each phase step (``generate``'s ``step``): runs ``then`` (a profiler's ``step``), waits for the
    device, and keeps the wall time since the call before, in µs: what a request waits between two tokens."""

    def __init__(self, device, then=None):
        self.device, self.then, self.times = device, then, []
        self.last = time.perf_counter()

    def __call__(self):
        if self.then:
            self.then()
        if self.device == "cuda":
            torch.cuda.synchronize()
        now = time.perf_counter()
        self.times.append((now - self.last) * 1e6)
        self.last = now


def decode_step_times(model, prompt, new_tokens, options, device):
    """The decode steps' wall times in one generation under a profiler given ``options`` (None: no profiler)."""
    clock = StepClock(device)
    if options is None:
        generate(model, prompt, new_tokens, step=clock)
    else:
        with profile(activities=activities_on(device), **options):
            clock.last = time.perf_counter()  # starting the profiler is paid once, not by a step
            generate(model, prompt, new_tokens, step=clock)
    return clock.times[1:]  # the first is the prefill


# --8<-- [start:hand-over]
def write_here(path):
    """An ``on_trace_ready`` that writes the trace on the thread that called ``prof.step()``: the serving thread."""
    def write(prof):
        prof.export_chrome_trace(path)
    return write


def write_elsewhere(path, writer):
    """An ``on_trace_ready`` that hands the finished profile to ``writer``, a pool of one thread, and returns."""
    def hand_over(prof):
        writer.submit(prof.export_chrome_trace, path)
    return hand_over
# --8<-- [end:hand-over]


def keep(kept):
    """An ``on_trace_ready`` that keeps the profile in ``kept`` and writes nothing: what is left of the stall is
    the profiler's own stop."""
    return kept.append


def steps_around_hand_over(model, prompt, new_tokens, active, on_trace_ready, device):
    """Each phase step's wall time in a generation whose steps after one warm-up step are recorded ``active`` at a
    time, once: the step that ends the active phase stops the profiler and calls ``on_trace_ready``, and the steps
    after it run while a writer thread, if there is one, works."""
    with profile(activities=activities_on(device), schedule=schedule(wait=0, warmup=1, active=active, repeat=1),
                 on_trace_ready=on_trace_ready) as prof:
        clock = StepClock(device, then=prof.step)
        generate(model, prompt, new_tokens, step=clock)
    return clock.times


def hand_over_stalls(model, prompt, new_tokens, active, rounds, device):
    """For each way of handing a profile over, the median over ``rounds`` of a generation's longest step; beside
    it, the median step of all those generations."""
    with tempfile.TemporaryDirectory() as folder, ThreadPoolExecutor(max_workers=1) as writer:
        path = os.path.join(folder, "trace.json")
        handlers = {"not written": keep([]), "written on the serving thread": write_here(path),
                    "written on another thread": write_elsewhere(path, writer)}
        found, medians = {name: [] for name in handlers}, []
        for round_number in range(rounds):
            names = list(handlers)
            shift = round_number % len(names)
            for name in names[shift:] + names[:shift]:  # each round in a shifted order, as in the option timings
                times = steps_around_hand_over(model, prompt, new_tokens, active, handlers[name], device)
                writer.submit(lambda: None).result()  # the writer has finished before the next round starts
                found[name].append(max(times))
                medians.append(statistics.median(times))
    return [{"name": name, "longest_step_us": statistics.median(longest), "median_step_us": statistics.median(medians)}
            for name, longest in found.items()]


# --8<-- [start:size]
def trace_size(model, prompt, new_tokens, active, options, device):
    """The exported trace of ``active`` steps under ``options``: its bytes, its events, and how long writing took."""
    kept = []
    with profile(activities=activities_on(device), schedule=schedule(wait=0, warmup=1, active=active, repeat=1),
                 on_trace_ready=kept.append, **options) as prof:
        generate(model, prompt, new_tokens, step=prof.step)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "trace.json")
        start = time.perf_counter()
        kept[0].export_chrome_trace(path)
        written_us = (time.perf_counter() - start) * 1e6
        with open(path) as trace:
            events = len(json.load(trace)["traceEvents"])
        return {"bytes": os.path.getsize(path), "events": events, "export_us": written_us}
# --8<-- [end:size]


# --8<-- [start:schedule]
def serve(model, prompts, new_tokens, on_trace_ready, device, skip_first=20, wait=5, warmup=1, active=3):
    """A server's loop, cut short: one generation after another, one profiler step a phase step. The schedule
    skips the first steps, waits, warms up, records ``active`` steps once, then leaves the loop alone."""
    with profile(activities=activities_on(device), on_trace_ready=on_trace_ready,
                 schedule=schedule(skip_first=skip_first, wait=wait, warmup=warmup, active=active, repeat=1)) as prof:
        for prompt in prompts:
            generate(model, prompt, new_tokens, step=prof.step)
    return len(prompts) * new_tokens  # the phase steps the loop ran
# --8<-- [end:schedule]


def measure_profiler_costs(new_tokens=32, rounds=7, active=16, requests=4, vocabulary=2048, layers=2, width=256,
                           heads=4, hidden=1024, prompt_tokens=64, threads=1, device=None, on_trace_ready=None):
    """Everything the page measures, in one process; the schedule's one recorded cycle goes to ``on_trace_ready``."""
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    if threads:
        torch.set_num_threads(threads)  # the serving thread's ops on one core: a writer thread may use another
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    model, prompt = make_decoder(vocabulary, layers, width, heads, hidden, prompt_tokens + new_tokens, 1,
                                 prompt_tokens, dtype, device)
    decode_step_times(model, prompt, new_tokens, {}, device)  # first-call costs, the profiler's first start too
    times = {name: [] for name in OPTIONS}
    for round_number in range(rounds):
        names = list(OPTIONS)
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:  # a slow moment of the machine shared out, not blamed on one
            times[name] += decode_step_times(model, prompt, new_tokens, OPTIONS[name], device)
    sizes = {name: trace_size(model, prompt, new_tokens, active, OPTIONS[name], device)
             for name in ("defaults", "with_stack")}
    stalls = hand_over_stalls(model, prompt, new_tokens, active, rounds, device)
    prompts = [prompt] * requests
    steps_run = serve(model, prompts, new_tokens, on_trace_ready, device)
    return {
        "device": device,
        "new_tokens": new_tokens,
        "rounds": rounds,
        "active": active,
        "configurations": [{"name": name, "options": OPTIONS[name], "median_step_us": statistics.median(found)}
                           for name, found in times.items()],
        "trace_sizes": [{"name": name, **size} for name, size in sizes.items()],
        "hand_over": stalls,
        "steps_run": steps_run,
    }


if __name__ == "__main__":
    found = measure_profiler_costs(rounds=3)
    for row in found["configurations"]:
        print(f"{row['name']:>30}  median decode step {row['median_step_us']:8.0f} µs")
    for row in found["hand_over"]:
        print(f"{row['name']:>30}  longest step {row['longest_step_us']:10.0f} µs")
    for row in found["trace_sizes"]:
        print(f"{row['name']:>30}  {row['bytes']:,} bytes, {row['events']:,} events")
