"""snippets/inside_a_model/transformer_block.py: a pre-norm decoder block trains; eager, its forward runs each part in a
region of its own and the optimizer's step in one more; compiled, Dynamo drops the regions and Inductor fuses each norm
into one kernel, which a CPU trace names with Inductor's kernel-profile option."""

import pytest
import torch
import torch.nn.functional as F

from profguide import trace
from profguide.analysis.regions import region_calls
from snippets.inside_a_model.transformer_block import (
    PARTS,
    DecoderBlock,
    RMSNorm,
    make_training,
    profile_block,
    train_step,
)
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "inside_a_model" / "transformer_block.py"
TINY = {"layers": 2, "width": 16, "heads": 2, "hidden": 32, "batch": 2, "tokens": 4}
# Compiled, one layer's two norms show the fusion as well as two layers' four, and Inductor's C++ for the forward and
# the backward of one layer builds in about three quarters of the time.
ONE_LAYER = {**TINY, "layers": 1}


def recorded(tmp_path, compiled, sizes=TINY):
    path = tmp_path / f"{compiled}.json"
    torch._dynamo.reset()  # the kernel-profile option acts when the block compiles: no earlier code may be reused
    profile_block(compiled=compiled, steps=1, warmup_steps=1, device="cpu", **sizes,
                  on_trace_ready=lambda p: p.export_chrome_trace(str(path)))
    return trace.load(path)


def names(loaded):
    return [loaded.names[code] for code in loaded.name.tolist()]


def test_rms_norm_scales_each_token_to_unit_root_mean_square():
    norm = RMSNorm(8, eps=0.0)
    x = torch.randn(3, 5, 8)
    y = norm(x)
    torch.testing.assert_close(y.pow(2).mean(-1), torch.ones(3, 5))
    torch.testing.assert_close(y, F.rms_norm(x, (8,), norm.weight))


def test_the_block_is_causal_and_residual():
    torch.manual_seed(0)
    block = DecoderBlock(16, 2, 32)
    x = torch.randn(1, 6, 16)
    later = x.clone()
    later[:, 4:] += 1  # changing later tokens must not change earlier outputs
    torch.testing.assert_close(block(x)[:, :4], block(later)[:, :4])
    assert not torch.allclose(block(x)[:, 4:], block(later)[:, 4:])


def test_a_training_step_changes_every_parameter_and_leaves_no_gradient():
    model, optimizer, x, target = make_training(**TINY)
    before = [parameter.detach().clone() for parameter in model.parameters()]
    loss = F.mse_loss(model(x), target).item()
    train_step(model, optimizer, x, target)
    assert all(not torch.equal(old, new) for old, new in zip(before, model.parameters(), strict=True))
    assert all(parameter.grad is None for parameter in model.parameters())
    assert F.mse_loss(model(x), target).item() < loss


def test_eager_each_part_is_a_region_once_a_layer_and_the_optimizer_once_a_step(tmp_path):
    loaded = recorded(tmp_path, compiled=False)
    calls = {part: len(region_calls(loaded, part)) for part in PARTS}
    assert calls == {"norm": 2 * TINY["layers"], "attention": TINY["layers"], "MLP": TINY["layers"], "optimizer": 1}
    assert names(loaded).count("aten::rsqrt") == 2 * TINY["layers"]


# Inductor compiles the block's forward and backward here, two C++ files that g++ builds: about 10 s on two cores with a
# cold cache, more of its own work than any test outside the slow ones does, so it is one of them.
@pytest.mark.slow
@pytest.mark.usefixtures("compiles_in_process")
def test_compiled_the_regions_are_gone_and_each_norm_is_one_fused_kernel(tmp_path):
    loaded = recorded(tmp_path, compiled=True, sizes=ONE_LAYER)
    assert [len(region_calls(loaded, part)) for part in PARTS] == [0, 0, 0, 1]  # Dynamo ignores record_function
    found = names(loaded)
    assert "aten::rsqrt" not in found
    fused = [name for name in found if "cpp_fused" in name and "rsqrt" in name]
    assert len(fused) == 2 * ONE_LAYER["layers"]  # one kernel a norm, each on its own in the step's forward
    assert any(name == "CompiledFunctionBackward" for name in found)


@pytest.mark.slow
def test_the_script_prints_each_parts_forward_time(tmp_path):
    done = run_script(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stderr
    printed = {line.split(":")[0].strip(): line for line in done.stdout.splitlines() if ":" in line}
    assert set(printed) == set(PARTS)
    assert "2 calls" in printed["norm"] and "1 calls" in printed["optimizer"]
