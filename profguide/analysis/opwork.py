"""The work one op call does, from what the trace records of it: FLOPs (a multiply-add counts 2) and the least
bytes it must move (every input read once, every output written once, each at its element size), with the
compute type as the trace spells it and the op's family. Pure formulas over one op's ``Input Dims``,
``Input type``, ``Concrete Inputs`` and ``Input Strides`` (an ``expand``ed input, stride 0 along a dimension,
counts its distinct elements once); ``op_work`` returns None when the op has no formula or its inputs do not
fit the one it has (never a guess). Standard library only.

Families, what each counts, and where the formula comes from:

- GEMM (``mm``, ``addmm``, ``bmm``, ``baddbmm``, ``matmul``, ``linear``, ``_scaled_mm``, ``_grouped_mm``,
  ``_scaled_grouped_mm``, ``aiter::gemm_a16w16``, ``vllm::rocm_unquantized_gemm``): 2·M·N·K per product, plus
  one flop per output element for a bias (``addmm``, ``baddbmm``, ``linear`` with a bias), so that ``linear``
  and the ``addmm`` it calls agree. Bytes: both matrices, the bias at its recorded shape, the FP8 scales, the
  output. Signatures: PyTorch's ``native_functions.yaml``; aiter's and vLLM's op registrations.
- convolution (``conv1d/2d/3d``, ``convolution``, ``_convolution``, ``cudnn_convolution``,
  ``mkldnn_convolution``, ``miopen_convolution``, ``convolution_backward``): 2·N·C_out·prod(output spatial)·
  (C_in/groups)·prod(kernel), the output size from stride, padding and dilation (transposed convolution:
  the same product over the input's positions); a bias adds one flop per output element. Backward: the
  forward's count once for the input's gradient and once for the weight's, as ``output_mask`` asks, and one
  flop per grad-output element for the bias's gradient.
- attention (``scaled_dot_product_attention`` and the flash, efficient, cuDNN and CPU flash ops,
  ``_flash_attention_forward``, ``_efficient_attention_forward``, and the flash and efficient backward ops):
  two matrix products, 2·B·H_q·S_q·S_k·(D_qk + D_v), halved when causal (only for S_q = S_k: the backends
  align a causal mask differently otherwise, so that call is refused). Key and value may have fewer heads
  (GQA). Backward: 2.5× the forward, the five products of FlashAttention's backward pass (QKᵀ recomputed,
  dV, dP, dQ, dK) against the forward's two (Dao, FlashAttention-2, https://arxiv.org/abs/2307.08691; the
  same 4·B·H·S²·D and 2.5× in FlashAttention's own benchmark, ``benchmarks/benchmark_flash_attention.py`` in
  https://github.com/Dao-AILab/flash-attention).
  Bytes: q, k, v, a mask when given, and the output (backward: also dO, out, the log-sum-exp and dq, dk,
  dv); never the S×S matrix, which the fused kernels keep on chip.
- softmax (``softmax``, ``_softmax``, ``log_softmax``, ``_log_softmax`` and their backward ops): a constant
  per element (max, subtract, exp, sum, divide: 5; backward: 4). Bytes: input(s) and output.
- normalization (layer, RMS, batch and group norms, and vLLM's and aiter's RMS norm kernels): a constant per
  element for the statistics and the normalisation (layer/group/batch-in-training 6, batch in eval 2, RMS 3),
  one per element for each of weight and bias, one for a fused residual add. Bytes: input(s), the weight and
  bias vectors, the output(s); the per-row mean and rstd (a few bytes a row) are left out.
- elementwise (unary, binary with broadcasting, ``where``, comparisons, ``silu_and_mul``, vLLM's FP8
  quantisation): one flop per output element, a named constant for the activations that are several
  operations (GELU 5, SiLU 4, sigmoid 3), two for add/sub with an alpha other than 1; a transcendental function
  counts as one. Bytes: each tensor operand at its own size (a Python scalar none) and the output; an in-place
  op reads and writes its first operand.
- reduction (``sum``, ``mean``, ``amax``, ``amin``, ``max``, ``min``, ``argmax``, ``argmin``, ``cumsum``): one
  flop per input element. Bytes: input and output (indices as ``long int``).
- copy (``copy_``, ``clone``, ``fill_``, ``zero_``): no flops; the bytes read and written. ``aten::to`` and
  ``_to_copy`` call ``copy_``, which is the one modelled; ``cat`` is not: a TensorList's element type is not
  recorded.
- embedding (``embedding``, ``index_select``, ``gather``): no flops; the indices, the rows gathered and the
  output.

Where this differs from AMD TraceLens's perf model (``TraceLens/PerfModel/perf_model.py``), which agrees on
the rest (2·M·N·K plus M·N for a bias; attention's two products, halved when causal with S_q = S_k; one flop per input
element of a reduction):
- GEMM bias bytes: TraceLens assumes a bias of N elements; here the bias is read at its recorded shape.
- GEMM output type: TraceLens writes the output at the inputs' element size; here an FP8 GEMM's output is
  written at its ``out_dtype`` when the trace records it, since an FP8 GEMM rarely writes FP8.
- Attention backward bytes: TraceLens reads q, k, v, dO; here also out and the log-sum-exp, which
  FlashAttention's backward reads (rowsum(dO ∘ O)). Its few GQA reduction flops (summing dK, dV over the
  query heads sharing a key head) are left out here: about 1/(2·S_q) of the rest.
- Unary activations: TraceLens counts one flop per element for every unary op; here GELU, SiLU and sigmoid
  count the operations of their formula, so that their arithmetic intensity is not understated.
"""

import math
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from profguide.jsontypes import JSON


class Work(NamedTuple):
    """One op call's FLOPs, least bytes moved, compute type (as the trace writes it) and family."""

    flops: int
    bytes: int
    dtype: str
    family: str


# Bytes per element for each type name the trace writes (old traces write "long", new ones "long int"). A
# Float4_e2m1fn_x2 element packs two FP4 values in one byte, and shapes count the packed elements.
ELEMENT_BYTES: dict[str, int] = {
    "bool": 1,
    "unsigned char": 1,
    "signed char": 1,
    "c10::Float8_e4m3fn": 1,
    "c10::Float8_e5m2": 1,
    "c10::Float8_e4m3fnuz": 1,
    "c10::Float8_e5m2fnuz": 1,
    "c10::Float8_e8m0fnu": 1,
    "c10::Float4_e2m1fn_x2": 1,
    "short int": 2,
    "c10::Half": 2,
    "c10::BFloat16": 2,
    "int": 4,
    "float": 4,
    "long int": 8,
    "long": 8,
    "double": 8,
}
FLOATING_TYPES = frozenset(name for name in ELEMENT_BYTES if name in ("float", "double") or name.startswith("c10::"))

