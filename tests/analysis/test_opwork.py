"""profguide.analysis.opwork: FLOPs and bytes per op call, each formula checked with its arithmetic written out on
shapes copied from the real traces in docs/traces and the recordings in docs/generated (a few made up where no
trace has the op, said so), and a refusal for every kind of input that does not fit."""

import gzip
import json

import pytest

from profguide.analysis.opwork import FORMULAS, Work, op_work
from profguide.patterns import MODELLED_OPS
from tests.helpers import TRACES

BF16, FP32 = "c10::BFloat16", "float"


def test_the_modelled_ops_are_the_formula_table():
    assert frozenset(FORMULAS) == MODELLED_OPS


# --- GEMM: shapes from the A100 16-rank trace, BERT-small, Qwen1.5-0.5B, SGLang Qwen3-8B and vLLM on MI300X ------


def test_mm_counts_a_multiply_add_as_two_and_reads_both_matrices_and_writes_the_product():
    work = op_work("aten::mm", [[64, 4096], [4096, 2798]], [FP32, FP32], [])
    assert work == Work(2 * 64 * 2798 * 4096, (64 * 4096 + 4096 * 2798 + 64 * 2798) * 4, FP32, "GEMM")


def test_addmm_counts_its_bias_add_once_per_output_and_reads_the_bias_at_its_recorded_shape():
    dims = [[512], [141, 512], [512, 512], [], []]
    work = op_work("aten::addmm", dims, [BF16, BF16, BF16, "Scalar", "Scalar"], ["", "", "", "1", "1"])
    assert work == Work(2 * 141 * 512 * 512 + 141 * 512, (512 + 141 * 512 + 512 * 512 + 141 * 512) * 2, BF16, "GEMM")


def test_linear_and_the_addmm_it_calls_agree_on_bert():
    linear = op_work("aten::linear", [[1, 141, 512], [512, 512], [512]], [BF16] * 3, ["", "", ""])
    addmm = op_work(
        "aten::addmm", [[512], [141, 512], [512, 512], [], []], [BF16, BF16, BF16, "Scalar", "Scalar"], []
    )
    assert linear is not None and linear == addmm


def test_linear_without_a_bias_reads_no_bias_and_adds_nothing():
    work = op_work("aten::linear", [[4096, 100], [64, 100], []], [FP32, FP32, ""], [])
    assert work == Work(2 * 4096 * 64 * 100, (4096 * 100 + 64 * 100 + 4096 * 64) * 4, FP32, "GEMM")


def test_bmm_multiplies_each_batch():
    work = op_work("aten::bmm", [[2048, 160, 45], [2048, 45, 20]], [FP32, FP32], [])
    assert work == Work(2 * 2048 * 160 * 20 * 45, 2048 * (160 * 45 + 45 * 20 + 160 * 20) * 4, FP32, "GEMM")


def test_baddbmm_adds_a_broadcast_bias():  # a made-up call: no trace has one
    dims = [[1, 160, 20], [8, 160, 45], [8, 45, 20], [], []]
    work = op_work("aten::baddbmm", dims, [FP32, FP32, FP32, "Scalar", "Scalar"], [])
    flops = 2 * 8 * 160 * 20 * 45 + 8 * 160 * 20
    assert work == Work(flops, (160 * 20 + 8 * 160 * 45 + 8 * 45 * 20 + 8 * 160 * 20) * 4, FP32, "GEMM")


def test_matmul_and_the_mm_it_calls_agree_on_qwen():
    matmul = op_work("aten::matmul", [[16, 559, 1024], [1024, 2816]], [BF16, BF16], ["", ""])
    mm = op_work("aten::mm", [[16 * 559, 1024], [1024, 2816]], [BF16, BF16], ["", ""])
    assert matmul is not None and matmul == mm
    assert matmul.flops == 2 * 16 * 559 * 2816 * 1024


def test_matmul_broadcasts_batch_dims_and_treats_a_vector_as_a_matrix():
    batched = op_work("aten::matmul", [[4, 1, 32, 8], [3, 8, 5]], [FP32, FP32], [])
    assert batched is not None and batched.flops == 2 * (4 * 3) * 32 * 5 * 8
    vector = op_work("aten::matmul", [[8], [8, 5]], [FP32, FP32], [])
    assert vector == Work(2 * 5 * 8, (8 + 8 * 5 + 5) * 4, FP32, "GEMM")


