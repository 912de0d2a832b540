"""Where with_stack's Python calls fall: one training step under it, its forward and its backward in regions.

Run it as a script to write the step's trace, python_calls.json, and open it
in Perfetto: each python_function event is one Python call.
"""

from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function

from snippets.reading_output.footprint import make_training, train_step


# --8<-- [start:python-calls]
def labelled_step(model, optimizer, inputs, labels):
    """``train_step`` with its forward and its backward in regions of their own.

    The optimizer's ``step`` and ``zero_grad`` need none: every trace shows them
    as regions (``Optimizer.step#Adam.step``)."""
    optimizer.zero_grad(set_to_none=True)
    with record_function("forward"):
        loss = nn.functional.cross_entropy(model(inputs), labels)
    with record_function("backward"):
        loss.backward()
    optimizer.step()
    return loss


def profile_python_calls(warmup_steps=3, on_trace_ready=None):
    """One step under with_stack, after unprofiled ones that pay first-call costs."""
    training = make_training()
    for _ in range(warmup_steps):
        train_step(*training)
    with profile(activities=[ProfilerActivity.CPU], with_stack=True,
                 on_trace_ready=on_trace_ready) as prof:
        labelled_step(*training)
    return prof
# --8<-- [end:python-calls]


if __name__ == "__main__":
    profile_python_calls().export_chrome_trace("python_calls.json")
    print("wrote python_calls.json")