# PyTorch's ScalarType codes (c10/core/ScalarType.h) for the output types an op takes as an argument.
SCALAR_TYPE_CODES: dict[str, str] = {
    "0": "unsigned char",
    "1": "signed char",
    "2": "short int",
    "3": "int",
    "4": "long int",
    "5": "c10::Half",
    "6": "float",
    "7": "double",
    "11": "bool",
    "15": "c10::BFloat16",
    "23": "c10::Float8_e5m2",
    "24": "c10::Float8_e4m3fn",
    "25": "c10::Float8_e5m2fnuz",
    "26": "c10::Float8_e4m3fnuz",
}

# Flops per element, each the count of arithmetic operations in the usual formula (a transcendental counts 1).
GELU_FLOPS = 5  # x/sqrt(2), erf, +1, x0.5, xx (the tanh form is counted the same)
SILU_FLOPS = 4  # -x, exp, +1, x / (...)
SIGMOID_FLOPS = 3  # -x, exp, 1 / (1 + ...)
SOFTMAX_FLOPS = 5  # row max, subtract it, exp, row sum, divide
SOFTMAX_BACKWARD_FLOPS = 4  # product, row sum, subtract, product
NORM_STATISTICS_FLOPS = 6  # mean (add), variance (subtract, square, add), normalise (subtract, multiply)
RMS_NORM_FLOPS = 3  # square, add, multiply by the reciprocal root
NORMALISE_FLOPS = 2  # subtract a known mean, multiply by a known rstd (batch norm in eval)
# FlashAttention's backward runs five matrix products to the forward's two: 2.5 times its flops.
ATTENTION_BACKWARD_PRODUCTS, ATTENTION_FORWARD_PRODUCTS = 5, 2

LONG = "long int"

Shape = list[int]


MOST_ELEMENTS = 2**63  # a tensor's element count is an int64 in torch: a larger one is no real tensor
MOST_WORK = 2**128  # beyond any call's FLOPs or bytes from real shapes, and within a float's range


class Args:
    """One op call's recorded inputs, read position by position; every reader returns None for what does not
    fit (missing, wrong kind, negative)."""

    def __init__(self, dims: list[JSON], types: list[JSON], concrete: list[JSON], strides: Sequence[JSON] = ()) -> None:
        self.dims = dims
        self.types = types
        self.concrete = concrete
        self.strides = strides

    def shape(self, index: int) -> Shape | None:
        """The tensor's shape at ``index`` (a 0-dim tensor's is [])."""
        if index >= len(self.dims) or index >= len(self.types):
            return None
        dims = self.dims[index]
        if not isinstance(dims, list) or self.dtype(index) is None:
            return None
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in dims):
            return None
        shape = [n for n in dims if isinstance(n, int)]
        return shape if math.prod(shape) < MOST_ELEMENTS else None

    def matrix(self, index: int, rank: int) -> Shape | None:
        """The tensor's shape at ``index`` when it has exactly ``rank`` dims."""
        shape = self.shape(index)
        return shape if shape is not None and len(shape) == rank else None

    def kind(self, index: int) -> str | None:
        """The type the trace writes at ``index`` ("float", "Scalar", "" for None, ...)."""
        name = self.types[index] if index < len(self.types) else None
        return name if isinstance(name, str) else None

    def dtype(self, index: int) -> str | None:
        """The element type at ``index`` when it is one with a known size."""
        name = self.kind(index)
        return name if name in ELEMENT_BYTES else None

    def tensor_bytes(self, index: int) -> int | None:
        """The bytes of the tensor at ``index``: its distinct elements, so that a dimension with stride 0 (an
        ``expand``ed input, broadcast in memory) counts once, where the trace records the strides."""
        shape, dtype = self.shape(index), self.dtype(index)
        if shape is None or dtype is None:
            return None
        strides = self.strides[index] if index < len(self.strides) else None
        if isinstance(strides, list) and len(strides) == len(shape):
            shape = [size for size, stride in zip(shape, strides, strict=True) if stride != 0]
        return math.prod(shape) * ELEMENT_BYTES[dtype]

    def absent(self, index: int) -> bool:
        """Whether the optional argument at ``index`` was not given (None records as [] with type "")."""
        if index >= len(self.dims) or index >= len(self.types):
            return True
        return self.dims[index] == [] and self.kind(index) == ""

    def optional_bytes(self, index: int) -> int | None:
        """The bytes of an optional tensor: 0 when absent, None when present and unreadable."""
        return 0 if self.absent(index) else self.tensor_bytes(index)

    def text(self, index: int) -> str | None:
        """The recorded value of the scalar at ``index``; None when the trace does not give it."""
        value = self.concrete[index] if index < len(self.concrete) else None
        return value if isinstance(value, str) and value != "" else None

    def flag(self, index: int) -> bool | None:
        """A boolean scalar."""
        return {"True": True, "False": False}.get(self.text(index) or "")

    def integer(self, index: int) -> int | None:
        """An integer scalar."""
        value = self.text(index)
        return int(value) if value is not None and re.fullmatch(r"-?\d+", value) else None

    def number(self, index: int) -> float | None:
        """A numeric scalar ("0.125", "1", "0.")."""
        value = self.text(index)
        if value is None or not re.fullmatch(r"-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?", value):
            return None
        return float(value)

    def integers(self, index: int) -> list[int] | None:
        """An integer list scalar ("[1, 1]")."""
        value = self.text(index)
        if value is None or not re.fullmatch(r"\[\s*(-?\d+\s*(,\s*-?\d+\s*)*)?\]", value):
            return None
        return [int(part) for part in re.findall(r"-?\d+", value)]

    def flags(self, index: int) -> list[bool] | None:
        """A boolean list scalar ("[False, True, True]")."""
        value = self.text(index)
        if value is None or not re.fullmatch(r"\[\s*(True|False)(\s*,\s*(True|False))*\s*\]", value):
            return None
        return [part == "True" for part in re.findall(r"True|False", value)]


def broadcast(shapes: list[Shape]) -> Shape | None:
    """The shape the operands broadcast to, or None when they do not."""
    rank = max((len(shape) for shape in shapes), default=0)
    result: Shape = []
    for axis in range(rank):
        sizes = {shape[axis - rank + len(shape)] for shape in shapes if axis - rank + len(shape) >= 0} - {1}
        if len(sizes) > 1:
            return None
        result.append(sizes.pop() if sizes else 1)
    return result


def _sum_bytes(*parts: int | None) -> int | None:
    """The total of byte counts, None when any is unknown."""
    known = [part for part in parts if part is not None]
    return sum(known) if len(known) == len(parts) else None


def _work(flops: int, moved: int | None, dtype: str, family: str) -> Work | None:
    return None if moved is None else Work(flops, moved, dtype, family)


# --- GEMM -----------------------------------------------------------------------------------------------------


