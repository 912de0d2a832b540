"""snippets/inside_a_model/attention.py: masked_fill copies the scores, allocating a score matrix, and masked_fill_ does
not; SDPA's math backend rebuilds the mask and upcasts, its CPU flash backend is one op; all of them compute the same
attention; and the in-place mask trains as the out-of-place one does, since nothing autograd keeps is overwritten."""

import pytest
import torch

from profguide import trace
from profguide.analysis.regions import ops_in_region
from snippets.inside_a_model.attention import (
    REGION,
    attention_by_hand,
    attention_pinned,
    make_inputs,
    profile_attention,
)
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "inside_a_model" / "attention.py"
TINY = {"batch": 1, "heads": 2, "tokens": 8, "head_dim": 16}


def recorded(tmp_path, variant):
    path = tmp_path / f"{variant}.json"
    profile_attention(variant, steps=2, warmup_calls=1, device="cpu", **TINY,
                      on_trace_ready=lambda p: p.export_chrome_trace(str(path)))
    return trace.load(path)


def test_every_variant_the_cpu_runs_computes_the_same_causal_attention():
    q, k, v, later = make_inputs(**TINY, dtype="float32")
    expected = attention_by_hand(q, k, v, later)
    for got in (attention_by_hand(q, k, v, later, in_place=True), attention_pinned(q, k, v, "math"),
                attention_pinned(q, k, v, "flash")):
        torch.testing.assert_close(got, expected)
    # The first token sees only itself: its output is its own value.
    torch.testing.assert_close(expected[..., 0, :], v[..., 0, :])


def test_the_in_place_mask_trains_too_with_the_same_gradients_as_the_copy():
    # The page's claim: nothing autograd keeps is overwritten by masked_fill_ (the scaling keeps its constant, the
    # softmax its own output), so the backward pass runs, and gives what the out-of-place version gives.
    grads = []
    for in_place in (False, True):
        q, k, v, later = make_inputs(**TINY, dtype="float32")
        for tensor in (q, k, v):
            tensor.requires_grad_()
        attention_by_hand(q, k, v, later, in_place=in_place).sum().backward()
        grads.append([tensor.grad for tensor in (q, k, v)])
    for copied, in_place in zip(*grads, strict=True):
        torch.testing.assert_close(in_place, copied)


def test_the_mask_hides_exactly_the_later_tokens():
    *_, later = make_inputs(**TINY)
    assert later.dtype == torch.bool and later.shape == (8, 8)
    assert later.sum() == 8 * 7 // 2 and not later.diagonal().any() and later[0, 1]


def test_a_pinned_backend_that_cannot_run_raises_instead_of_falling_back():
    q, k, v, _ = make_inputs(**TINY)
    with pytest.raises(RuntimeError):
        attention_pinned(q, k, v, "efficient")  # no memory-efficient kernel on a CPU


def test_out_of_place_masking_copies_the_scores_and_in_place_does_not(tmp_path):
    out_of_place, in_place = recorded(tmp_path, "masked_fill"), recorded(tmp_path, "masked_fill_")
    assert ops_in_region(out_of_place, "aten::masked_fill", "aten::clone") == 1
    assert ops_in_region(out_of_place, "aten::masked_fill", "aten::masked_fill_") == 1
    assert ops_in_region(in_place, REGION, "aten::clone") == 0
    assert ops_in_region(in_place, REGION, "aten::masked_fill") == 0
    assert ops_in_region(in_place, REGION, "aten::masked_fill_") == 1


def test_profiling_memory_shows_the_copy_as_one_score_matrix_allocated_that_in_place_does_not_allocate():
    # The page's claims: out of place, masked_fill allocates as much as the scaling's mul, one score matrix
    # (batch × heads × tokens × tokens in bfloat16); masked_fill_ allocates nothing.
    rows = {}
    for variant in ("masked_fill", "masked_fill_"):
        profile_attention(variant, steps=1, warmup_calls=1, device="cpu", profile_memory=True, **TINY,
                          on_trace_ready=lambda p, variant=variant: rows.update(
                              {variant: {row.key: row.cpu_memory_usage for row in p.key_averages()}}))
    scores = 1 * 2 * 8 * 8 * torch.bfloat16.itemsize
    assert rows["masked_fill"]["aten::masked_fill"] == rows["masked_fill"]["aten::mul"] == scores
    assert rows["masked_fill_"]["aten::masked_fill_"] == 0 and "aten::masked_fill" not in rows["masked_fill_"]


def test_the_math_backend_rebuilds_the_mask_and_upcasts_and_cpu_flash_is_one_op(tmp_path):
    math, flash = recorded(tmp_path, "math"), recorded(tmp_path, "flash")
    assert ops_in_region(math, REGION, "aten::_scaled_dot_product_attention_math") == 1
    assert ops_in_region(math, REGION, "aten::ones") == 1
    assert ops_in_region(math, REGION, "aten::_to_copy") >= 3  # query, key and value up to float32, at least
    assert ops_in_region(flash, REGION, "aten::_scaled_dot_product_flash_attention_for_cpu") == 1
    assert ops_in_region(flash, REGION, "aten::ones") == ops_in_region(flash, REGION, "aten::_to_copy") == 0


@pytest.mark.slow
def test_the_script_prints_the_ops_under_each_variants_region(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line for line in lines if line.startswith("#")] == ["# masked_fill", "# masked_fill_", "# math", "# flash"]
    assert lines.count(REGION) == 4
    assert lines.count("    aten::clone") == 1 and lines.count("  aten::masked_fill") == 1
