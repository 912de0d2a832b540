"""snippets/serving_a_model/compiled_decoding.py: compiled with a static cache, one graph serves the prefill and one
every decode step; with the dynamic cache, the first decode step has a graph of its own before one with a dynamic
length serves the rest; eager, no compiled region at all; compiled, the tokens chosen are the eager ones."""

import pytest
import torch

from snippets.serving_a_model.compiled_decoding import (
    compiled_regions_by_phase,
    profile_decoding,
    with_static_addresses,
)
from snippets.serving_a_model.generation import generate, make_decoder

TINY = {"vocabulary": 64, "layers": 1, "width": 16, "heads": 2, "hidden": 32, "prompt_tokens": 6}
NEW_TOKENS = 5  # a prefill, then four decode steps


def regions(**options):
    torch._dynamo.reset()  # no graph of another test may be reused
    found = {}
    profile_decoding(new_tokens=NEW_TOKENS, device="cpu", **TINY, **options,
                     on_trace_ready=lambda prof: found.update(compiled_regions_by_phase(prof)))
    return {phase: dict(counts) for phase, counts in found.items()}


def test_eager_decoding_runs_no_compiled_region():
    assert regions(compiled=False) == {"prefill": {}, "decode": {}}


@pytest.mark.slow
@pytest.mark.usefixtures("compiles_in_process")
def test_with_a_static_cache_one_graph_serves_every_decode_step():
    assert regions(compiled=True, cache="static") == {
        "prefill": {"Torch-Compiled Region: 0/0": 1},
        "decode": {"Torch-Compiled Region: 0/1": NEW_TOKENS - 1}}


@pytest.mark.slow
@pytest.mark.usefixtures("compiles_in_process")
def test_with_a_dynamic_cache_the_first_decode_step_has_a_graph_of_its_own():
    assert regions(compiled=True, cache="dynamic") == {
        "prefill": {"Torch-Compiled Region: 0/0": 1},
        "decode": {"Torch-Compiled Region: 0/1": 1, "Torch-Compiled Region: 0/2": NEW_TOKENS - 2}}


@pytest.mark.slow
@pytest.mark.usefixtures("compiles_in_process")
def test_reduce_overhead_on_a_cpu_runs_the_same_two_graphs():
    assert regions(compiled=True, mode="reduce-overhead") == {
        "prefill": {"Torch-Compiled Region: 0/0": 1},
        "decode": {"Torch-Compiled Region: 0/1": NEW_TOKENS - 1}}


@pytest.mark.slow
@pytest.mark.usefixtures("compiles_in_process")
def test_compiled_decoding_chooses_the_eager_tokens():
    torch._dynamo.reset()
    model, prompt = make_decoder(**TINY, max_tokens=TINY["prompt_tokens"] + NEW_TOKENS)
    eager = generate(model, prompt, NEW_TOKENS, "static")
    assert torch.equal(generate(torch.compile(model), prompt, NEW_TOKENS, "static"), eager)


def test_only_the_static_cache_has_its_buffers_marked_static():
    model, _ = make_decoder(**TINY)
    new_cache = with_static_addresses(model.new_cache)
    static = new_cache("static", 1)
    assert all(hasattr(buffer, "_dynamo_static_input_type") for buffer in static.keys + static.values)
    assert new_cache("dynamic", 1).keys == [None] * TINY["layers"]