def _gemm(
    args: Args,
    operands: tuple[int, int],
    mnk: tuple[int, int, int],
    batch: int,
    bias_at: int | None,
    extra: list[int | None],
    out_dtype: str | None,
) -> Work | None:
    """``batch`` products [M, K] by [K, N] of the tensors at ``operands``: 2·M·N·K each, plus one flop per
    output element for the optional bias at ``bias_at``; bytes both operands, the bias, the ``extra`` tensors
    (scales, offsets) and the output, written at ``out_dtype`` when given."""
    m, n, k = mnk
    dtype = args.dtype(operands[0])
    if dtype is None or args.dtype(operands[1]) is None:
        return None
    outputs = batch * m * n
    has_bias = bias_at is not None and not args.absent(bias_at)
    bias_bytes = args.optional_bytes(bias_at) if bias_at is not None else 0
    reads = [args.tensor_bytes(operands[0]), args.tensor_bytes(operands[1]), bias_bytes, *extra]
    moved = _sum_bytes(*reads, outputs * ELEMENT_BYTES[out_dtype or dtype])
    return _work(2 * outputs * k + (outputs if has_bias else 0), moved, dtype, "GEMM")


def _mm(args: Args) -> Work | None:
    """mm(self [M, K], mat2 [K, N])."""
    a, b = args.matrix(0, 2), args.matrix(1, 2)
    if a is None or b is None or a[1] != b[0]:
        return None
    return _gemm(args, (0, 1), (a[0], b[1], a[1]), 1, None, [], None)


def _addmm(args: Args) -> Work | None:
    """addmm(self, mat1 [M, K], mat2 [K, N], beta, alpha): self, the bias, broadcasts to [M, N]; beta and alpha
    scale it and the product, folded into the bias's add."""
    a, b, bias = args.matrix(1, 2), args.matrix(2, 2), args.shape(0)
    if a is None or b is None or bias is None or a[1] != b[0] or broadcast([bias, [a[0], b[1]]]) != [a[0], b[1]]:
        return None
    return _gemm(args, (1, 2), (a[0], b[1], a[1]), 1, 0, [], None)


def _bmm(args: Args) -> Work | None:
    """bmm(self [B, M, K], mat2 [B, K, N])."""
    a, b = args.matrix(0, 3), args.matrix(1, 3)
    if a is None or b is None or a[0] != b[0] or a[2] != b[1]:
        return None
    return _gemm(args, (0, 1), (a[1], b[2], a[2]), a[0], None, [], None)


def _baddbmm(args: Args) -> Work | None:
    """baddbmm(self, batch1 [B, M, K], batch2 [B, K, N], beta, alpha): self broadcasts to [B, M, N]."""
    a, b, bias = args.matrix(1, 3), args.matrix(2, 3), args.shape(0)
    if a is None or b is None or bias is None or a[0] != b[0] or a[2] != b[1]:
        return None
    if broadcast([bias, [a[0], a[1], b[2]]]) != [a[0], a[1], b[2]]:
        return None
    return _gemm(args, (1, 2), (a[1], b[2], a[2]), a[0], 0, [], None)


def _matmul(args: Args) -> Work | None:
    """torch.matmul: a vector operand gains a unit dim, the leading dims broadcast as a batch."""
    a, b = args.shape(0), args.shape(1)
    if a is None or b is None or not a or not b:
        return None
    a2 = [1, *a] if len(a) == 1 else a
    b2 = [*b, 1] if len(b) == 1 else b
    batch = broadcast([a2[:-2], b2[:-2]])
    if batch is None or a2[-1] != b2[-2]:
        return None
    return _gemm(args, (0, 1), (a2[-2], b2[-1], a2[-1]), math.prod(batch), None, [], None)


def _linear(args: Args) -> Work | None:
    """linear(input [..., K], weight [N, K], bias [N]): the weight is read transposed."""
    x, weight = args.shape(0), args.matrix(1, 2)
    if x is None or weight is None or not x or x[-1] != weight[1]:
        return None
    if not args.absent(2) and args.shape(2) != [weight[0]]:
        return None
    return _gemm(args, (0, 1), (math.prod(x[:-1]), weight[0], weight[1]), 1, 2, [], None)


def _out_dtype(args: Args, index: int) -> tuple[bool, str | None]:
    """An optional ScalarType argument: (readable, the type or None for the default). One recorded as given
    but without its value (no Concrete Inputs) is unreadable."""
    code = args.text(index)
    if code is None:
        return args.absent(index), None
    return code in SCALAR_TYPE_CODES, SCALAR_TYPE_CODES.get(code)


def _scaled_mm(args: Args) -> Work | None:
    """_scaled_mm(self, mat2, scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum)."""
    a, b = args.matrix(0, 2), args.matrix(1, 2)
    readable, out = _out_dtype(args, 6)
    if a is None or b is None or a[1] != b[0] or not readable:
        return None
    scales = [args.tensor_bytes(2), args.tensor_bytes(3), args.optional_bytes(5)]
    return _gemm(args, (0, 1), (a[0], b[1], a[1]), 1, 4, scales, out)


def _grouped(args: Args, extra: list[int | None], out: str | None) -> Work | None:
    """A grouped product: [total_M, K] by [G, K, N] (groups split by offsets) or [G, M, K] by [G, K, N]; the
    other layouts are refused."""
    a, b = args.shape(0), args.matrix(1, 3)
    if a is None or b is None or len(a) not in (2, 3) or a[-1] != b[1] or (len(a) == 3 and a[0] != b[0]):
        return None
    batch = 1 if len(a) == 2 else a[0]
    return _gemm(args, (0, 1), (a[-2], b[2], a[-1]), batch, None, extra, out)


def _grouped_mm(args: Args) -> Work | None:
    """_grouped_mm(self, mat2, offs, bias, out_dtype)."""
    readable, out = _out_dtype(args, 4)
    if not readable or not args.absent(3):
        return None
    return _grouped(args, [args.optional_bytes(2)], out)


def _scaled_grouped_mm(args: Args) -> Work | None:
    """_scaled_grouped_mm(self, mat2, scale_a, scale_b, offs, bias, scale_result, out_dtype, use_fast_accum)."""
    readable, out = _out_dtype(args, 7)
    if not readable or not args.absent(5):
        return None
    extra = [args.tensor_bytes(2), args.tensor_bytes(3), args.optional_bytes(4), args.optional_bytes(6)]
    return _grouped(args, extra, out)


def _gemm_a16w16(args: Args) -> Work | None:
    """aiter::gemm_a16w16(A [M, K], B [N, K], bias, out_dtype, ...): B is stored transposed."""
    a, b = args.matrix(0, 2), args.matrix(1, 2)
    readable, out = _out_dtype(args, 3)
    if a is None or b is None or a[1] != b[1] or not readable:
        return None
    return _gemm(args, (0, 1), (a[0], b[0], a[1]), 1, 2, [], out)


# --- convolution ------------------------------------------------------------------------------------------------


class ConvSettings(NamedTuple):
    """A convolution's stride, padding, dilation (one value or one per spatial dim), groups and transposition."""

    stride: list[int]
    padding: list[int]
    dilation: list[int]
    groups: int
    transposed: bool
    output_padding: list[int]


