"""Part 6, Serving a model: `profguide explain` on every recording and real trace the part shows finds the steps
of a generation or an engine, gives each phase a verdict of its own, and prints a line for each; a trace of graphs
being captured, which runs no step, is judged as a capture."""

import pytest

from profguide.render.explain import serving_lines
from profguide.site.data import run_data
from profguide.site.parts.serving_a_model import (
    compiled_decoding,
    generation,
    kv_cache,
    profiling_a_server,
    serving_engine,
)
from tests.helpers import ROOT

MODULES = (generation, kv_cache, compiled_decoding, serving_engine, profiling_a_server)
RUNS = sorted({run.id for module in MODULES for run in (*getattr(module, "RECORDINGS", ()),
                                                         *getattr(module, "REAL_TRACES", ()))})
OWN = {run.id for module in MODULES for run in getattr(module, "RECORDINGS", ())}


def test_the_part_shows_recordings_and_real_traces():
    assert OWN and set(RUNS) - OWN


@pytest.mark.parametrize("run_id", RUNS)
def test_explain_gives_each_phase_of_every_run_of_the_part_a_verdict_and_a_line(run_id):
    data = run_data(run_id, ROOT)
    serving = data.summary["serving"]
    if data.summary["verdict"] == "graph-capture":  # vLLM capturing its graphs at start-up: no step runs
        assert serving is None
        return
    assert serving is not None, f"{run_id}: explain finds no serving steps"
    phases = [phase["phase"] for phase in serving["phases"]]
    stepped = {step["phase"] for step in serving["steps"]}
    assert phases and set(phases) == stepped
    assert all(phase["verdict"] and phase["steps"] for phase in serving["phases"])
    lines = serving_lines(serving)
    assert [line.split(":")[0] for line in lines] == [f"Serving ({serving['engine']}), {phase}" for phase in phases]
    if run_id in OWN:  # the guide's own loop names its steps with regions, and every generation decodes
        assert serving["engine"] == "record_function" and "decode" in phases
        assert len({step["batch"] for step in serving["steps"]}) == 1  # one generation: its batch throughout