def test_aiter_gemm_reads_its_second_matrix_transposed_and_writes_its_out_dtype():
    dims = [[15360, 4096], [6144, 4096], [], [], [], [], []]
    types = [BF16, BF16, "", "Scalar", "", "", ""]
    work = op_work("aiter::gemm_a16w16", dims, types, ["", "", "", "15", "", "", ""])
    assert work == Work(2 * 15360 * 6144 * 4096, (15360 * 4096 + 6144 * 4096 + 15360 * 6144) * 2, BF16, "GEMM")


def test_vllm_rocm_gemm_is_a_linear():
    work = op_work("vllm::rocm_unquantized_gemm", [[8192, 2880], [5120, 2880], [5120]], [BF16] * 3, ["", "", ""])
    flops = 2 * 8192 * 5120 * 2880 + 8192 * 5120
    assert work == Work(flops, (8192 * 2880 + 5120 * 2880 + 5120 + 8192 * 5120) * 2, BF16, "GEMM")


def test_scaled_mm_reads_fp8_and_its_scales_and_writes_its_out_dtype():  # made-up shapes: no trace has one
    fp8 = "c10::Float8_e4m3fn"
    dims = [[888, 2880], [2880, 5120], [888, 1], [1, 5120], [], [], [], []]
    types = [fp8, fp8, FP32, FP32, "", "", "Scalar", "Scalar"]
    work = op_work("aten::_scaled_mm", dims, types, ["", "", "", "", "", "", "15", "False"])
    moved = 888 * 2880 + 2880 * 5120 + (888 + 5120) * 4 + 888 * 5120 * 2
    assert work == Work(2 * 888 * 5120 * 2880, moved, fp8, "GEMM")


def test_scaled_mm_with_an_fp8_output_writes_one_byte_an_element():  # out_dtype 24 is Float8_e4m3fn
    fp8 = "c10::Float8_e4m3fn"
    dims = [[888, 2880], [2880, 5120], [], [], [], [], [], []]
    types = [fp8, fp8, FP32, FP32, "", "", "Scalar", "Scalar"]
    work = op_work("aten::_scaled_mm", dims, types, ["", "", "", "", "", "", "24", "False"])
    assert work == Work(2 * 888 * 5120 * 2880, 888 * 2880 + 2880 * 5120 + 2 * 4 + 888 * 5120, fp8, "GEMM")


def test_grouped_mm_sums_its_groups_rows():  # made-up shapes: 4 experts over 512 routed tokens
    dims = [[512, 2880], [4, 2880, 1024], [4], [], []]
    work = op_work("aten::_grouped_mm", dims, [BF16, BF16, "int", "", ""], ["", "", "", "", ""])
    moved = (512 * 2880 + 4 * 2880 * 1024) * 2 + 4 * 4 + 512 * 1024 * 2
    assert work == Work(2 * 512 * 1024 * 2880, moved, BF16, "GEMM")


# --- convolution: the anti-patterns recording's 3x3 convolution of 32 16x16 RGB images ------------------------


CONV_TYPES = [BF16, BF16, BF16, "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"]
NO_BIAS_TYPES = [BF16, BF16, ""] + CONV_TYPES[3:]
CONV_FLOPS = 2 * 32 * 16 * (16 * 16) * 3 * (3 * 3)


def test_convolution_counts_each_output_position_and_the_bias():
    dims = [[32, 3, 16, 16], [16, 3, 3, 3], [16], [], [], [], [], [], []]
    concrete = ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"]
    work = op_work("aten::convolution", dims, CONV_TYPES, concrete)
    moved = (32 * 3 * 16 * 16 + 16 * 3 * 3 * 3 + 16 + 32 * 16 * 16 * 16) * 2
    assert work == Work(CONV_FLOPS + 32 * 16 * 16 * 16, moved, BF16, "convolution")