def _conv_settings(
    args: Args, stride: int, padding: int, dilation: int, groups: int, transposed: int | None, output_padding: int
) -> ConvSettings | None:
    """The settings at their positions in one signature (``transposed`` None where the op has none)."""
    strides, paddings, dilations, group_count = (
        args.integers(stride),
        args.integers(padding),
        args.integers(dilation),
        args.integer(groups),
    )
    is_transposed = False if transposed is None else args.flag(transposed)
    out_padding = args.integers(output_padding) if is_transposed else []
    if strides is None or paddings is None or dilations is None or group_count is None or is_transposed is None:
        return None
    if out_padding is None:
        return None
    return ConvSettings(strides, paddings, dilations, group_count, is_transposed, out_padding)


def _conv_output(input_shape: Shape, weight: Shape, settings: ConvSettings) -> Shape | None:
    """The output's spatial sizes, each setting broadcast from one value to every spatial dim."""
    spatial = len(input_shape) - 2
    per_dim = [settings.stride, settings.padding, settings.dilation]
    if settings.transposed:
        per_dim.append(settings.output_padding)
    if any(len(values) not in (1, spatial) for values in per_dim):
        return None
    stride, padding, dilation, *rest = [values * spatial if len(values) == 1 else values for values in per_dim]
    sizes = []
    for axis in range(spatial):
        size, kernel = input_shape[2 + axis], weight[2 + axis]
        span = dilation[axis] * (kernel - 1)
        if settings.transposed:
            out = (size - 1) * stride[axis] - 2 * padding[axis] + span + rest[0][axis] + 1
        elif stride[axis] > 0:
            out = (size + 2 * padding[axis] - span - 1) // stride[axis] + 1
        else:
            return None
        if out <= 0:
            return None
        sizes.append(out)
    return sizes


def _conv_forward_flops(input_shape: Shape, weight: Shape, out_spatial: Shape, settings: ConvSettings) -> int | None:
    """2 · N · C_out · prod(out spatial) · C_in/groups · prod(kernel); transposed: the same over the input's
    positions with the weight [C_in, C_out/groups, k...]."""
    batch, channels_in = input_shape[0], input_shape[1]
    kernel = math.prod(weight[2:])
    if settings.groups <= 0:
        return None
    if settings.transposed:
        if weight[0] != channels_in:
            return None
        return 2 * batch * math.prod(input_shape[2:]) * channels_in * weight[1] * kernel
    if weight[1] * settings.groups != channels_in or weight[0] % settings.groups:
        return None
    return 2 * batch * weight[0] * math.prod(out_spatial) * weight[1] * kernel


def _conv_channels_out(weight: Shape, settings: ConvSettings) -> int:
    return weight[1] * settings.groups if settings.transposed else weight[0]


def _convolution(args: Args, settings: ConvSettings | None, bias: int | None) -> Work | None:
    """A forward convolution of input 0 by weight 1, with an optional bias at ``bias``."""
    x, weight = args.shape(0), args.shape(1)
    dtype = args.dtype(0)
    if settings is None or x is None or weight is None or dtype is None or len(x) < 3 or len(weight) != len(x):
        return None
    out_spatial = _conv_output(x, weight, settings)
    flops = None if out_spatial is None else _conv_forward_flops(x, weight, out_spatial, settings)
    if out_spatial is None or flops is None:
        return None
    outputs = x[0] * _conv_channels_out(weight, settings) * math.prod(out_spatial)
    bias_bytes = 0 if bias is None else args.optional_bytes(bias)
    bias_flops = 0 if bias is None or args.absent(bias) else outputs
    moved = _sum_bytes(args.tensor_bytes(0), args.tensor_bytes(1), bias_bytes, outputs * ELEMENT_BYTES[dtype])
    return _work(flops + bias_flops, moved, dtype, "convolution")


def _conv_nd(args: Args) -> Work | None:
    """conv1d/2d/3d(input, weight, bias, stride, padding, dilation, groups)."""
    return _convolution(args, _conv_settings(args, 3, 4, 5, 6, None, 0), 2)


def _convolution_op(args: Args) -> Work | None:
    """convolution/_convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
    groups, ...)."""
    return _convolution(args, _conv_settings(args, 3, 4, 5, 8, 6, 7), 2)


def _cudnn_convolution(args: Args) -> Work | None:
    """cudnn_convolution(self, weight, padding, stride, dilation, groups, ...): no bias."""
    return _convolution(args, _conv_settings(args, 3, 2, 4, 5, None, 0), None)


def _backend_convolution(args: Args) -> Work | None:
    """mkldnn_convolution/miopen_convolution(self, weight, bias, padding, stride, dilation, groups, ...)."""
    return _convolution(args, _conv_settings(args, 4, 3, 5, 6, None, 0), 2)


def _convolution_backward(args: Args) -> Work | None:
    """convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
    output_padding, groups, output_mask): each gradient asked costs a forward's products (the bias's, one flop
    per grad-output element); transposed ones are refused."""
    grad, x, weight, mask = args.shape(0), args.shape(1), args.shape(2), args.flags(10)
    settings = _conv_settings(args, 4, 5, 6, 9, 7, 8)
    dtype = args.dtype(0)
    if grad is None or x is None or weight is None or mask is None or len(mask) != 3 or dtype is None:
        return None
    if settings is None or settings.transposed or len(x) < 3 or len(weight) != len(x) or len(grad) != len(x):
        return None
    if _conv_output(x, weight, settings) != grad[2:] or grad[:2] != [x[0], weight[0]]:
        return None
    forward = _conv_forward_flops(x, weight, grad[2:], settings)
    if forward is None:
        return None
    flops = forward * (mask[0] + mask[1]) + (math.prod(grad) if mask[2] else 0)
    size = ELEMENT_BYTES[dtype]
    reads = [args.tensor_bytes(0), args.tensor_bytes(2) if mask[0] else 0, args.tensor_bytes(1) if mask[1] else 0]
    writes = [math.prod(x) * mask[0], math.prod(weight) * mask[1], weight[0] * mask[2]]
    return _work(flops, _sum_bytes(*reads, sum(writes) * size), dtype, "convolution")


# --- attention --------------------------------------------------------------------------------------------------


class Layout(NamedTuple):
    """Where batch, sequence and heads sit in an attention op's q, k, v."""

    sequence: int
    heads: int


BHSD = Layout(sequence=2, heads=1)
BSHD = Layout(sequence=1, heads=2)


def _attention_flops(q: Shape, k: Shape, v: Shape, layout: Layout, causal: bool) -> int | None:
    """2 · B · H_q · S_q · S_k · (D_qk + D_v), halved when causal; None when the shapes do not fit."""
    if len(q) != 4 or len(k) != 4 or len(v) != 4:
        return None
    batch, heads, seq_q, head_dim = q[0], q[layout.heads], q[layout.sequence], q[3]
    kv_heads, seq_k = k[layout.heads], k[layout.sequence]
    if k[0] != batch or v[0] != batch or k[3] != head_dim or v[layout.sequence] != seq_k:
        return None
    if kv_heads == 0 or heads % kv_heads or v[layout.heads] != kv_heads:
        return None
    if causal and seq_q != seq_k:
        return None
    flops = 2 * batch * heads * seq_q * seq_k * (head_dim + v[3])
    return flops // 2 if causal else flops


