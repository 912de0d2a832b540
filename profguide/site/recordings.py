"""The recordings behind the guide's figures and tables.

A recording names a snippet function and the parameters to call it with.
The recorder imports the snippet from ``snippets/`` and runs exactly that
function under the profiler, so the page shows the code that made the figure.
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Recording:
    """One profiler run that the guide shows.

    Attributes:
        id: folder name under ``docs/generated/``.
        snippet: path of the snippet script, relative to the project root.
        function: the snippet function that builds and returns the profiler.
        params: keyword arguments for ``function``.
        device: the device the recording is meant for (``"cuda"`` or ``"cpu"``).
        title: what the recording shows, in a few words.
        figure: how to annotate its figures (not part of the cache key): ``brackets``,
            names of events to measure, those present (the first of each name);
            ``highlight``, names to outline; ``callouts``, names to number in order,
            those present in the trace; ``compare_first_step``,
            draw the first step beside the fastest on one scale; ``spread``, names of
            ops whose durations to plot, the first one present; ``breakdown``, split each
            step into GPU busy and idle time by cause.
    """

    id: str
    snippet: str
    function: str
    params: dict = field(default_factory=dict)
    device: str = "cuda"
    title: str = ""
    figure: dict = field(default_factory=dict)


FIRST_PROFILE_FIGURE = {
    "brackets": ("matmul_bias", "cudaDeviceSynchronize"),
    "highlight": ("aten::mm",),
    "callouts": ("matmul_bias", "aten::mm", "cudaLaunchKernel", "aten::add", "cudaDeviceSynchronize"),
}
RECORDINGS = (
    Recording(
        id="basics-matmul-64",
        snippet="snippets/basics/first_profile.py",
        function="profile_matmul_bias",
        params={"size": 64},
        title="Matmul plus bias add on 64×64 inputs",
        figure=FIRST_PROFILE_FIGURE,
    ),
    Recording(
        id="basics-matmul-4096",
        snippet="snippets/basics/first_profile.py",
        function="profile_matmul_bias",
        params={"size": 4096},
        title="Matmul plus bias add on 4096×4096 inputs",
        figure=FIRST_PROFILE_FIGURE,
    ),
    Recording(
        id="basics-steps-scheduled",
        snippet="snippets/basics/training_steps.py",
        function="profile_steps",
        params={"size": 4096, "steps": 8, "wait": 1, "warmup": 1, "active": 3},
        title="Eight steps under schedule(wait=1, warmup=1, active=3)",
        figure={"brackets": ("ProfilerStep#3",), "callouts": ("forward", "reduce"), "breakdown": True},
    ),
    Recording(
        id="basics-steps-from-first",
        snippet="snippets/basics/training_steps.py",
        function="profile_steps",
        params={"size": 4096, "steps": 5, "wait": 0, "warmup": 0, "active": 5},
        title="Five steps, recorded from the very first",
        figure={"compare_first_step": True, "spread": ("aten::mm",)},
    ),
    Recording(
        id="basics-cpu-only",
        snippet="snippets/basics/cpu_only.py",
        function="profile_on_cpu",
        params={"size": 1024},
        device="cpu",
        title="Matmul plus bias add on 1024×1024 inputs, CPU only",
    ),
)


def by_id(recording_id, recordings=RECORDINGS):
    """Return the recording named ``recording_id``; raise KeyError with the known ids."""
    for recording in recordings:
        if recording.id == recording_id:
            return recording
    known = ", ".join(r.id for r in recordings)
    raise KeyError(f"no recording named {recording_id!r} (known: {known})")