def test_conv2d_convolution_and_the_backend_op_agree():
    dims = [[32, 3, 16, 16], [16, 3, 3, 3], [16], [], [], [], []]
    types = [BF16, BF16, BF16, "ScalarList", "ScalarList", "ScalarList", "Scalar"]
    conv2d = op_work("aten::conv2d", dims, types, ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "1"])
    mkldnn = op_work("aten::mkldnn_convolution", dims, types, ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "1"])
    full = ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", "False", "False", "True", "True"]
    convolution = op_work("aten::_convolution", dims[:3] + [[]] * 10, CONV_TYPES + ["Scalar"] * 4, full)
    assert conv2d is not None and conv2d == mkldnn == convolution


def test_convolution_output_size_follows_stride_padding_and_dilation():
    # 16 + 2*0 - 2*(3-1) - 1 = 11, // 2 + 1 = 6 positions per side
    concrete = ["", "", "", "[2, 2]", "[0, 0]", "[2, 2]", "False", "[0, 0]", "1"]
    work = op_work("aten::convolution", [[32, 3, 16, 16], [16, 3, 3, 3], [], [], [], [], [], [], []], NO_BIAS_TYPES,
                   concrete)
    assert work is not None and work.flops == 2 * 32 * 16 * (6 * 6) * 3 * 9


def test_cudnn_convolution_takes_padding_before_stride():
    dims = [[32, 3, 16, 16], [16, 3, 3, 3], [], [], [], [], [], [], []]
    types = [BF16, BF16, "ScalarList", "ScalarList", "ScalarList", "Scalar", "Scalar", "Scalar", "Scalar"]
    # padding [0, 0], stride [2, 2]: (16 - 3) // 2 + 1 = 7 positions per side
    work = op_work("aten::cudnn_convolution", dims, types, ["", "", "[0, 0]", "[2, 2]", "[1, 1]", "1", "", "", ""])
    assert work is not None and work.flops == 2 * 32 * 16 * (7 * 7) * 3 * 9


def test_grouped_and_transposed_convolutions():
    depthwise = ["", "", "", "[1]", "[1]", "[1]", "False", "[0]", "8"]
    work = op_work("aten::convolution", [[2, 8, 100], [8, 1, 5], [], [], [], [], [], [], []], NO_BIAS_TYPES, depthwise)
    assert work is not None and work.flops == 2 * 2 * 8 * (100 + 2 - 4 - 1 + 1) * 1 * 5
    # transposed: weight [C_in, C_out, k]; each of the 2 * 4 * 10 input values meets 6 * 3 weights
    transposed = ["", "", "", "[2]", "[0]", "[1]", "True", "[1]", "1"]
    work = op_work("aten::convolution", [[2, 4, 10], [4, 6, 3], [], [], [], [], [], [], []], NO_BIAS_TYPES, transposed)
    output = (10 - 1) * 2 + (3 - 1) + 1 + 1
    assert work is not None and work.flops == 2 * 2 * 10 * 4 * 6 * 3
    assert work.bytes == (2 * 4 * 10 + 4 * 6 * 3 + 2 * 6 * output) * 2


BACKWARD_TYPES = [BF16, BF16, BF16, "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList",
                  "Scalar", "ScalarList"]
BACKWARD_DIMS = [[32, 16, 16, 16], [32, 3, 16, 16], [16, 3, 3, 3]] + [[]] * 8