def _attention(args: Args, layout: Layout, causal: bool | None, mask_at: int | None) -> Work | None:
    """A forward attention of q, k, v at 0, 1, 2, causal or not (None: not recorded), with an optional mask at
    ``mask_at``."""
    q, k, v, dtype = args.shape(0), args.shape(1), args.shape(2), args.dtype(0)
    if q is None or k is None or v is None or dtype is None or causal is None:
        return None
    flops = _attention_flops(q, k, v, layout, causal)
    if flops is None:
        return None
    output = math.prod(q[:3]) * v[3] * ELEMENT_BYTES[dtype]
    mask = 0 if mask_at is None else args.optional_bytes(mask_at)
    moved = _sum_bytes(args.tensor_bytes(0), args.tensor_bytes(1), args.tensor_bytes(2), mask, output)
    return _work(flops, moved, dtype, "attention")


def _sdpa(args: Args) -> Work | None:
    """scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)."""
    return _attention(args, BHSD, args.flag(5), 3)


def _sdpa_flash(args: Args) -> Work | None:
    """_scaled_dot_product_flash_attention(query, key, value, dropout_p, is_causal, return_debug_mask, scale)."""
    return _attention(args, BHSD, args.flag(4), None)


def _sdpa_flash_cpu(args: Args) -> Work | None:
    """_scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p, is_causal, attn_mask, scale)."""
    return _attention(args, BHSD, args.flag(4), 5)


def _sdpa_efficient(args: Args) -> Work | None:
    """_scaled_dot_product_efficient_attention/_cudnn_attention(query, key, value, attn_bias,
    compute_log_sumexp, dropout_p, is_causal, ...)."""
    return _attention(args, BHSD, args.flag(6), 3)


def _flash_attention_forward(args: Args) -> Work | None:
    """_flash_attention_forward(query, key, value, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal,
    return_debug_mask, scale, window_size_left, window_size_right, seqused_k, alibi_slopes), [B, S, H, D]; the
    variable-length (cum_seq) and sliding-window calls are refused."""
    if not args.absent(3) or not all(args.text(i) is None for i in (11, 12)) or not args.absent(13):
        return None
    return _attention(args, BSHD, args.flag(8), None)


def _efficient_attention_forward(args: Args) -> Work | None:
    """_efficient_attention_forward(query, key, value, bias, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
    max_seqlen_k, dropout_p, custom_mask_type, ...), [B, S, H, D]; custom_mask_type 1 or 2 is causal."""
    mask_type = args.integer(9)
    if mask_type not in (0, 1, 2) or not args.absent(4):
        return None
    return _attention(args, BSHD, mask_type != 0, 3)


class BackwardPositions(NamedTuple):
    """Where an attention backward op takes dO, q, k, v, out, the log-sum-exp and is_causal."""

    grad: int
    query: int
    key: int
    value: int
    out: int
    logsumexp: int
    causal: int


FLASH_BACKWARD = BackwardPositions(0, 1, 2, 3, 4, 5, 11)
EFFICIENT_BACKWARD = BackwardPositions(0, 1, 2, 3, 5, 6, 11)


def _attention_backward(args: Args, layout: Layout, at: BackwardPositions) -> Work | None:
    """A backward attention: 2.5× the forward's flops; reads dO, q, k, v, out and the log-sum-exp, writes dq,
    dk, dv."""
    q, k, v, dtype = args.shape(at.query), args.shape(at.key), args.shape(at.value), args.dtype(at.query)
    causal = args.flag(at.causal)
    if q is None or k is None or v is None or dtype is None or causal is None:
        return None
    forward = _attention_flops(q, k, v, layout, causal)
    grad = args.shape(at.grad)
    if forward is None or grad is None or grad != args.shape(at.out) or grad != [*q[:3], v[3]]:
        return None
    reads = [args.tensor_bytes(i) for i in (at.grad, at.query, at.key, at.value, at.out, at.logsumexp)]
    writes = [args.tensor_bytes(i) for i in (at.query, at.key, at.value)]
    return _work(
        forward * ATTENTION_BACKWARD_PRODUCTS // ATTENTION_FORWARD_PRODUCTS,
        _sum_bytes(*reads, *writes),
        dtype,
        "attention",
    )


def _sdpa_flash_backward(args: Args) -> Work | None:
    """_scaled_dot_product_flash_attention_backward(grad_out, query, key, value, out, logsumexp, cum_seq_q,
    cum_seq_k, max_q, max_k, dropout_p, is_causal, philox_seed, philox_offset, scale)."""
    return _attention_backward(args, BHSD, FLASH_BACKWARD)


def _flash_attention_backward(args: Args) -> Work | None:
    """_flash_attention_backward(grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k, max_q,
    max_k, dropout_p, is_causal, ...), [B, S, H, D]; variable-length calls refused."""
    if not args.absent(6):
        return None
    return _attention_backward(args, BSHD, FLASH_BACKWARD)


def _sdpa_efficient_backward(args: Args) -> Work | None:
    """_scaled_dot_product_efficient_attention_backward(grad_out_, query, key, value, attn_bias, out, logsumexp,
    philox_seed, philox_offset, dropout_p, grad_input_mask, is_causal, scale); a call with a bias is refused."""
    if not args.absent(4):
        return None
    return _attention_backward(args, BHSD, EFFICIENT_BACKWARD)


# --- softmax ----------------------------------------------------------------------------------------------------


def _per_element(
    args: Args, flops_per_element: int, family: str, reads: list[int], out_dtype: str | None = None
) -> Work | None:
    """An op whose output has its first input's shape: flops per output element, bytes the inputs at ``reads``
    and the output."""
    shape, dtype = args.shape(0), args.dtype(0)
    if shape is None or dtype is None or any(args.shape(i) != shape for i in reads):
        return None
    elements = math.prod(shape)
    output = elements * ELEMENT_BYTES[out_dtype or dtype]
    return _work(
        elements * flops_per_element, _sum_bytes(*(args.tensor_bytes(i) for i in reads), output), dtype, family
    )


def _softmax(args: Args) -> Work | None:
    """_softmax/_log_softmax(self, dim, half_to_float): half_to_float writes float."""
    half_to_float = args.flag(2)
    if half_to_float is None and args.dtype(0) != "float":
        return None
    return _per_element(args, SOFTMAX_FLOPS, "softmax", [0], "float" if half_to_float else None)


def _softmax_public(args: Args) -> Work | None:
    """softmax/log_softmax(self, dim, dtype)."""
    readable, out = _out_dtype(args, 2)
    if not readable:
        return None
    return _per_element(args, SOFTMAX_FLOPS, "softmax", [0], out)


