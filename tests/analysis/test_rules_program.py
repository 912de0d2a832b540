"""The rules of torch's anti-pattern matcher: each threshold's edge on a small trace (just under is quiet, just over
fires), and the evidence each gives on a run of the guide."""

import numpy as np
import pytest

from profguide.analysis import rules_program as rules
from profguide.analysis.select import first_of
from profguide.analysis.summarise import summarise
from profguide.patterns import GEMM_FIRST_MATRIX
from profguide.site.catalogue import by_id
from profguide.site.data import run_data
from snippets.reading_output.anti_patterns import convnet
from tests.helpers import ROOT, make_trace
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu

SINGLE_NEXT = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
SGD_STEP = "Optimizer.step#SGD.step"
ZERO_GRAD = "Optimizer.zero_grad#SGD.zero_grad"
A100 = {"name": "NVIDIA A100-SXM4-80GB", "computeMajor": 8, "computeMinor": 0}
V100 = {"name": "Tesla V100-SXM2-32GB", "computeMajor": 7, "computeMinor": 0}


def check(rule, trace):
    return rule(trace, summarise(trace))


def step(*events, dur=100.0):
    """One ProfilerStep of ``dur`` µs holding ``events``."""
    return (cpu("ProfilerStep#1", 0, dur, kind="annotation"), *events)


# dataloader-without-workers: over 5% of the steps' time in the single-process iterator.
@pytest.mark.parametrize(("loading_us", "fires"), [(5.0, False), (5.1, True)])
def test_the_dataloader_rule_fires_just_over_a_twentieth_of_the_steps(loading_us, fires):
    trace = make_trace(*step(cpu(SINGLE_NEXT, 1, loading_us, kind="annotation"), cpu("aten::mm", 10, 50)))
    evidence = check(rules.dataloader_without_workers, trace)
    assert (evidence is not None) == fires
    if fires:
        assert evidence.measured == pytest.approx(100 * loading_us / 100)
        assert evidence.at_us == 1


def test_the_dataloader_rule_is_quiet_with_workers():
    name = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"
    assert check(rules.dataloader_without_workers, make_trace(*step(cpu(name, 1, 50, kind="annotation")))) is None


def optimizer_step(*ops, name=SGD_STEP):
    """An optimizer step region of 50 µs holding ``ops`` (names), 2 µs each, one after another."""
    return make_trace(*step(cpu(name, 10, 50, kind="annotation"),
                            *(cpu(op, 11 + 2 * i, 1) for i, op in enumerate(ops))))


# single-tensor-optimizer: one update op called at least 4 times per step, with no foreach op.
@pytest.mark.parametrize(("calls", "fires"), [(3, False), (4, True)])
def test_the_optimizer_rule_fires_from_four_calls_of_one_update_op(calls, fires):
    evidence = check(rules.single_tensor_optimizer, optimizer_step(*["aten::add_"] * calls, "aten::mul_"))
    assert (evidence is not None) == fires
    if fires:
        assert evidence.measured == calls and evidence.at_us == 10
        assert "`aten::add_` 4 times" in evidence.words


def test_the_optimizer_rule_is_quiet_with_a_foreach_op_or_a_fused_optimizer():
    assert check(rules.single_tensor_optimizer, optimizer_step("aten::_foreach_add_", *["aten::add_"] * 8)) is None
    fused = optimizer_step(*["aten::add_"] * 8, name="Optimizer.step#FusedAdam.step")
    assert check(rules.single_tensor_optimizer, fused) is None


def test_the_optimizer_rule_reads_the_single_tensor_frames_of_a_stack():
    frame = "torch/optim/adam.py(340): _single_tensor_adam"
    evidence = check(rules.single_tensor_optimizer, make_trace(*step(cpu(frame, 20, 5, kind="python"))))
    assert evidence is not None and evidence.measured == 1 and evidence.at_us == 20


# zero-grad-zeroes: any zeroing op in zero_grad that does not make a new tensor.
def zero_grad(*ops):
    """zero_grad's region holding ``ops``: (name, start, duration) each."""
    return make_trace(*step(cpu(ZERO_GRAD, 10, 30, kind="annotation"), *(cpu(name, ts, dur) for name, ts, dur in ops)))


def test_the_zero_grad_rule_fires_on_one_zeroing_op():
    evidence = check(rules.zero_grad_zeroes, zero_grad(("aten::zero_", 12, 2)))
    assert evidence is not None and evidence.measured == 1 and evidence.at_us == 10


def test_the_zero_grad_rule_counts_a_zeroing_op_that_another_calls_once():
    evidence = check(rules.zero_grad_zeroes, zero_grad(("aten::zero_", 12, 2), ("aten::fill_", 12.5, 1),
                                                       ("aten::fill_", 20, 1)))
    assert evidence.measured == 2
    assert "3.0 µs in them" in evidence.words


def test_the_zero_grad_rule_is_quiet_without_ops_or_on_a_new_tensor_of_zeros():
    assert check(rules.zero_grad_zeroes, zero_grad()) is None
    assert check(rules.zero_grad_zeroes, zero_grad(("aten::zeros", 12, 4), ("aten::zero_", 13, 2))) is None


