"""The names torch, its communication backends and its compilers give to events, each defined here once.

Standard library only: the loader, the analysis, the figures and the site all read these.
"""

import re

# The region ``prof.step()`` marks, with its number (``match``: the name starts with it).
STEP = re.compile(r"ProfilerStep#(\d+)$")


class MarkedPattern:
    """A regular expression over lower-cased names, tried only on the names that hold one of its literal
    marks (every match holds one): Python's ``re`` tries each alternative at each position, while ``in``
    scans a long kernel name at C speed, and most names hold no mark."""

    __slots__ = ("marks", "pattern")

    def __init__(self, marks: tuple[str, ...], pattern: str | None = None) -> None:
        self.marks = marks
        self.pattern = None if pattern is None else re.compile(pattern)

    def search(self, name: str) -> bool:
        """Whether ``name`` (in any case) matches."""
        return self.search_lowered(name.lower())

    def search_lowered(self, lowered: str) -> bool:
        """Whether the lower-cased ``lowered`` matches."""
        if not any(mark in lowered for mark in self.marks):
            return False
        return self.pattern is None or self.pattern.search(lowered) is not None


# A kernel, op or thread of a communication library (``search``): NCCL, RCCL (AMD's NCCL), gloo; the all-to-all
# dispatch and combine of mixture-of-experts (DeepEP's ``deep_ep::intranode::``, ``internode::`` and
# ``internode_ll::`` kernels) and what they run on (NVSHMEM, rocSHMEM); MSCCL and MSCCL++; UCC (bounded:
# "ucc" is inside "success"); custom all-reduce kernels (vLLM's and aiter's ``cross_device_reduce_1stage``,
# TensorRT-LLM's ``oneShotAllReduceKernel`` and ``allreduce_fusion_kernel…``, FlashInfer's ``mnnvl`` ones,
# PyTorch's symmetric-memory ``one_shot_all_reduce_kernel`` and ``multimem_…``). Not "mpi", which is inside
# "compile", and MPI moves GPU data with copies, not kernels of its own; not MoE permutations (``moe_permute``),
# which move tokens within a GPU.
COMMUNICATION = MarkedPattern(
    ("ccl", "gloo", "deep_ep", "node::", "node_ll::", "shmem", "ucc", "cross_device_reduce", "allreduce",
     "all_reduce", "mnnvl", "symm", "multimem"),
    r"nccl|rccl|gloo|deep_ep|(?<![a-z])(?:intra|inter)node(?:_ll)?::|nvshmem|rocshmem|msccl|(?<![a-z])ucc(?![a-z])"
    r"|cross_device_reduce|custom_?all_?reduce|(?:one|two)_?shot_?all_?reduce|all_?reduce_?fusion|mnnvl"
    r"|symm_mem|symmetric_memory|multimem_")

# A communication backend's own op for one collective (``nccl:all_reduce``, ``gloo:all_reduce``): group 1 is
# the backend, group 2 the collective.
BACKEND_OP = re.compile(r"^(gloo|nccl|rccl|mpi|ucc|xccl):(\w+)$")

# The matrix-multiply ops torch records, each with the position of its first matrix among its inputs (addmm
# and baddbmm take the matrix they add first).
GEMM_FIRST_MATRIX = {"aten::mm": 0, "aten::addmm": 1, "aten::bmm": 0, "aten::baddbmm": 1, "aten::_scaled_mm": 0}
GEMM_OPS = frozenset(GEMM_FIRST_MATRIX)