def _softmax_backward(args: Args) -> Work | None:
    """_softmax_backward_data/_log_softmax_backward_data(grad_output, output, dim, input_dtype)."""
    return _per_element(args, SOFTMAX_BACKWARD_FLOPS, "softmax", [0, 1])


# --- normalization ----------------------------------------------------------------------------------------------


def _norm(args: Args, per_element: int, vectors: list[int], channel_axis: int | None) -> Work | None:
    """A norm of input 0 into an output of its shape, with the optional vectors (weight, bias, running
    statistics) at ``vectors``: each sized like the normalised tail (``channel_axis`` None) or the channel
    dim. Weight and bias (the first two of ``vectors``) add one flop per element each."""
    shape = args.shape(0)
    if shape is None or not shape:
        return None
    present = [i for i in vectors if not args.absent(i)]
    for i in present:
        vector = args.shape(i)
        if vector is None:
            return None
        expected = shape[-len(vector) :] if channel_axis is None else [shape[channel_axis]] if len(shape) > 1 else []
        if not vector or vector != expected:
            return None
    affine = sum(1 for i in vectors[:2] if i in present)
    work = _per_element(args, per_element + affine, "normalization", [0])
    vector_bytes = _sum_bytes(*(args.tensor_bytes(i) for i in present))
    return work and _work(work.flops, _sum_bytes(work.bytes, vector_bytes), work.dtype, work.family)


def _layer_norm(args: Args) -> Work | None:
    """native_layer_norm/layer_norm(input, normalized_shape, weight, bias, eps, ...)."""
    return _norm(args, NORM_STATISTICS_FLOPS, [2, 3], None)


def _rms_norm(args: Args) -> Work | None:
    """rms_norm/_fused_rms_norm(input, normalized_shape, weight, eps)."""
    return _norm(args, RMS_NORM_FLOPS, [2], None)


def _batch_norm(args: Args) -> Work | None:
    """native_batch_norm/batch_norm/cudnn_batch_norm(input, weight, bias, running_mean, running_var, training,
    ...): in training the statistics are computed, in eval only applied."""
    training = args.flag(5)
    if training is None:
        return None
    return _norm(args, NORM_STATISTICS_FLOPS if training else NORMALISE_FLOPS, [1, 2, 3, 4], 1)


def _group_norm(args: Args) -> Work | None:
    """native_group_norm(input, weight, bias, N, C, HxW, group, eps)."""
    return _norm(args, NORM_STATISTICS_FLOPS, [1, 2], 1)


def _group_norm_public(args: Args) -> Work | None:
    """group_norm(input, num_groups, weight, bias, eps, cudnn_enabled)."""
    return _norm(args, NORM_STATISTICS_FLOPS, [2, 3], 1)


def _vendor_rms_norm(args: Args, rows: list[int], weight: int, flops_per_element: int, returns: bool) -> Work | None:
    """A vendor RMS norm whose row tensors (inputs, residuals and the outputs it is handed) sit at ``rows``, all
    one shape, each read or written once, with a 1-D weight; ``returns`` when it also allocates its output."""
    shape, dtype, vector = args.shape(rows[0]), args.dtype(rows[0]), args.shape(weight)
    if shape is None or dtype is None or len(shape) < 1 or vector != shape[-1:]:
        return None
    if any(args.shape(i) != shape for i in rows):
        return None
    elements = math.prod(shape)
    output = elements * ELEMENT_BYTES[dtype] if returns else 0
    moved = _sum_bytes(*(args.tensor_bytes(i) for i in rows), args.tensor_bytes(weight), output)
    return _work(elements * flops_per_element, moved, dtype, "normalization")


def _vllm_rms_norm(args: Args) -> Work | None:
    """_C::rms_norm(result, input, weight, epsilon)."""
    return _vendor_rms_norm(args, [0, 1], 2, RMS_NORM_FLOPS + 1, False)


def _vllm_fused_add_rms_norm(args: Args) -> Work | None:
    """_C::fused_add_rms_norm(input, residual, weight, epsilon): both updated in place, so each is read and
    written."""
    work = _vendor_rms_norm(args, [0, 1], 2, RMS_NORM_FLOPS + 2, False)
    rows = args.tensor_bytes(0)
    if work is None or rows is None:
        return None
    return work._replace(bytes=work.bytes + 2 * rows)


def _aiter_rmsnorm(args: Args) -> Work | None:
    """aiter::rmsnorm(out, input, weight, epsilon)."""
    return _vendor_rms_norm(args, [0, 1], 2, RMS_NORM_FLOPS + 1, False)


def _aiter_add_rmsnorm(args: Args) -> Work | None:
    """aiter::add_rmsnorm / rmsnorm2d_fwd_with_add_ck(out, input, residual_in, residual_out, weight, epsilon,
    ...)."""
    return _vendor_rms_norm(args, [0, 1, 2, 3], 4, RMS_NORM_FLOPS + 2, False)


def _aiter_rms_norm(args: Args) -> Work | None:
    """aiter::rms_norm(input, weight, epsilon, ...): returns its output."""
    return _vendor_rms_norm(args, [0], 1, RMS_NORM_FLOPS + 1, True)


# --- elementwise ------------------------------------------------------------------------------------------------


def _unary(flops_per_element: int) -> Callable[[Args], Work | None]:
    """A unary op of tensor 0 (its other inputs scalars): the output has its shape and type."""

    def formula(args: Args) -> Work | None:
        if any(dims != [] for dims in args.dims[1:]):
            return None
        return _per_element(args, flops_per_element, "elementwise", [0])

    return formula


def _pow(args: Args) -> Work | None:
    """pow(self, exponent) with a scalar exponent: one flop per element."""
    if len(args.dims) != 2 or args.kind(1) != "Scalar":
        return None
    return _per_element(args, 1, "elementwise", [0])


def _elementwise(
    args: Args, operands: list[int], flops_per_element: int, in_place: bool, out_dtype: str | None, untyped: int = 0
) -> Work | None:
    """An op over the operands at ``operands`` (a Python scalar or a 0-dim tensor broadcasts) writing their
    broadcast shape. The operands with dims, past the first ``untyped`` (a condition), share one type, the
    op's; an in-place op writes its first operand, so the broadcast must keep its shape."""
    tensors = [i for i in operands if args.kind(i) != "Scalar"]
    shapes = [args.shape(i) for i in tensors]
    known = [shape for shape in shapes if shape is not None]
    if not tensors or len(known) != len(shapes) or (in_place and tensors[0] != operands[0]):
        return None
    shape = broadcast(known)
    typed = [i for i in tensors if i not in operands[:untyped]]
    sized = {args.dtype(i) for i in typed if args.shape(i)} or {args.dtype(i) for i in typed}
    dtype = sized.pop() if len(sized) == 1 else None
    if shape is None or dtype is None or (in_place and shape != args.shape(operands[0])):
        return None
    elements = math.prod(shape)
    output = elements * ELEMENT_BYTES[out_dtype or dtype]
    moved = _sum_bytes(*(args.tensor_bytes(i) for i in tensors), output)
    return _work(elements * flops_per_element, moved, dtype, "elementwise")