# cpu-filled-then-copied: a host-to-device copy whose op comes right after a CPU creation op.
def filled_then_copied(*between, made_on_gpu=False):
    """aten::ones on the host (or launching a kernel), ``between`` ops, then aten::to with a HtoD memcpy."""
    made = [cpu("aten::ones", 0, 5), cpu("aten::fill_", 1, 3)]
    if made_on_gpu:
        made += [cpu("cudaLaunchKernel", 2, 1, kind="runtime", correlation=1),
                 gpu("fill_kernel", 4, 1, correlation=1)]
    later = [cpu(name, 6 + i, 0.5) for i, name in enumerate(between)]
    start = 7 + len(between)
    copy = [cpu("aten::to", start, 10), cpu("aten::_to_copy", start + 1, 8), cpu("aten::copy_", start + 2, 6),
            cpu("cudaMemcpyAsync", start + 3, 4, kind="runtime", correlation=2),
            gpu("Memcpy HtoD (Pageable -> Device)", start + 5, 2, kind="memcpy", correlation=2)]
    return make_trace(*made, *later, *copy)


def test_the_copy_rule_fires_on_a_tensor_made_on_the_host_then_copied():
    evidence = check(rules.cpu_filled_then_copied, filled_then_copied())
    assert evidence is not None and evidence.measured == 1 and evidence.at_us == 0
    assert "`aten::ones`, then `aten::to`" in evidence.words


def test_the_copy_rule_is_quiet_when_an_op_comes_between_or_the_tensor_was_made_on_the_gpu():
    assert check(rules.cpu_filled_then_copied, filled_then_copied("aten::add")) is None
    assert check(rules.cpu_filled_then_copied, filled_then_copied(made_on_gpu=True)) is None


def test_the_copy_rule_is_quiet_on_a_copy_launched_by_a_thread_that_ran_no_op():
    alone = make_trace(cpu("cudaMemcpy", 0, 4, kind="runtime", correlation=2),
                       gpu("Memcpy HtoD (Pageable -> Device)", 2, 2, kind="memcpy", correlation=2))
    assert check(rules.cpu_filled_then_copied, alone) is None


# conv-bias-before-batch-norm: the batch norm within the two ops after a biased convolution.
def convolution_then(*after, bias=(16,)):
    """aten::conv2d (with a bias of shape ``bias``, recorded) then the ops ``after``, 1 µs each."""
    dims = [[32, 3, 16, 16], [16, 3, 3, 3], list(bias), [], [], [], []]
    types = ["float", "float", "float" if bias else "", "ScalarList", "ScalarList", "ScalarList", "Scalar"]
    return make_trace(cpu("aten::conv2d", 0, 5, **{"Input Dims": dims, "Input type": types}),
                      cpu("aten::convolution", 1, 3), *(cpu(name, 6 + i, 1) for i, name in enumerate(after)))


@pytest.mark.parametrize(("after", "fires"), [(("aten::add_", "aten::batch_norm"), True),
                                               (("aten::add_", "aten::relu", "aten::batch_norm"), False)])
def test_the_convolution_rule_looks_two_ops_after_the_convolution(after, fires):
    evidence = rules.conv_bias_before_batch_norm(convolution_then(*after), None)
    assert (evidence is not None) == fires
    if fires:
        assert evidence.measured == 1 and evidence.at_us == 0 and "bias of shape [16]" in evidence.words


def test_the_convolution_rule_is_quiet_without_a_bias():
    assert rules.conv_bias_before_batch_norm(convolution_then("aten::batch_norm", bias=()), None) is None


@pytest.mark.parametrize("text", ["[[1], [2], [3]", "[1, 2, 3]", "[" * 100_000, "{}"])
def test_a_convolutions_unreadable_input_dims_give_no_bias(text):
    assert rules.bias_shape(text) is None


# half-matmul-not-multiple-of-8: an fp16/bf16 matrix with a dimension that is not a multiple of 8.
def matmul(dims, dtype="c10::BFloat16"):
    return make_trace(cpu("aten::mm", 3, 5, **{"Input Dims": dims, "Input type": [dtype, dtype]}))


@pytest.mark.parametrize(("inner", "fires"), [(104, False), (100, True)])
def test_the_half_matmul_rule_fires_on_a_dimension_off_a_multiple_of_8(inner, fires):
    evidence = rules.half_matmul_not_multiple_of_8(matmul([[32, 16], [16, inner]]), None)
    assert (evidence is not None) == fires
    if fires:
        assert evidence.measured == 1 and evidence.at_us == 3 and "c10::BFloat16, 100)" in evidence.words


def test_the_half_matmul_rule_is_quiet_in_fp32():
    assert rules.half_matmul_not_multiple_of_8(matmul([[32, 16], [16, 100]], "float"), None) is None