def _conv_backward(mask):
    concrete = ["", "", "", "[16]", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", mask]
    return op_work("aten::convolution_backward", BACKWARD_DIMS, BACKWARD_TYPES, concrete)


def test_convolution_backward_counts_the_gradients_its_output_mask_asks_for():
    first_layer = _conv_backward("[False, True, True]")  # no gradient for the images themselves
    moved = (32 * 16 * 16 * 16 + 32 * 3 * 16 * 16 + 16 * 3 * 3 * 3 + 16) * 2
    assert first_layer == Work(CONV_FLOPS + 32 * 16 * 16 * 16, moved, BF16, "convolution")
    both = _conv_backward("[True, True, False]")
    assert both is not None and both.flops == 2 * CONV_FLOPS


# --- attention: BERT-small (not causal), Qwen1.5-0.5B (causal), the CPU serving recordings (decode) ---------------


BERT_SDPA = [[1, 8, 141, 64]] * 3
QWEN_BHSD, QWEN_BSHD = [[16, 16, 559, 64]] * 3, [[16, 559, 16, 64]] * 3


def test_sdpa_counts_two_products_of_every_query_with_every_key():
    types = [BF16, BF16, BF16, "", "Scalar", "Scalar", "", "Scalar"]
    work = op_work("aten::scaled_dot_product_attention", BERT_SDPA + [[]] * 5, types,
                   ["", "", "", "", "0.", "False", "", "False"])
    assert work == Work(4 * 1 * 8 * 141 * 141 * 64, 4 * 1 * 8 * 141 * 64 * 2, BF16, "attention")


def test_the_causal_sdpa_chain_agrees_on_half_the_products():
    types = [BF16, BF16, BF16, "", "Scalar", "Scalar", "Scalar", "Scalar"]
    sdpa = op_work("aten::scaled_dot_product_attention", QWEN_BHSD + [[]] * 5, types,
                   ["", "", "", "", "0.", "True", "0.125", "False"])
    flash_sdpa = op_work("aten::_scaled_dot_product_flash_attention", QWEN_BHSD + [[]] * 4,
                         [BF16] * 3 + ["Scalar"] * 4, ["", "", "", "0.", "True", "False", "0.125"])
    concrete = ["", "", "", "", "", "559", "559", "0.", "True", "False", "0.125", "", "", "", ""]
    flash = op_work("aten::_flash_attention_forward", QWEN_BSHD + [[]] * 12,
                    [BF16] * 3 + ["", ""] + ["Scalar"] * 6 + [""] * 4, concrete)
    assert sdpa is not None and sdpa == flash_sdpa == flash
    assert sdpa.flops == 4 * 16 * 16 * 559 * 559 * 64 // 2


def test_attention_with_fewer_key_value_heads_counts_the_query_heads():  # made-up GQA shapes: 16 query, 2 kv heads
    dims = [[4, 16, 128, 64], [4, 2, 128, 64], [4, 2, 128, 64], [], [], [], [], []]
    work = op_work("aten::scaled_dot_product_attention", dims, [FP32] * 3 + ["", "Scalar", "Scalar", "", "Scalar"],
                   ["", "", "", "", "0.", "False", "", "True"])
    assert work == Work(4 * 4 * 16 * 128 * 128 * 64, (2 * 4 * 16 * 128 * 64 + 2 * 4 * 2 * 128 * 64) * 4, FP32,
                        "attention")


def test_a_decode_step_attends_one_query_to_every_cached_key():
    dims = [[4, 4, 1, 64], [4, 4, 2049, 64], [4, 4, 2049, 64], [], [], [], []]
    work = op_work("aten::_scaled_dot_product_flash_attention_for_cpu", dims,
                   [FP32] * 3 + ["Scalar", "Scalar", "", ""], ["", "", "", "0.", "False", "", ""])
    assert work is not None and work.flops == 4 * 4 * 4 * 1 * 2049 * 64


def test_efficient_attention_reads_its_mask_type_for_causal():  # made-up call: [B, S, H, D]
    dims = [[2, 256, 8, 64]] * 3 + [[]] * 7
    types = [BF16] * 3 + ["", "", "", "Scalar", "Scalar", "Scalar", "Scalar"]
    causal = op_work("aten::_efficient_attention_forward", dims, types, [""] * 6 + ["256", "256", "0.", "1"])
    plain = op_work("aten::_efficient_attention_forward", dims, types, [""] * 6 + ["256", "256", "0.", "0"])
    assert plain is not None and plain.flops == 4 * 2 * 8 * 256 * 256 * 64
    assert causal is not None and causal.flops == plain.flops // 2


def test_attention_backward_is_five_products_to_the_forwards_two():  # made-up call on BERT's shapes
    dims = [[1, 8, 141, 64]] * 5 + [[1, 8, 141]] + [[]] * 9
    types = [BF16] * 5 + [FP32] + [""] * 4 + ["Scalar", "Scalar", "", "", "Scalar"]
    work = op_work("aten::_scaled_dot_product_flash_attention_backward", dims, types,
                   [""] * 10 + ["0.", "False", "", "", "0.125"])
    forward = 4 * 1 * 8 * 141 * 141 * 64
    assert work == Work(forward * 5 // 2, 8 * 1 * 8 * 141 * 64 * 2 + 8 * 141 * 4, BF16, "attention")


# --- softmax, norms ----------------------------------------------------------------------------------------------


def test_softmax_writes_float_when_asked_to_from_half():
    work = op_work("aten::_softmax", [[16, 16, 559, 559], [], []], [BF16, "Scalar", "Scalar"], ["", "-1", "True"])
    elements = 16 * 16 * 559 * 559
    assert work == Work(5 * elements, elements * 2 + elements * 4, BF16, "softmax")


def test_softmax_backward_reads_the_gradient_and_the_output():
    work = op_work("aten::_log_softmax_backward_data", [[64, 10], [64, 10], [], []], [FP32, FP32, "Scalar", "Scalar"],
                   ["", "", "1", "6"])
    assert work == Work(4 * 64 * 10, 3 * 64 * 10 * 4, FP32, "softmax")


def test_layer_norm_and_native_layer_norm_agree_on_bert():
    dims = [[1, 141, 512], [], [512], [512], []]
    types = [BF16, "ScalarList", BF16, BF16, "Scalar"]
    native = op_work("aten::native_layer_norm", dims, types, ["", "[512]", "", "", "1e-12"])
    outer = op_work("aten::layer_norm", dims + [[]], types + ["Scalar"], ["", "[512]", "", "", "1e-12", "True"])
    assert native is not None and native == outer
    # statistics and normalisation 6, weight 1, bias 1 per element; input and output, weight and bias once
    assert native == Work((6 + 2) * 141 * 512, (2 * 141 * 512 + 2 * 512) * 2, BF16, "normalization")


def test_rms_norm_and_the_fused_one_agree():
    dims, types = [[4, 2048, 256], [], [256], []], [FP32, "ScalarList", FP32, ""]
    work = op_work("aten::rms_norm", dims, types, ["", "[256]", "", ""])
    assert work == op_work("aten::_fused_rms_norm", dims, types, ["", "[256]", "", ""])
    assert work == Work((3 + 1) * 4 * 2048 * 256, (2 * 4 * 2048 * 256 + 256) * 4, FP32, "normalization")


def test_batch_norm_computes_statistics_only_in_training():
    dims = [[32, 16, 16, 16], [16], [16], [16], [16], [], [], []]
    types = [BF16, FP32, FP32, FP32, FP32, "Scalar", "Scalar", "Scalar"]
    training = op_work("aten::native_batch_norm", dims, types, ["", "", "", "", "", "True", "0.1", "1e-05"])
    evaluation = op_work("aten::native_batch_norm", dims, types, ["", "", "", "", "", "False", "0.1", "1e-05"])
    elements = 32 * 16 * 16 * 16
    assert training == Work((6 + 2) * elements, elements * 2 * 2 + 4 * 16 * 4, BF16, "normalization")
    assert evaluation is not None and evaluation.flops == (2 + 2) * elements


def test_vendor_rms_norms_read_and_write_each_row_tensor_once():
    types = [BF16, BF16, BF16, "Scalar"]
    vllm = op_work("_C::rms_norm", [[888, 2880], [888, 2880], [2880], []], types, ["", "", "", "1e-05"])
    assert vllm == Work(4 * 888 * 2880, (2 * 888 * 2880 + 2880) * 2, BF16, "normalization")
    fused = op_work("_C::fused_add_rms_norm", [[888, 2880], [888, 2880], [2880], []], types, ["", "", "", "1e-05"])
    assert fused == Work(5 * 888 * 2880, (4 * 888 * 2880 + 2880) * 2, BF16, "normalization")
    aiter = op_work("aiter::add_rmsnorm", [[15360, 4096]] * 4 + [[4096], []], [BF16] * 5 + ["Scalar"], [])
    assert aiter == Work(5 * 15360 * 4096, (4 * 15360 * 4096 + 4096) * 2, BF16, "normalization")
    returning = op_work("aiter::rms_norm", [[8192, 2880], [2880], [], []], [BF16, BF16, "Scalar", "Scalar"], [])
    assert returning == Work(4 * 8192 * 2880, (2 * 8192 * 2880 + 2880) * 2, BF16, "normalization")


# --- elementwise, reductions, copies, gathers ---------------------------------------------------------------------


def test_unary_activations_count_their_named_constants():
    gelu = op_work("aten::gelu", [[1, 141, 2048], []], [BF16, ""], ["", ""])
    assert gelu == Work(5 * 141 * 2048, 2 * 141 * 2048 * 2, BF16, "elementwise")
    silu = op_work("aten::silu", [[16, 559, 2816]], [BF16], [""])
    assert silu == Work(4 * 16 * 559 * 2816, 2 * 16 * 559 * 2816 * 2, BF16, "elementwise")
    square = op_work("aten::pow", [[16, 559, 1024], []], [FP32, "Scalar"], ["", "2"])
    assert square == Work(16 * 559 * 1024, 2 * 16 * 559 * 1024 * 4, FP32, "elementwise")


def test_binary_ops_broadcast_and_count_an_alpha():
    types = [BF16, BF16, "Scalar"]
    add = op_work("aten::add", [[16, 559, 1024], [1024], []], types, ["", "", "1"])
    assert add == Work(16 * 559 * 1024, (2 * 16 * 559 * 1024 + 1024) * 2, BF16, "elementwise")
    scaled = op_work("aten::sub", [[16, 559, 1024], [1024], []], types, ["", "", "2"])
    assert scaled is not None and scaled.flops == 2 * 16 * 559 * 1024
    # a 0-dim double tensor scales a float vector: its 8 bytes read, the vector stays float
    mul = op_work("aten::mul", [[4096], []], [FP32, "double"], [])
    assert mul == Work(4096, 4096 * 4 + 8 + 4096 * 4, FP32, "elementwise")
    # a Python scalar is no tensor: nothing read for it
    div = op_work("aten::div_", [[32, 16, 1, 1], []], [FP32, "Scalar"], ["", "256"])
    assert div == Work(32 * 16, 2 * 32 * 16 * 4, FP32, "elementwise")


def test_comparisons_write_bools_and_where_reads_its_condition():
    eq = op_work("aten::eq", [[16, 559], []], ["long int", "Scalar"], ["", "1"])
    assert eq == Work(16 * 559, 16 * 559 * 8 + 16 * 559, "long int", "elementwise")
    where = op_work("aten::where", [[4096], [4096], []], ["bool", FP32, FP32], [])
    assert where == Work(4096, 4096 + 4096 * 4 + 4 + 4096 * 4, FP32, "elementwise")


def test_silu_and_mul_halves_its_input():
    work = op_work("sgl_kernel::silu_and_mul", [[15360, 12288], [15360, 24576]], [BF16, BF16], ["", ""])
    assert work == Work((4 + 1) * 15360 * 12288, (15360 * 12288 + 15360 * 24576) * 2, BF16, "elementwise")


def test_fp8_quantisation_reads_bf16_and_writes_a_byte_an_element():
    dims, types = [[888, 512], [888, 512], []], ["c10::Float8_e4m3fn", BF16, FP32]
    work = op_work("_C::static_scaled_fp8_quant", dims, types, ["", "", ""])
    assert work == Work(888 * 512, 888 * 512 * (1 + 2) + 4, BF16, "elementwise")


def test_reductions_read_everything_and_write_what_is_left():
    mean = op_work("aten::mean", [[16, 559, 1024], [], [], []], [FP32, "ScalarList", "Scalar", ""],
                   ["", "[-1]", "True", ""])
    assert mean == Work(16 * 559 * 1024, (16 * 559 * 1024 + 16 * 559) * 4, FP32, "reduction")
    total = op_work("aten::sum", [[6, 65536], [], [], []], ["int", "", "Scalar", ""], [])  # ints sum to a long
    assert total == Work(6 * 65536, 6 * 65536 * 4 + 8, "int", "reduction")
    argmax = op_work("aten::argmax", [[15, 151936], [], []], [FP32, "Scalar", "Scalar"], ["", "-1", "False"])
    assert argmax == Work(15 * 151936, 15 * 151936 * 4 + 15 * 8, FP32, "reduction")
    values_and_indices = op_work("aten::max", [[2, 2048, 1], [], []], [FP32, "Scalar", "Scalar"], ["", "1", "True"])
    assert values_and_indices == Work(2 * 2048, 2 * 2048 * 4 + 2 * (4 + 8), FP32, "reduction")


def test_copies_move_bytes_and_count_no_flops():
    cast = op_work("aten::copy_", [[16, 559, 1024], [16, 559, 1024], []], [BF16, FP32, "Scalar"], [])
    assert cast == Work(0, 16 * 559 * 1024 * (2 + 4), BF16, "copy")
    assert op_work("aten::clone", [[4096, 64], []], [FP32, "Scalar"], []) == Work(0, 2 * 4096 * 64 * 4, FP32, "copy")
    assert op_work("aten::fill_", [[4096], []], [FP32, "Scalar"], []) == Work(0, 4096 * 4, FP32, "copy")


def test_embedding_and_the_index_select_it_calls_agree_on_bert():
    embedding = op_work("aten::embedding", [[30522, 512], [1, 141], [], [], []],
                        [BF16, "long int", "Scalar", "Scalar", "Scalar"], ["", "", "0", "False", "False"])
    index_select = op_work("aten::index_select", [[30522, 512], [], [141]], [BF16, "Scalar", "long int"],
                           ["", "0", ""])
    assert embedding is not None and embedding == index_select
    assert embedding == Work(0, 141 * 8 + 2 * 141 * 512 * 2, BF16, "embedding")


# --- refusals: one test per kind of input that does not fit -------------------------------------------------------


def test_an_op_without_a_formula_is_refused():
    assert op_work("aten::nonzero", [[4096]], [FP32], []) is None
    # cat's TensorList records its shapes but not its element type
    assert op_work("aten::cat", [[[1, 559, 32], [1, 559, 32]], []], ["TensorList", "Scalar"], ["", "-1"]) is None


@pytest.mark.parametrize(
    "dims",
    [
        [[64, 4096]],  # missing dims
        [[64, 4096, 1], [4096, 2798]],  # wrong rank
        [[64, -4096], [-4096, 2798]],  # a negative
        [[64, True], [True, 2798]],  # a bool
        [[64, "4096"], ["4096", 2798]],  # a string where a number should be
        [[64, 4096], [4095, 2798]],  # mismatched inner dimensions
        "[[64, 4096], [4096, 2798]]",  # not decoded
    ],
)
def test_mm_refuses_inputs_that_do_not_fit(dims):
    assert op_work("aten::mm", dims, [FP32, FP32], []) is None


def test_unknown_types_and_unreadable_scalars_are_refused():
    assert op_work("aten::mm", [[64, 4096], [4096, 2798]], ["c10::complex<float>", FP32], []) is None
    concrete = ["", "", "", "[one, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"]
    conv = op_work("aten::convolution", [[32, 3, 16, 16], [16, 3, 3, 3], [], [], [], [], [], [], []], NO_BIAS_TYPES,
                   concrete)
    assert conv is None
    # an add whose alpha the trace did not record (no Concrete Inputs): its flops are unknown
    assert op_work("aten::add", [[4096], [4096], []], [FP32, FP32, "Scalar"], []) is None


def test_shapes_that_do_not_broadcast_or_would_grow_an_in_place_operand_are_refused():
    assert op_work("aten::mul", [[4096], [4095]], [FP32, FP32], []) is None
    assert op_work("aten::mul_", [[1], [4096]], [FP32, FP32], []) is None


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_every_formula_refuses_malformed_records_without_raising(name):
    malformed = [
        ([], [], []),  # nothing recorded
        ([[4, 8]] * 12, ["float"], []),  # fewer types than dims
        ([[4, 8], None, "x", [[1]], [-1]] * 3, [None, 3, "", "Scalar", "bool"] * 3, [None, 7, "[", "True"] * 4),
    ]
    assert all(op_work(name, dims, types, concrete) is None for dims, types, concrete in malformed)


def test_causal_attention_with_unequal_lengths_is_refused():
    dims = [[4, 4, 1, 64], [4, 4, 2049, 64], [4, 4, 2049, 64], [], [], [], []]
    types = [FP32] * 3 + ["Scalar", "Scalar", "", ""]
    assert op_work("aten::_scaled_dot_product_flash_attention_for_cpu", dims, types,
                   ["", "", "", "0.", "True", "", ""]) is None


# --- the real traces -----------------------------------------------------------------------------------------------


def _cpu_ops(name):
    with gzip.open(TRACES / name) as handle:
        events = json.load(handle)["traceEvents"]
    return [e for e in events if e.get("cat") == "cpu_op" and "Input Dims" in e.get("args", {})]


@pytest.mark.parametrize(
    "name", ["h100_bert_small_inference.json.gz", "h100_qwen1.5_0.5b_inference.json.gz",
             "mi300x_sglang_qwen3_8b_prefill_decode.json.gz"],
)
def test_every_modelled_op_of_a_real_trace_gets_work_or_a_refusal(name):
    modelled = [e for e in _cpu_ops(name) if e["name"] in MODELLED_OPS]
    works = [op_work(e["name"], e["args"]["Input Dims"], e["args"]["Input type"],
                     e["args"].get("Concrete Inputs", [])) for e in modelled]
    assert modelled and all(w is None or (w.flops >= 0 and w.bytes > 0) for w in works)
    assert sum(w is not None for w in works) > len(works) // 2


# An op and the modelled op it calls, whose counts the roofline needs to agree (it keeps the innermost).
CALLS = {
    "aten::linear": {"aten::addmm", "aten::mm"},
    "aten::matmul": {"aten::mm", "aten::bmm"},
    "aten::scaled_dot_product_attention": {"aten::_scaled_dot_product_flash_attention"},
    "aten::_scaled_dot_product_flash_attention": {"aten::_flash_attention_forward"},
    "aten::layer_norm": {"aten::native_layer_norm"},
    "aten::embedding": {"aten::index_select"},
}


def _flops(event):
    args = event["args"]
    work = op_work(event["name"], args["Input Dims"], args["Input type"], args.get("Concrete Inputs", []))
    return work and work.flops


@pytest.mark.parametrize(
    "name", ["h100_bert_small_inference.json.gz", "h100_qwen1.5_0.5b_inference.json.gz",
             "mi300x_bert_small_inference.json.gz"],
)
def test_an_op_and_the_op_it_calls_agree_on_every_call_of_a_real_trace(name):
    ops = _cpu_ops(name)
    pairs = [
        (outer, inner) for outer in ops if outer["name"] in CALLS for inner in ops
        if inner["name"] in CALLS[outer["name"]] and inner["tid"] == outer["tid"]
        and outer["ts"] <= inner["ts"] and inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"]
    ]
    assert len({outer["name"] for outer, _ in pairs}) >= 4
    assert all(_flops(outer) is not None and _flops(outer) == _flops(inner) for outer, inner in pairs)


def test_clone_moves_what_the_copy_it_calls_moves():
    clone = op_work("aten::clone", [[4096, 12, 64], []], [FP32, "Scalar"], [])
    copy = op_work("aten::copy_", [[4096, 12, 64], [4096, 12, 64], []], [FP32, FP32, "Scalar"], ["", "", "False"])
    assert clone is not None and clone == copy


def test_an_expanded_input_counts_its_distinct_elements_once():
    """gather's index on the SGLang trace is expand()ed: stride 0 along its 4096 columns, 15360 longs in memory."""
    dims = [[151936, 4096], [], [15360, 4096], [], [15360, 4096]]
    types = ["c10::BFloat16", "Scalar", "long int", "Scalar", "c10::BFloat16"]
    concrete = ["", "0", "", "False", ""]
    dense = op_work("aten::gather", dims, types, concrete)
    expanded = op_work("aten::gather", dims, types, concrete, [[4096, 1], [], [1, 0], [], [4096, 1]])
    assert dense is not None and expanded is not None
    assert dense.bytes - expanded.bytes == 15360 * 4096 * 8 - 15360 * 8


@pytest.mark.parametrize("dims", [[[10**200, 2], [2, 10**200]], [[2**62, 2**62], [2**62, 2**62]]])
def test_a_shape_no_tensor_can_have_is_refused(dims):
    """torch counts a tensor's elements in an int64; more would overflow the rates' floats."""
    assert op_work("aten::mm", dims, ["float", "float"], ["", ""]) is None