def _binary(in_place: bool, has_alpha: bool, floating_only: bool) -> Callable[[Args], Work | None]:
    """add/sub (with alpha), mul, div and the rest over inputs 0 and 1: one flop per output element, two for
    an alpha other than 1 (an alpha not recorded is refused); div of integers, which writes floats, refused."""

    def formula(args: Args) -> Work | None:
        alpha = args.number(2) if has_alpha and len(args.dims) > 2 else 1.0
        if alpha is None or (floating_only and args.dtype(0) not in FLOATING_TYPES):
            return None
        return _elementwise(args, [0, 1], 1 if alpha == 1.0 else 2, in_place, None)

    return formula


def _comparison(args: Args) -> Work | None:
    """eq/ne/lt/le/gt/ge(self, other): one flop per element, a bool output."""
    return _elementwise(args, [0, 1], 1, False, "bool")


def _where(args: Args) -> Work | None:
    """where(condition, self, other): a select per element, typed as self and other."""
    if args.dtype(0) != "bool":
        return None
    return _elementwise(args, [0, 1, 2], 1, False, None, untyped=1)


def _silu_and_mul(args: Args) -> Work | None:
    """silu_and_mul(out [..., N], input [..., 2N]): SiLU of the first half times the second."""
    out, x, dtype = args.shape(0), args.shape(1), args.dtype(0)
    if out is None or x is None or dtype is None or not out or x != [*out[:-1], 2 * out[-1]]:
        return None
    moved = _sum_bytes(args.tensor_bytes(0), args.tensor_bytes(1))
    return _work(math.prod(out) * (SILU_FLOPS + 1), moved, dtype, "elementwise")


def _static_fp8_quant(args: Args) -> Work | None:
    """vLLM's _C::static_scaled_fp8_quant(out, input, scale): each element scaled once (the clamp and the
    conversion uncounted) from the input's type into FP8."""
    out, x, source = args.shape(0), args.shape(1), args.dtype(1)
    if out is None or x is None or source is None or out != x or args.shape(2) not in ([], [1]):
        return None
    moved = _sum_bytes(args.tensor_bytes(0), args.tensor_bytes(1), args.tensor_bytes(2))
    return _work(math.prod(x), moved, source, "elementwise")


# --- reductions ---------------------------------------------------------------------------------------------------


def _reduction(args: Args, dims: list[int] | None, out_dtype: str | None, indices: bool) -> Work | None:
    """Reduce tensor 0 over ``dims`` (None or []: all of it): one flop per input element, the output (and,
    for max/min over a dim, a long index per output) written once. keepdim leaves the count unchanged."""
    shape, dtype = args.shape(0), args.dtype(0)
    if shape is None or dtype is None:
        return None
    rank = max(len(shape), 1)
    if dims and any(not -rank <= d < rank for d in dims):
        return None
    axes = {d % rank for d in dims or range(rank)}
    outputs = math.prod(size for axis, size in enumerate(shape) if axis not in axes)
    written = outputs * ELEMENT_BYTES[out_dtype or dtype] + (outputs * ELEMENT_BYTES[LONG] if indices else 0)
    return _work(math.prod(shape), _sum_bytes(args.tensor_bytes(0), written), dtype, "reduction")


def _sum_type(args: Args) -> str | None:
    """sum and cumsum promote integers and bools to long int."""
    return None if args.dtype(0) in FLOATING_TYPES else LONG


def _sum_mean(args: Args) -> Work | None:
    """sum/mean(self, dtype) over everything, or (self, dim, keepdim, dtype) with dim None for everything."""
    if len(args.dims) <= 2:
        readable, out = _out_dtype(args, 1)
        return _reduction(args, None, out or _sum_type(args), False) if readable else None
    dims = None if args.absent(1) else args.integers(1)
    readable, out = _out_dtype(args, 3)
    if (dims is None and not args.absent(1)) or not readable:
        return None
    return _reduction(args, dims, out or _sum_type(args), False)


def _amax(args: Args) -> Work | None:
    """amax/amin(self, dim, keepdim)."""
    dims = args.integers(1)
    return None if dims is None else _reduction(args, dims, None, False)


def _max(args: Args) -> Work | None:
    """max/min(self) over everything, or (self, dim, keepdim) giving values and indices; max(self, other) is
    refused."""
    if len(args.dims) == 1:
        return _reduction(args, None, None, False)
    dim = args.integer(1)
    if len(args.dims) != 3 or dim is None:
        return None
    return _reduction(args, [dim], None, True)


def _argmax(args: Args) -> Work | None:
    """argmax/argmin(self, dim, keepdim): dim None reduces everything."""
    dim = args.integer(1)
    if dim is None and not args.absent(1):
        return None
    return _reduction(args, None if dim is None else [dim], LONG, False)


def _cumsum(args: Args) -> Work | None:
    """cumsum(self, dim, dtype): one flop per element, the output of the input's shape."""
    readable, out = _out_dtype(args, 2)
    if not readable:
        return None
    return _per_element(args, 1, "reduction", [0], out or _sum_type(args))


# --- copies and gathers -------------------------------------------------------------------------------------------


def _copy(args: Args) -> Work | None:
    """copy_(self, src, non_blocking): src read (broadcast to self), self written."""
    destination, source, dtype = args.shape(0), args.shape(1), args.dtype(0)
    if destination is None or source is None or dtype is None or broadcast([destination, source]) != destination:
        return None
    return _work(0, _sum_bytes(args.tensor_bytes(0), args.tensor_bytes(1)), dtype, "copy")


def _clone(args: Args) -> Work | None:
    """clone(self, memory_format): read once, written once."""
    return _per_element(args, 0, "copy", [0])


def _fill(args: Args) -> Work | None:
    """fill_(self, value)/zero_(self): written once."""
    if any(dims != [] for dims in args.dims[1:]):
        return None
    written, dtype = args.tensor_bytes(0), args.dtype(0)
    return None if dtype is None else _work(0, written, dtype, "copy")


def _gathered(args: Args, table: int, index: int, out: Shape) -> Work | None:
    """Rows of ``table`` gathered by the indices at ``index`` into an output of shape ``out``: the indices
    read, every gathered element read once and written once."""
    dtype = args.dtype(table)
    if dtype is None:
        return None
    elements = math.prod(out) * ELEMENT_BYTES[dtype]
    return _work(0, _sum_bytes(args.tensor_bytes(index), 2 * elements), dtype, "embedding")


def _embedding(args: Args) -> Work | None:
    """embedding(weight [V, D], indices, padding_idx, scale_grad_by_freq, sparse)."""
    weight, indices = args.matrix(0, 2), args.shape(1)
    if weight is None or indices is None or args.dtype(1) not in ("long int", "long", "int"):
        return None
    return _gathered(args, 0, 1, [*indices, weight[1]])


