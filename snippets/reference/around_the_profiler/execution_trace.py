"""What ran, with every input, and no times: the execution trace, recorded beside the profiler's trace.

Run it as a script to write ``execution_trace.json`` and ``kineto_trace.json``, the pair that Chakra's
``chakra_trace_link`` joins, and to print how many nodes the execution trace holds.
"""

import json
import tempfile
from collections import Counter
from pathlib import Path

import torch
from torch import nn
from torch.profiler import ExecutionTraceObserver, ProfilerActivity, profile


def make_classifier(width=32, batch=8):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return model, optimizer, torch.randn(batch, width), torch.randint(0, 4, (batch,))


# --8<-- [start:record]
def record_execution_trace(path, width=32, batch=8, on_trace_ready=None):
    """One training step under the profiler, with an execution trace written to ``path`` as it runs."""
    model, optimizer, inputs, labels = make_classifier(width, batch)
    observer = ExecutionTraceObserver().register_callback(str(path))
    with profile(activities=[ProfilerActivity.CPU], execution_trace_observer=observer,
                 on_trace_ready=on_trace_ready):
        optimizer.zero_grad(set_to_none=True)
        nn.functional.cross_entropy(model(inputs), labels).backward()
        optimizer.step()
    return json.loads(Path(path).read_text())
# --8<-- [end:record]


# --8<-- [start:summary]
def execution_trace_summary(width=32, batch=8, on_trace_ready=None):
    """The execution trace's schema, its nodes by name, and one node as it was written."""
    with tempfile.TemporaryDirectory() as folder:
        written = record_execution_trace(Path(folder) / "execution_trace.json", width, batch, on_trace_ready)
    nodes = written["nodes"]
    return {
        "schema": written["schema"],
        "nodes_by_name": dict(Counter(node["name"] for node in nodes).most_common()),
        "example": next(node for node in nodes if node["name"] == "aten::addmm"),
    }
# --8<-- [end:summary]


if __name__ == "__main__":
    written = record_execution_trace(
        "execution_trace.json", on_trace_ready=lambda prof: prof.export_chrome_trace("kineto_trace.json"))
    print(f"{len(written['nodes'])} nodes, schema {written['schema']}")
