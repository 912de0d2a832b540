"""Profile a long job only when asked: a schedule that records nothing until a file appears.

Run it as a script: it trains for a while, and ``touch profile-now`` from another shell (in the folder it
runs in) makes it record the next few steps into ``on_demand_trace.json``; without one, it asks itself
once, halfway.
"""

from pathlib import Path

import torch
from torch import nn
from torch.profiler import ProfilerAction, ProfilerActivity, profile


# --8<-- [start:schedule]
class OnRequest:
    """A profiler schedule: nothing until the file ``flag`` appears, then one warm-up step and ``active``
    recorded steps, handed to ``on_trace_ready``; then nothing again until the file appears again."""

    def __init__(self, flag, active=3):
        self.flag, self.active = Path(flag), active
        self.asked_at = None  # the step at which the request was seen

    def __call__(self, step):
        if self.asked_at is None:
            if not self.flag.exists():
                return ProfilerAction.NONE
            self.flag.unlink()
            self.asked_at = step
            return ProfilerAction.WARMUP
        if step - self.asked_at < self.active:
            return ProfilerAction.RECORD
        self.asked_at = None  # this cycle is done: the next request starts another
        return ProfilerAction.RECORD_AND_SAVE
# --8<-- [end:schedule]


def make_training(width=64, batch=16):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    return model, optimizer, torch.randn(batch, width), torch.randn(batch, 1)


def train_step(model, optimizer, inputs, targets):
    optimizer.zero_grad(set_to_none=True)
    nn.functional.mse_loss(model(inputs), targets).backward()
    optimizer.step()


# --8<-- [start:loop]
def train_on_request(steps=40, ask_at=20, active=3, flag="profile-now", on_trace_ready=None):
    """A job of ``steps`` steps that records only when asked; at step ``ask_at`` it asks itself, standing in
    for someone who runs ``touch profile-now`` while it trains."""
    training = make_training()
    with profile(activities=[ProfilerActivity.CPU], schedule=OnRequest(flag, active),
                 on_trace_ready=on_trace_ready) as prof:
        for step in range(steps):
            train_step(*training)
            if step == ask_at:
                Path(flag).touch()
            prof.step()
# --8<-- [end:loop]


if __name__ == "__main__":
    train_on_request(on_trace_ready=lambda prof: prof.export_chrome_trace("on_demand_trace.json"))
    print("wrote on_demand_trace.json")