# fp32-matmul-on-tensor-core-gpu: FP32 GEMM kernels at least 10% of the GEMM time on an 8.0+ GPU.
def gemms(fp32_us, device=A100):
    """Two GEMM kernels, one FP32 (``fp32_us``) and one TF32 taking the rest of 100 µs, on ``device``."""
    return make_trace(cpu("cudaLaunchKernel", 0, 2, kind="runtime", correlation=1),
                      cpu("cudaLaunchKernel", 3, 2, kind="runtime", correlation=2),
                      gpu("ampere_sgemm_128x64_tn", 10, fp32_us, correlation=1),
                      gpu("ampere_tf32_s1688gemm_tf32_128x128_nn", 10 + fp32_us, 100 - fp32_us, correlation=2),
                      deviceProperties=[device])


@pytest.mark.parametrize(("fp32_us", "fires"), [(9.9, False), (10.0, True)])
def test_the_fp32_rule_fires_from_a_tenth_of_the_gemm_time(fp32_us, fires):
    evidence = check(rules.fp32_matmul_on_tensor_core_gpu, gemms(fp32_us))
    assert (evidence is not None) == fires
    if fires:
        assert evidence.measured == pytest.approx(fp32_us) and evidence.at_us == 10
        assert "`ampere_sgemm_128x64_tn`" in evidence.words


def test_the_fp32_rule_is_quiet_on_a_gpu_without_tf32_or_on_amds():
    assert check(rules.fp32_matmul_on_tensor_core_gpu, gemms(50, V100)) is None
    # ROCm reports the gfx generation as the compute capability: 9.4 says nothing of TF32
    mi300x = {"name": "AMD Instinct MI300X", "computeMajor": 9, "computeMinor": 4}
    assert check(rules.fp32_matmul_on_tensor_core_gpu, gemms(50, mi300x)) is None


def test_the_fp32_rule_reads_the_gpus_name_when_its_properties_give_no_compute_capability():
    assert check(rules.fp32_matmul_on_tensor_core_gpu, gemms(50, {"name": "NVIDIA H100 80GB HBM3"})) is not None
    assert check(rules.fp32_matmul_on_tensor_core_gpu, gemms(50, {"name": "Tesla T4"})) is None


# The evidence on the runs of the guide.
def anti_patterns():
    return run_data("reading-anti-patterns", ROOT)


def parameter_tensors():
    params = by_id("reading-anti-patterns").params
    return len(list(convnet(False, hidden=params["hidden"], classes=params["classes"]).parameters()))


def test_on_the_anti_pattern_run_sgd_adds_twice_per_parameter_in_each_step():
    data = anti_patterns()
    evidence = rules.single_tensor_optimizer(data.trace, data.summary)
    # momentum: the buffer's add_ and the parameter's add_, for every parameter tensor
    assert evidence.measured == 2 * parameter_tensors()
    assert evidence.at_us == data.trace.ts[first_of(data.trace, SGD_STEP)]
    assert f"a step over {by_id('reading-anti-patterns').params['active']} optimizer steps" in evidence.words


def test_on_the_anti_pattern_run_zero_grad_zeroes_every_gradient_of_every_step():
    data = anti_patterns()
    evidence = rules.zero_grad_zeroes(data.trace, data.summary)
    assert evidence.measured == parameter_tensors() * by_id("reading-anti-patterns").params["active"]
    assert evidence.at_us == data.trace.ts[first_of(data.trace, ZERO_GRAD)]


def test_on_the_anti_pattern_run_every_bf16_matmul_has_the_hidden_size_off_8():
    data = anti_patterns()
    evidence = rules.half_matmul_not_multiple_of_8(data.trace, data.summary)
    hidden = by_id("reading-anti-patterns").params["hidden"]
    matmuls = [index for index in data.trace.shapes if data.trace.names[data.trace.name[index]] in GEMM_FIRST_MATRIX]
    assert evidence.measured == len(matmuls)  # forward and backward: each touches the hidden layer
    assert f", {hidden})" in evidence.words
    assert evidence.at_us == data.trace.ts[min(matmuls)]


def test_on_the_alexnet_trace_the_model_is_initialised_on_the_cpu_and_copied():
    data = run_data("reference-a100-alexnet", ROOT)
    evidence = rules.cpu_filled_then_copied(data.trace, data.summary)
    assert evidence is not None and "`aten::uniform_`, then `aten::to`" in evidence.words
    assert data.trace.names[data.trace.name[np.flatnonzero(data.trace.ts == evidence.at_us)[0]]] == "aten::uniform_"
    fp32 = rules.fp32_matmul_on_tensor_core_gpu(data.trace, data.summary)
    assert fp32 is not None and "sgemm" in fp32.words


def test_on_the_anti_pattern_run_each_forward_has_its_biased_convolution_before_the_batch_norm():
    data = anti_patterns()
    evidence = rules.conv_bias_before_batch_norm(data.trace, data.summary)
    assert evidence.measured == by_id("reading-anti-patterns").params["active"]  # one convolution a forward
    assert evidence.at_us == data.trace.ts[first_of(data.trace, "aten::conv2d")]
    assert f"bias of shape [{convnet(False)[0].out_channels}]" in evidence.words
