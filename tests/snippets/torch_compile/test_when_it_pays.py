"""snippets/torch_compile/when_it_pays.py: eager and compiled timed in one process, one short profile handed over."""

import json

import pytest

from snippets.torch_compile.when_it_pays import time_eager_and_compiled


# Inductor compiles C++ in this process: it raises sys.getrecursionlimit() unless its cache holds the graph, which
# the fixture puts back, and with a cold cache its first compile takes seconds
# (tests/snippets/torch_compile/test_fusion.py).
@pytest.mark.slow
@pytest.mark.usefixtures("compiles_in_process")
def test_both_runs_are_timed_and_the_compiled_first_call_compiles():
    handed = []
    found = time_eager_and_compiled(width=8, hidden=16, batch=2, steps=2, rounds=2, warmup_calls=1, device="cpu",
                                    on_trace_ready=handed.append)
    assert len(handed) == 1 and found["steps"] == 4
    eager, compiled = found["configurations"]
    assert (eager["name"], compiled["name"]) == ("eager", "compiled")
    # Whether the first compiled call compiles depends on the process: test_fusion may have compiled the same
    # model code for the same shapes already, and Dynamo reuses it (the recordings run in fresh processes).
    assert eager["first_call_us"] > 0 and compiled["first_call_us"] > 0
    assert all(row["median_step_us"] >= row["median_host_us"] > 0 for row in (eager, compiled))
    json.dumps(found)  # plain values: the recorder writes them as results.json