def _index_select(args: Args) -> Work | None:
    """index_select(self, dim, index [n]): dim's size becomes n."""
    table, dim, index = args.shape(0), args.integer(1), args.matrix(2, 1)
    if table is None or dim is None or index is None or not -len(table) <= dim < len(table):
        return None
    out = list(table)
    out[dim] = index[0]
    return _gathered(args, 0, 2, out)


def _gather(args: Args) -> Work | None:
    """gather(self, dim, index, sparse_grad[, out]): the output has the index's shape."""
    table, index = args.shape(0), args.shape(2)
    if table is None or index is None or len(index) != len(table) or args.dtype(2) not in ("long int", "long"):
        return None
    return _gathered(args, 0, 2, index)


# --- the table ----------------------------------------------------------------------------------------------------

UNARY_FLOPS: dict[str, int] = {
    "relu": 1,
    "gelu": GELU_FLOPS,
    "silu": SILU_FLOPS,
    "sigmoid": SIGMOID_FLOPS,
    "tanh": 1,
    "exp": 1,
    "log": 1,
    "log2": 1,
    "neg": 1,
    "abs": 1,
    "rsqrt": 1,
    "sqrt": 1,
    "square": 1,
    "reciprocal": 1,
    "cos": 1,
    "sin": 1,
    "erf": 1,
    "clamp": 1,
    "clamp_min": 1,
}
BINARY_WITH_ALPHA = ("add", "sub")
BINARY = ("mul", "div", "maximum", "minimum")
COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")


def _elementwise_table() -> dict[str, Callable[[Args], Work | None]]:
    table: dict[str, Callable[[Args], Work | None]] = {}
    for name, flops in UNARY_FLOPS.items():
        table[f"aten::{name}"] = table[f"aten::{name}_"] = _unary(flops)
    for name in BINARY_WITH_ALPHA + BINARY:
        table[f"aten::{name}"] = _binary(False, name in BINARY_WITH_ALPHA, name == "div")
        if name not in ("maximum", "minimum"):
            table[f"aten::{name}_"] = _binary(True, name in BINARY_WITH_ALPHA, name == "div")
    for name in COMPARISONS:
        table[f"aten::{name}"] = _comparison
    return table


FORMULAS: dict[str, Callable[[Args], Work | None]] = {
    "aten::mm": _mm,
    "aten::addmm": _addmm,
    "aten::bmm": _bmm,
    "aten::baddbmm": _baddbmm,
    "aten::matmul": _matmul,
    "aten::linear": _linear,
    "aten::_scaled_mm": _scaled_mm,
    "aten::_grouped_mm": _grouped_mm,
    "aten::_scaled_grouped_mm": _scaled_grouped_mm,
    "aiter::gemm_a16w16": _gemm_a16w16,
    "vllm::rocm_unquantized_gemm": _linear,
    "aten::conv1d": _conv_nd,
    "aten::conv2d": _conv_nd,
    "aten::conv3d": _conv_nd,
    "aten::convolution": _convolution_op,
    "aten::_convolution": _convolution_op,
    "aten::cudnn_convolution": _cudnn_convolution,
    "aten::mkldnn_convolution": _backend_convolution,
    "aten::miopen_convolution": _backend_convolution,
    "aten::convolution_backward": _convolution_backward,
    "aten::scaled_dot_product_attention": _sdpa,
    "aten::_scaled_dot_product_flash_attention": _sdpa_flash,
    "aten::_scaled_dot_product_flash_attention_for_cpu": _sdpa_flash_cpu,
    "aten::_scaled_dot_product_efficient_attention": _sdpa_efficient,
    "aten::_scaled_dot_product_cudnn_attention": _sdpa_efficient,
    "aten::_flash_attention_forward": _flash_attention_forward,
    "aten::_efficient_attention_forward": _efficient_attention_forward,
    "aten::_scaled_dot_product_flash_attention_backward": _sdpa_flash_backward,
    "aten::_flash_attention_backward": _flash_attention_backward,
    "aten::_scaled_dot_product_efficient_attention_backward": _sdpa_efficient_backward,
    "aten::_softmax": _softmax,
    "aten::_log_softmax": _softmax,
    "aten::softmax": _softmax_public,
    "aten::log_softmax": _softmax_public,
    "aten::_softmax_backward_data": _softmax_backward,
    "aten::_log_softmax_backward_data": _softmax_backward,
    "aten::native_layer_norm": _layer_norm,
    "aten::layer_norm": _layer_norm,
    "aten::rms_norm": _rms_norm,
    "aten::_fused_rms_norm": _rms_norm,
    "aten::native_batch_norm": _batch_norm,
    "aten::batch_norm": _batch_norm,
    "aten::cudnn_batch_norm": _batch_norm,
    "aten::native_group_norm": _group_norm,
    "aten::group_norm": _group_norm_public,
    "_C::rms_norm": _vllm_rms_norm,
    "_C::fused_add_rms_norm": _vllm_fused_add_rms_norm,
    "aiter::rmsnorm": _aiter_rmsnorm,
    "aiter::add_rmsnorm": _aiter_add_rmsnorm,
    "aiter::rmsnorm2d_fwd_with_add_ck": _aiter_add_rmsnorm,
    "aiter::rms_norm": _aiter_rms_norm,
    **_elementwise_table(),
    "aten::pow": _pow,
    "aten::where": _where,
    "sgl_kernel::silu_and_mul": _silu_and_mul,
    "_C::silu_and_mul": _silu_and_mul,
    "_C::static_scaled_fp8_quant": _static_fp8_quant,
    "aten::sum": _sum_mean,
    "aten::mean": _sum_mean,
    "aten::amax": _amax,
    "aten::amin": _amax,
    "aten::max": _max,
    "aten::min": _max,
    "aten::argmax": _argmax,
    "aten::argmin": _argmax,
    "aten::cumsum": _cumsum,
    "aten::copy_": _copy,
    "aten::clone": _clone,
    "aten::fill_": _fill,
    "aten::zero_": _fill,
    "aten::embedding": _embedding,
    "aten::index_select": _index_select,
    "aten::gather": _gather,
}


def op_work(name: str, dims: list[JSON], types: list[JSON], concrete: list[JSON],
            strides: Sequence[JSON] = ()) -> Work | None:
    """The FLOPs, least bytes moved, compute type and family of one call of op ``name`` from its recorded
    ``Input Dims``, ``Input type``, ``Concrete Inputs`` and ``Input Strides`` ([] when the trace lacks them);
    None when the op has no formula, its inputs do not fit it, or the lists do not have one entry per input."""
    formula = FORMULAS.get(name)
    if formula is None or not isinstance(dims, list) or not isinstance(types, list) or len(types) != len(dims):
        return None
    if not isinstance(concrete, list) or (concrete and len(concrete) != len(dims)):
        return None
    work = formula(Args(dims, types, concrete, strides))
    return work if work is None or max(work.flops, work.bytes) < MOST_WORK else None
