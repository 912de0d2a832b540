"""snippets/serving_a_model/generation_sweep.py: each configuration of batch and prompt is timed once, a prefill and
a decode step a later token by the clock, and one generation is profiled."""

from snippets.serving_a_model.generation import make_decoder
from snippets.serving_a_model.generation_sweep import phase_times, sweep

TINY = {"vocabulary": 64, "layers": 2, "width": 32, "heads": 2, "hidden": 64}


def test_a_generation_times_its_prefill_and_each_decode_step():
    model, prompt = make_decoder(**TINY, batch=2, prompt_tokens=8)
    prefill, decodes = phase_times(model, prompt, 5, "cpu")
    assert prefill > 0
    assert len(decodes) == 4 and min(decodes) > 0


def test_the_sweep_times_each_configuration_once_and_profiles_one_generation():
    traces = []
    found = sweep(prompt_lengths=(4, 64), batches=(1, 2), prompt_tokens=4, new_tokens=3, repeats=1, **TINY,
                  device="cpu", on_trace_ready=traces.append)
    assert [(point["batch"], point["prompt_tokens"]) for point in found["points"]] == [(1, 4), (1, 64), (2, 4)]
    assert len(traces) == 1
    assert all(point["prefill_us"] > 0 and point["decode_us"] > 0 for point in found["points"])
