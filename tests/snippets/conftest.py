"""Fixtures the snippet tests share."""

import functools

import pytest
import torch


@pytest.fixture
def eager_backend(monkeypatch):
    """torch.compile with Dynamo's eager backend: Dynamo still decides when to compile and wraps each call, but
    nothing is generated, so a test compiles in milliseconds where Inductor takes seconds."""
    torch._dynamo.reset()
    monkeypatch.setattr(torch, "compile", functools.partial(torch.compile, backend="eager"))
    yield
    torch._dynamo.reset()
