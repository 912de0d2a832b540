"""The recordings of Part 2, Reading the output: The input pipeline."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from profguide.site.measures.host import HostLead, HostShare, HostShareFall
from profguide.site.measures.ops import OpsInRegion
from profguide.site.measures.summary import DiffValue, RuleFixed, VerdictIs
from profguide.site.recordings import Claim, Recording

if TYPE_CHECKING:
    from profguide.site.fragment_run import Maker
    from profguide.site.recordings import Run

PAGE = "reading-output/input-pipeline.md"
INPUT_PIPELINE = "snippets.reading_output.input_pipeline"
# One intra-op thread: on a small shared machine, threads that wait on each other make the computing time of a
# step jump about, and the page compares the time spent loading with the time spent computing.
PIPELINE_PARAMS = {"batch_size": 32, "load_ms": 1.0, "hidden": 2048, "threads": 1, "wait": 1, "warmup": 1,
                   "active": 4}
SINGLE_NEXT = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
MULTI_NEXT = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"
NO_WORKERS = "reading-input-workers-0"
TWO_WORKERS = "reading-input-workers-2"


def pipeline_run(workers: int, claims: tuple[Claim, ...], compared_with: str = "") -> Recording:
    """The loop with ``workers`` DataLoader worker processes; the host is what it is about, so it is a CPU run."""
    return Recording(
        id=f"reading-input-workers-{workers}",
        module=INPUT_PIPELINE,
        function="profile_input_pipeline",
        params={"num_workers": workers, **PIPELINE_PARAMS},
        device="cpu",
        title="A training loop over a slow dataset, num_workers={num_workers}",
        claims=claims,
        compared_with=compared_with,
    )


RECORDINGS = (
    pipeline_run(0, (
        Claim(PAGE, "the ops that `__getitem__` calls, one `aten::randn` for each sample of the batch, sit "
                    "inside it", OpsInRegion(SINGLE_NEXT, "aten::randn"), at_least=PIPELINE_PARAMS["batch_size"],
              at_most=PIPELINE_PARAMS["batch_size"]),
        Claim(PAGE, "waiting for data is the largest single part of every step", HostLead("data loading"),
              at_least=1, at_most=10),
        Claim(PAGE, "calls the run without workers `input-bound`", VerdictIs("input-bound"), at_least=1, at_most=1),
    )),
    pipeline_run(2, (
        Claim(PAGE, "no `aten::randn` is left under `__next__`", OpsInRegion(MULTI_NEXT, "aten::randn"), at_least=0,
              at_most=0),
        # One aten::empty and one aten::set_ for each tensor of a batch: its inputs and its labels.
        Claim(PAGE, "what is left under it is two `aten::empty` and two `aten::set_` calls",
              OpsInRegion(MULTI_NEXT, "aten::empty"), at_least=2, at_most=2),
        Claim(PAGE, "what is left under it is two `aten::empty` and two `aten::set_` calls",
              OpsInRegion(MULTI_NEXT, "aten::set_"), at_least=2, at_most=2),
        Claim(PAGE, "the share of each step spent waiting for data falls several times over",
              HostShareFall("data loading", NO_WORKERS), at_least=3, at_most=20),
        Claim(PAGE, "With two workers, waiting for data is a small part of each step", HostShare("data loading"),
              at_least=0.01, at_most=0.2),
        Claim(PAGE, "and the run with two `host-compute-bound`", VerdictIs("host-compute-bound"), at_least=1,
              at_most=1),
        Claim(PAGE, "the time each step spends loading data falls to a small fraction of what it was",
              DiffValue("host_us", "ratio", "data loading"), at_least=0, at_most=0.25),
        Claim(PAGE, "the rule that flags a DataLoader without workers no longer fires",
              RuleFixed("dataloader-without-workers"), at_least=1, at_most=1),
    ), compared_with=NO_WORKERS),
)


# The fragments only this page's recordings give (the generic ones: profguide.site.fragments). Their imports
# are inside them: `profguide record` imports this module on a bare GPU machine, with the standard library only.


def host_steps(data: Run) -> dict[str, str]:
    """Each recorded step of this run and of the other recordings of its snippet function, split by host
    activity on one time scale, with a table of the median step and its time loading data (no GPU work)."""
    from profguide.analysis.host import host_breakdown
    from profguide.figures.host_steps import host_steps_svg
    from profguide.patterns import STEP
    from profguide.render import fragments as render
    from profguide.site.fragment_run import FragmentError, snippet_runs, svg_path
    from profguide.stats import median
    from profguide.text import cell, format_duration, markdown_table

    runs = snippet_runs(data, RECORDINGS)
    hosts = [host for run in runs if (host := host_breakdown(run.trace)) and STEP.match(host["windows"][0]["label"])]
    if len(hosts) < len(runs):
        raise FragmentError("a run of this snippet has no ProfilerStep to split by host activity")
    svg = host_steps_svg([(run.title, [(w["label"], w["by_activity_us"]) for w in host["windows"]])
                          for run, host in zip(runs, hosts, strict=True)],
                         title="Each recorded step, split by what the main thread was doing")

    def median_duration(values: list[float]) -> str:
        return format_duration(cast(float, median(values)))  # of a run's steps, one or more (checked above)

    table = markdown_table(
        ("Run", "Median step", "Median time loading data", "Share of the steps loading data"),
        [(cell(run.title), median_duration([w["dur_us"] for w in host["windows"]]),
          median_duration([w["by_activity_us"]["data loading"] for w in host["windows"]]),
          f"{100 * host['by_activity']['data loading']['us'] / host['dur_us']:.1f}%")
         for run, host in zip(runs, hosts, strict=True)], "lrrr")
    caption = ("Each recorded step of each run, one bar per step, all on one time scale. A bar adds up the "
               "time the main thread spent in each activity during the step, in the order a step runs them; "
               "it shows how long, not exactly when.")
    notes = "\n".join(render.provenance_note(run.meta) for run in runs)
    return {"host-steps.svg": svg,
            "host-steps.md": render.extra_figure_fragment(svg_path(data, "host-steps.svg"), caption) + "\n"
            + table + "\n" + notes}


FRAGMENTS: dict[str, Maker] = {"host-steps.md": host_steps}
