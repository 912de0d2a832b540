"""snippets/serving_a_model/generation.py and generation_sweep.py: the decoder is causal; its dynamic and static
caches choose the same tokens, which are those of a generation that recomputes the whole sequence at each step;
under the profiler, one prefill region and a decode region a later token, each in a ProfilerStep of its own, named
with the batch and the tokens."""

import pytest
import torch

from profguide import trace
from profguide.analysis.regions import region_calls
from profguide.analysis.select import profiler_steps
from snippets.serving_a_model.generation import DynamicCache, generate, make_decoder, profile_generation
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "serving_a_model" / "generation.py"
TINY = {"vocabulary": 64, "layers": 2, "width": 32, "heads": 2, "hidden": 64}
NEW_TOKENS = 6


def recomputed(model, prompt, new_tokens):
    """Greedy decoding without a cache: the whole sequence through the model again for each token."""
    sequence = prompt
    for _ in range(new_tokens):
        token = model(sequence, DynamicCache(len(model.blocks)), 0)[:, -1:].argmax(-1)
        sequence = torch.cat([sequence, token], dim=1)
    return sequence[:, prompt.shape[1]:]


@torch.inference_mode()
def test_a_position_sees_no_later_token():
    model, prompt = make_decoder(**TINY, batch=1, prompt_tokens=8)
    changed = prompt.clone()
    changed[:, 5:] = (changed[:, 5:] + 1) % TINY["vocabulary"]
    logits = model(prompt, DynamicCache(TINY["layers"]), 0)
    logits_changed = model(changed, DynamicCache(TINY["layers"]), 0)
    torch.testing.assert_close(logits_changed[:, :5], logits[:, :5])
    assert not torch.allclose(logits_changed[:, 5:], logits[:, 5:])


@pytest.mark.parametrize("cache", ["dynamic", "static"])
def test_cached_generation_chooses_the_tokens_of_recomputing(cache):
    model, prompt = make_decoder(**TINY, max_tokens=16 + NEW_TOKENS, batch=3, prompt_tokens=16)
    chosen = generate(model, prompt, NEW_TOKENS, cache)
    assert chosen.shape == (3, NEW_TOKENS)
    with torch.inference_mode():
        torch.testing.assert_close(chosen, recomputed(model, prompt, NEW_TOKENS), rtol=0, atol=0)


def test_steps_are_counted_once_a_phase_step():
    model, prompt = make_decoder(**TINY, max_tokens=8 + NEW_TOKENS, batch=2, prompt_tokens=8)
    steps = []
    generate(model, prompt, NEW_TOKENS, step=lambda: steps.append(len(steps)))
    assert len(steps) == NEW_TOKENS  # the prefill chose the first token, each decode step one more


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    path = tmp_path_factory.mktemp("generation") / "trace.json"
    profile_generation(new_tokens=NEW_TOKENS, **TINY, batch=2, prompt_tokens=8, device="cpu",
                       on_trace_ready=lambda prof: prof.export_chrome_trace(str(path)))
    return trace.load(path)


def test_the_trace_holds_one_prefill_then_a_decode_region_a_later_token(recorded):
    prefill = region_calls(recorded, "prefill bs=2 toks=16")
    decode = region_calls(recorded, "decode bs=2 toks=2")
    assert len(prefill) == 1  # the warm-up generation's regions are not kept
    assert len(decode) == NEW_TOKENS - 1
    assert prefill[0]["start_us"] < min(call["start_us"] for call in decode)


def test_each_phase_step_is_a_profiler_step_the_prefill_first(recorded):
    steps = profiler_steps(recorded)
    assert [step["step"] for step in steps] == list(range(1, NEW_TOKENS + 1))
    prefill = region_calls(recorded, "prefill bs=2 toks=16")[0]
    first = steps[0]
    assert first["start_us"] <= prefill["start_us"] < first["start_us"] + first["dur_us"]


def test_the_script_prints_each_phase_with_its_calls(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    printed = [line.strip() for line in done.stdout.splitlines() if ":" in line]
    assert [line.split(" calls")[0] for line in printed] == ["prefill bs=1 toks=16: 1", "decode bs=1 toks=1: 7"]