# The ops with a FLOPs-and-bytes formula in ``analysis/opwork.py`` (a test keeps the two equal): the loader
# decodes these ops' ``Input Dims``, ``Input type`` and ``Concrete Inputs``.
MODELLED_OPS = frozenset(
    (
        "_C::fused_add_rms_norm",
        "_C::rms_norm",
        "_C::silu_and_mul",
        "aiter::add_rmsnorm",
        "aiter::gemm_a16w16",
        "aiter::rms_norm",
        "aiter::rmsnorm",
        "aiter::rmsnorm2d_fwd_with_add_ck",
        "aten::_convolution",
        "aten::_efficient_attention_forward",
        "aten::_flash_attention_backward",
        "aten::_flash_attention_forward",
        "aten::_fused_rms_norm",
        "aten::_grouped_mm",
        "aten::_log_softmax",
        "aten::_log_softmax_backward_data",
        "aten::_scaled_dot_product_cudnn_attention",
        "aten::_scaled_dot_product_efficient_attention",
        "aten::_scaled_dot_product_efficient_attention_backward",
        "aten::_scaled_dot_product_flash_attention",
        "aten::_scaled_dot_product_flash_attention_backward",
        "aten::_scaled_dot_product_flash_attention_for_cpu",
        "aten::_scaled_grouped_mm",
        "aten::_scaled_mm",
        "aten::_softmax",
        "aten::_softmax_backward_data",
        "aten::abs",
        "aten::abs_",
        "aten::add",
        "aten::add_",
        "aten::addmm",
        "aten::amax",
        "aten::amin",
        "aten::argmax",
        "aten::argmin",
        "aten::baddbmm",
        "aten::batch_norm",
        "aten::bmm",
        "aten::clamp",
        "aten::clamp_",
        "aten::clamp_min",
        "aten::clamp_min_",
        "aten::clone",
        "aten::conv1d",
        "aten::conv2d",
        "aten::conv3d",
        "aten::convolution",
        "aten::convolution_backward",
        "aten::copy_",
        "aten::cos",
        "aten::cos_",
        "aten::cudnn_batch_norm",
        "aten::cudnn_convolution",
        "aten::cumsum",
        "aten::div",
        "aten::div_",
        "aten::embedding",
        "aten::eq",
        "aten::erf",
        "aten::erf_",
        "aten::exp",
        "aten::exp_",
        "aten::fill_",
        "aten::gather",
        "aten::ge",
        "aten::gelu",
        "aten::gelu_",
        "aten::group_norm",
        "aten::gt",
        "aten::index_select",
        "aten::layer_norm",
        "aten::le",
        "aten::linear",
        "aten::log",
        "aten::log2",
        "aten::log2_",
        "aten::log_",
        "aten::log_softmax",
        "aten::lt",
        "aten::matmul",
        "aten::max",
        "aten::maximum",
        "aten::mean",
        "aten::min",
        "aten::minimum",
        "aten::miopen_convolution",
        "aten::mkldnn_convolution",
        "aten::mm",
        "aten::mul",
        "aten::mul_",
        "aten::native_batch_norm",
        "aten::native_group_norm",
        "aten::native_layer_norm",
        "aten::ne",
        "aten::neg",
        "aten::neg_",
        "aten::pow",
        "aten::reciprocal",
        "aten::reciprocal_",
        "aten::relu",
        "aten::relu_",
        "aten::rms_norm",
        "aten::rsqrt",
        "aten::rsqrt_",
        "aten::scaled_dot_product_attention",
        "aten::sigmoid",
        "aten::sigmoid_",
        "aten::silu",
        "aten::silu_",
        "aten::sin",
        "aten::sin_",
        "aten::softmax",
        "aten::sqrt",
        "aten::sqrt_",
        "aten::square",
        "aten::square_",
        "aten::sub",
        "aten::sub_",
        "aten::sum",
        "aten::tanh",
        "aten::tanh_",
        "aten::where",
        "aten::zero_",
        "sgl_kernel::silu_and_mul",
        "vllm::rocm_unquantized_gemm",
    )
)

# torch.compile's names: each call of a compiled frame is a ``Torch-Compiled Region: F/R`` op; it calls its
# graph, ``## Call CompiledFxGraph <hash> ##`` under Inductor (inside ``CompiledFunction`` with autograd).
COMPILED_REGION = "Torch-Compiled Region"
COMPILED_GRAPH = ("## Call CompiledFxGraph", "CompiledFunction")

# Runtime and driver calls that initialise a device or a library, on CUDA and ROCm: the context, the
# allocator's pools, modules, streams, cuDNN and cuBLAS handles and their autotuning.
DEVICE_SETUP_CALL = re.compile(
    r"^(cuda|hip)(Free|Malloc|MallocHost|HostAlloc|HostRegister|DeviceGetStreamPriorityRange|GetDeviceCount"
    r"|GetDeviceProperties|SetDevice|StreamCreate|StreamCreateWithFlags|StreamCreateWithPriority|FuncGetAttributes"
    r"|DeviceSetLimit|InitDevice|ExtMallocWithFlags)\w*$"
    r"|^cu(Init|DevicePrimaryCtxRetain|CtxCreate|ModuleLoad|LibraryLoad|ModuleGetFunction|LibraryGetKernel)\w*$"
    r"|^hipModule(Load|GetFunction)\w*$|^(cudnn|miopen|cublas|cublasLt|hipblas|hipblasLt|rocblas)(Create|Find)\w*$")
LAUNCH_CALL = re.compile(r"^(cuda|hip)LaunchKernel\w*$|^cuLaunchKernel\w*$|^hipModuleLaunchKernel$|^hipExtLaunch\w*$")
