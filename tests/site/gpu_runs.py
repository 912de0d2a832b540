"""The GPU runs the guide predicts, written out event by event, for a GPU refresh simulated without a GPU.

A refresh on a GPU runner replaces every CPU stand-in of a recording meant for CUDA with a GPU run. The tests
put these runs where the GPU's would go (``write_rank``, in place of the recorder's processes): each recording
whose page predicts what a GPU run will show has its ``Prediction``, a run built to show exactly that, with the
arithmetic of each prediction's answer in comments; every other recording meant for CUDA gets a plain run of
one step (``plain_events``). Every claim about CUDA runs is then measured on a GPU trace whose answer is known,
so a misspelt kernel or op name in one fails now, not on the first GPU runner.

None of this is a recording: it is never written under docs/, and its device says it is a test's.
"""

import gzip
import json
from dataclasses import dataclass

from profguide.analysis.memory import CATEGORIES
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu

DEVICE = "a GPU run predicted by the tests"


@dataclass(frozen=True)
class Prediction:
    """A recording's predicted GPU run: the events of its trace (``by_rank``: each rank's, for several ranks),
    what its snippet returns (``results.json``), and the value each claim about CUDA runs must measure on it, by
    the claim's words."""

    events: tuple
    answers: dict
    by_rank: tuple = ()
    results: dict | None = None
    # export_memory_timeline's [times, sizes] (for a recording with memory_timeline), or None for a flat one.
    memory_timeline: list | None = None


def plain_events():
    """One profiled step: an op that launches one kernel, and the sync the profiler makes when it stops."""
    return (cpu("ProfilerStep#1", 0, 100, kind="annotation"), cpu("aten::mm", 10, 20, external_id=1),
            cpu("cudaLaunchKernel", 20, 5, kind="runtime", correlation=1),
            gpu("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_stage3_warpsize2x2x1_tensor16x8x8",
                30, 30, correlation=1, external_id=1),
            cpu("cudaDeviceSynchronize", 100, 10, kind="runtime"))


# Kernel names as CUDA libraries and ATen name them on an H100 or H200 (the decoder in
# profguide.analysis.families reads each as the family the comment gives).
GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel"
GEMM_FP32 = "sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4"
ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int)"  # elementwise
GELU = "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>(int)"  # elementwise
MUL = "void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float>>(int)"  # elementwise
COPY = "void at::native::elementwise_kernel<128, 4, at::native::direct_copy_kernel_cuda>(int)"  # copy
# A contiguous copy of one type on one GPU: cudaMemcpyAsync, not a kernel (ATen's copy_device_to_device).
MEMCPY_DTOD = "Memcpy DtoD (Device -> Device)"
FILL = "void at::native::vectorized_elementwise_kernel<4, at::native::masked_fill_kernel>(int)"  # elementwise
SOFTMAX = "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>(float*)"
NORM = "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float>>>(int)"
FLASH = ("void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
         "cutlass::bfloat16_t>, false, true, false, false, false, true, false>(pytorch_flash::Flash_fwd_params)")
TRIL = "void at::native::triu_tril_kernel<bool, int, false, 4, true>(at::cuda::detail::TensorInfo<bool, int>)"
WHERE = "void at::native::elementwise_kernel<128, 4, at::native::where_kernel_impl>(int)"  # elementwise
ISNEGINF = "void at::native::vectorized_elementwise_kernel<4, at::native::isneginf_kernel_impl>(int)"
ALL = "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<bool, at::native::and_kernel_cuda>>(int)"
ALL_REDUCE = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"  # communication, NCCL
SUM = "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, " \
      "at::native::sum_functor<float, float, float>>>>(int)"  # reduction


def ops(calls, start, ids):
    """Ops one after another on one host thread from ``start``, each a (name, kernels, ops under it) where the
    kernels are (name, µs) that the op launches itself (a ``Memcpy …`` a memory copy): each launch call takes
    3 µs, 1 µs apart, and its kernel starts 5 µs after its launch, or once the GPU is free (one stream, first
    come first served). ``ids`` gives each op its External id and each launch its correlation. Returns (events,
    the host's end, the GPU's end)."""
    events, now, gpu_free = [], start, start

    def lay(name, kernels, inner):
        nonlocal now, gpu_free
        began, own = now, next(ids)
        now += 1
        for kernel, us in kernels:
            launch = next(ids)
            # Triton's own launcher and cuDNN's generated kernels call the driver; ATen's and the other libraries'
            # kernels go through the runtime.
            call, kind = (("cuLaunchKernelEx", "driver") if kernel.startswith(("triton_", "cudnn_generated"))
                          else ("cudaMemcpyAsync", "runtime") if kernel.startswith("Memcpy")
                          else ("cudaLaunchKernel", "runtime"))
            events.append(cpu(call, now, 3, kind=kind, correlation=launch, external_id=own))
            gpu_free = max(now + 5, gpu_free)
            events.append(gpu(kernel, gpu_free, us, kind="memcpy" if kernel.startswith("Memcpy") else "kernel",
                              correlation=launch, external_id=own))
            gpu_free += us
            now += 4
        for child in inner:
            lay(*child)
        now += 1
        events.append(cpu(name, began, now - began, external_id=own))

    for call in calls:
        lay(*call)
    return events, now, gpu_free


def op(name, *kernels, under=()):
    """An op for ``ops``: its name, the kernels it launches itself, and the ops under it."""
    return name, kernels, under


def region(name, calls, start, ids):
    """A ``record_function`` region around ``ops(calls)``: (events, the host's end, the GPU's end)."""
    events, end, gpu_end = ops(calls, start + 1, ids)
    return [cpu(name, start, end + 1 - start, kind="annotation"), *events], end + 1, gpu_end


def steps(per_step, count, ids):
    """``count`` ProfilerSteps, each holding what ``per_step(start, ids)`` lays out from its start (events, the
    host's end, the GPU's end), the next step starting once both host and GPU are done; then the profiler's sync."""
    events, now = [], 0
    for number in range(count):
        inside, host_end, gpu_end = per_step(now, ids)
        end = max(host_end, gpu_end) + 1
        events += [cpu(f"ProfilerStep#{number + 1}", now, end - now, kind="annotation"), *inside]
        now = end
    return (*events, cpu("cudaDeviceSynchronize", now, 5, kind="runtime"))


def counter():
    return iter(range(1, 1 << 30))


def in_region(name, calls):
    """A per_step for ``steps``: one region of ``calls``."""
    return lambda start, ids: region(name, calls, start, ids)


def linear(kernel):
    """``nn.Linear`` on a 2-D input, eager: aten::linear, the transposed weight's view, and addmm's GEMM."""
    return op("aten::linear", under=(op("aten::t", under=(op("aten::transpose", under=(op("aten::as_strided"),)),)),
                                      op("aten::addmm", (kernel, 40))))


def compiled_graph(*calls):
    """A compiled frame: Dynamo's region and Inductor's graph call around ``calls``."""
    return op("Torch-Compiled Region: 0/0", under=(op("## Call CompiledFxGraph f00d ##", under=calls),))


def mlp_eager():
    # Each step: three GEMMs (the gate, the up and the down projection), then GELU and the multiply by the gate:
    # five kernels, all launched inside the step.
    return steps(in_region("GeGLU MLP", [op("aten::linear", under=(op("aten::mm", (GEMM, 50)),)),
                                          op("aten::linear", under=(op("aten::mm", (GEMM, 50)),)),
                                          op("aten::gelu", (GELU, 8)), op("aten::mul", (MUL, 8)),
                                          op("aten::linear", under=(op("aten::mm", (GEMM, 50)),))]), 5, counter())


def mlp_compiled():
    # The same GEMMs, and one Triton kernel for GELU and the multiply: four kernels a step, launched by the
    # driver (Triton's launcher) for the fused one.
    fused = op("triton_poi_fused_gelu_mul_0", ("triton_poi_fused_gelu_mul_0", 10))
    return steps(in_region("GeGLU MLP", [compiled_graph(op("aten::mm", (GEMM, 50)), op("aten::mm", (GEMM, 50)),
                                                        fused, op("aten::mm", (GEMM, 50)))]), 5, counter())


def attention_by_hand(fill, copy):
    # Scores, scaled, the causal mask, softmax, the weighted sum; out of place, masked_fill clones the scores
    # (allocating the copy and copying into it), then fills the clone in place, as the CPU run's tree has it. The
    # scores and their clone are contiguous and of one type: the copy is a Memcpy DtoD, not a kernel.
    filled = op("aten::masked_fill_", (FILL, 10))
    if copy:
        clone = op("aten::clone", under=(op("aten::empty_like", under=(op("aten::empty"),)),
                                         op("aten::copy_", (MEMCPY_DTOD, 12))))
        filled = op("aten::masked_fill", under=(clone, filled))
    return steps(in_region("attention", [op("aten::matmul", under=(op("aten::bmm", (GEMM, 30)),)),
                                         op("aten::mul", (MUL, 5)), filled, op("aten::softmax", (SOFTMAX, 9)),
                                         op("aten::matmul", under=(op("aten::bmm", (GEMM, 30)),))]), 3, counter())


def sdpa_math():
    # The math backend on bfloat16 inputs, as its CPU run's tree has it, each op that computes a kernel: the query,
    # key and value up to float32 (3 copies), the query and key scaled (2), the causal mask built (a fill, tril, the
    # -inf scalar's fill, where: 4), the scores (an FP32 GEMM) and the mask added (2), the safe softmax (softmax,
    # isneginf, all, the zero's fill, where: 5), the weights' bfloat16 copy, the second FP32 GEMM and the output's
    # copy (3): 19 kernels a call, two of them GEMMs, both FP32.
    def copy():
        return op("aten::to", under=(op("aten::_to_copy", under=(op("aten::copy_", (COPY, 5)),)),))

    def scalar():
        return op("aten::scalar_tensor", under=(op("aten::fill_", (FILL, 2)),))

    math = op("aten::_scaled_dot_product_attention_math", under=(
        copy(), copy(), copy(), op("aten::mul", (MUL, 4)), op("aten::mul", (MUL, 4)),
        op("aten::ones", under=(op("aten::fill_", (FILL, 2)),)), op("aten::tril", (TRIL, 3)), scalar(),
        op("aten::where", (WHERE, 3)), op("aten::matmul", under=(op("aten::bmm", (GEMM_FP32, 30)),)),
        op("aten::add_", (ADD, 8)),
        op("aten::_safe_softmax", under=(op("aten::softmax", under=(op("aten::_softmax", (SOFTMAX, 9)),)),
                                         op("aten::isneginf", (ISNEGINF, 6)), op("aten::all", (ALL, 6)), scalar(),
                                         op("aten::where", (WHERE, 6)))),
        copy(), op("aten::matmul", under=(op("aten::bmm", (GEMM_FP32, 30)),)), copy()))
    return steps(in_region("attention", [op("aten::scaled_dot_product_attention", under=(math,))]), 3, counter())


def sdpa(op_name, kernel):
    """SDPA with one backend pinned: its op, the backend's op under it, and one kernel."""
    return steps(in_region("attention", [op("aten::scaled_dot_product_attention", under=(
        op(op_name, (kernel, 80)),))]), 3, counter())


def block(compiled):
    if compiled:
        # Inductor fuses each norm with its neighbours: per step one graph of three Triton kernels and two GEMMs
        # for the forward, and the optimizer's two foreach kernels: seven kernels.
        forward = compiled_graph(op("triton_red_fused_add_mean_mul_rsqrt_0", ("triton_red_fused_add_mean_mul_0", 10)),
                                 op("aten::mm", (GEMM, 60)), op("triton_per_fused_1", ("triton_per_fused_1", 20)),
                                 op("aten::mm", (GEMM, 160)), op("triton_red_fused_2", ("triton_red_fused_2", 10)))
        return steps(lambda start, ids: combine(start, ids, [("", [forward]), ("optimizer", [
            op("aten::_foreach_add_", (ADD, 20)), op("aten::_foreach_mul_", (MUL, 20))])]), 4, counter())
    # Per step: two norms of two kernels each (10 µs a kernel), attention's three kernels (30 + 40 + 30 µs), the
    # MLP's three (100 + 50 + 100 µs) and the optimizer's two (20 µs each): twelve kernels, 430 µs, of which the
    # MLP's 250 µs are the most.
    norm = [op("aten::mean", (NORM, 10)), op("aten::mul", (MUL, 10))]
    parts = [("norm", norm), ("attention", [op("aten::mm", (GEMM, 30)), op("aten::_softmax", (SOFTMAX, 40)),
                                            op("aten::mm", (GEMM, 30))]),
             ("norm", norm), ("MLP", [op("aten::mm", (GEMM, 100)), op("aten::gelu", (GELU, 50)),
                                      op("aten::mm", (GEMM, 100))]),
             ("optimizer", [op("aten::_foreach_add_", (ADD, 20)), op("aten::_foreach_mul_", (MUL, 20))])]
    return steps(lambda start, ids: combine(start, ids, parts), 4, counter())


def combine(start, ids, parts):
    """Regions one after another (a part named "" is laid out as ops, in no region): as ``region`` returns."""
    events, now, gpu_end = [], start, start
    for name, calls in parts:
        laid, now, gpu_done = region(name, calls, now, ids) if name else ops(calls, now, ids)
        events += laid
        gpu_end = max(gpu_end, gpu_done)
    return events, now, gpu_end


def collective(kernel_start, kernel_us, ids, at=250):
    """``nccl:all_reduce`` at ``at`` µs, launching its kernel on NCCL's stream (20) at ``kernel_start``."""
    own, launch = next(ids), next(ids)
    return [cpu("nccl:all_reduce", at, 10, external_id=own),
            cpu("cudaLaunchKernel", at + 2, 3, kind="runtime", correlation=launch, external_id=own),
            gpu(ALL_REDUCE, kernel_start, kernel_us, stream=20, correlation=launch, external_id=own)]


def rank_step(kernel_start, kernel_us, straggle_us=0):
    """One rank's step of a data-parallel job: a GEMM (40 → 240 µs on the GPU), then the gradients' all-reduce,
    whose kernel runs from ``kernel_start`` for ``kernel_us``; a rank that straggles first sleeps in a region."""
    ids = counter()
    own, launch = next(ids), next(ids)
    events = [cpu("ProfilerStep#1", 0, 1000, kind="annotation"), cpu("aten::mm", 10, 20, external_id=own),
              cpu("cudaLaunchKernel", 20, 5, kind="runtime", correlation=launch, external_id=own),
              gpu(GEMM, 40, 200, correlation=launch, external_id=own),
              *collective(kernel_start, kernel_us, ids, at=kernel_start - 10)]
    if straggle_us:
        events.append(cpu("straggle", 300, straggle_us, kind="annotation"))
    return tuple(events)


def steps_page_step(start, ids):
    """A step of the steps page's loop from ``start``, for ``steps``: the forward region's aten::mm launches a
    400 µs GEMM and aten::add a 10 µs kernel, queued behind it; the reduce region's aten::sum a 5 µs kernel. The
    first step's aten::mm (the one from 0) first creates cuBLAS's handle and workspace: 2000 µs of host time
    before its launch."""
    ready = start + (2000 if start == 0 else 0)  # the set-up done, the step goes on
    mm, add, total = ((next(ids), next(ids)) for _ in range(3))
    events = [cpu("forward", start, ready - start + 30, kind="annotation"),
              cpu("aten::matmul", start + 1, ready - start + 10),
              cpu("aten::mm", start + 2, ready - start + 9, external_id=mm[0]),
              cpu("cudaLaunchKernel", ready + 6, 3, kind="runtime", correlation=mm[1], external_id=mm[0]),
              gpu(GEMM, ready + 11, 400, correlation=mm[1], external_id=mm[0]),
              cpu("aten::add", ready + 14, 10, external_id=add[0]),
              cpu("cudaLaunchKernel", ready + 18, 3, kind="runtime", correlation=add[1], external_id=add[0]),
              gpu(ADD, ready + 411, 10, correlation=add[1], external_id=add[0]),
              cpu("reduce", ready + 31, 20, kind="annotation"), cpu("aten::sum", ready + 33, 12, external_id=total[0]),
              cpu("cudaLaunchKernel", ready + 38, 3, kind="runtime", correlation=total[1], external_id=total[0]),
              gpu(SUM, ready + 421, 5, correlation=total[1], external_id=total[0])]
    return events, ready + 51, ready + 426


PREDICTIONS = {
    # A 64×64 multiply's GEMM runs 4 µs and the add's kernel 2 µs, launched 40 µs apart by the host: the GPU's
    # window runs from the GEMM's start (30) to the add kernel's end (72), busy 6 µs of its 42: 6 / 42.
    "basics-matmul-64": Prediction(
        (cpu("matmul_bias", 0, 80, kind="annotation"), cpu("aten::matmul", 5, 30, external_id=1),
         cpu("aten::mm", 8, 24, external_id=2), cpu("cudaLaunchKernel", 20, 5, kind="runtime", correlation=3),
         gpu(GEMM, 30, 4, correlation=3, external_id=2), cpu("aten::add", 45, 25, external_id=4),
         cpu("cudaLaunchKernel", 60, 5, kind="runtime", correlation=5), gpu(ADD, 70, 2, correlation=5,
                                                                              external_id=4),
         cpu("cudaDeviceSynchronize", 75, 5, kind="runtime")),
        {"the GPU should sit idle most of the time": 6 / 42}),
    # Five steps from the first (steps_page_step): the first aten::mm lasts 2000 + 9 µs, each later one 9 µs:
    # (2000 + 9) / 9. The first step (2427 µs) is under six times as long as a later one (427 µs).
    "basics-steps-from-first": Prediction(steps(steps_page_step, 5, counter()),
                                          {"on a GPU, the first step's `aten::mm` should take more than ten times "
                                           "as long as any later one": (2000 + 9) / 9}),
    # aten::mm's GEMM runs 4000 µs and aten::add's kernel 100 µs: the multiply's share is 4000 / 4100; the
    # profiler's sync when it stops waits out both, 4050 µs of it after their launch: 4050 / 4100.
    "basics-matmul-4096": Prediction(
        (cpu("matmul_bias", 0, 60, kind="annotation"), cpu("aten::matmul", 2, 20, external_id=1),
         cpu("aten::mm", 4, 16, external_id=2), cpu("cudaLaunchKernel", 10, 5, kind="runtime", correlation=3),
         gpu(GEMM, 20, 4000, correlation=3, external_id=2), cpu("aten::add", 30, 20, external_id=4),
         cpu("cudaLaunchKernel", 35, 5, kind="runtime", correlation=5), gpu(ADD, 4020, 100, correlation=5,
                                                                                external_id=4),
         cpu("cudaDeviceSynchronize", 70, 4050, kind="runtime")),
        {"the multiply's kernel should take nearly all of the kernel time": 4000 / 4100,
         "for the large input, about as long as the GPU's kernels together": 4050 / 4100}),
    # The first zero_grad frees six gradients on the GPU: six [memory] instants of negative bytes on its thread.
    "reading-memory": Prediction(
        (cpu("ProfilerStep#1", 0, 100, kind="annotation"),
         cpu("Optimizer.zero_grad#Adam.zero_grad", 10, 30, kind="annotation"),
         *({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "ts": 12 + 2 * n, "pid": 100,
            "tid": 1, "args": {"Bytes": -4096, "Device Type": 1, "Device Id": 0}} for n in range(6))),
        {"on a GPU run, the first recorded `zero_grad` should record its six frees too": 6}),
    # Rank 0's all-reduce kernel runs 100 µs, rank 1's 95: rank 1 arrived last, and rank 0 waited the first
    # 5 µs of its own; over rank 0's window, from its GEMM's start (40) to its all-reduce's end (360): 5 / 320.
    "multigpu-ddp": Prediction((), {"no rank of this job is expected to wait for another for a tenth of its time":
                                    5 / 320}, by_rank=(rank_step(260, 100), rank_step(265, 95))),
    # Rank 1 sleeps, then all-reduces: its kernel runs 50 µs (910 → 960); rank 0's started at 260 and lasted
    # until rank 1's ended, 700 µs, of which it waited 700 − 50 = 650, over its window 40 → 960: 650 / 920.
    "multigpu-straggler": Prediction((), {"rank 0's NCCL kernels should last most of its window, waiting for rank 1":
                                          650 / 920},
                                     by_rank=(rank_step(260, 700), rank_step(910, 50, straggle_us=600))),
    # On a GPU, Inductor leaves the multiply to cuBLAS and fuses the bias and the ReLU into one Triton kernel.
    "compile-in-a-trace": Prediction(
        steps(lambda start, ids: combine(start, ids, [("compiled, with a ReLU", [compiled_graph(
            op("aten::mm", (GEMM, 30)), op("triton_poi_fused_addmm_relu_0", ("triton_poi_fused_addmm_relu_0", 5)))])]),
            1, counter()),
        {"On a GPU, the graph with the ReLU should call `aten::mm` instead": 1}),
    # The MLP of Linear, GELU, Linear, LayerNorm: four kernels a step eager; compiled, two GEMMs and Triton's
    # fused GELU and fused LayerNorm, four again: 4 / 4.
    "compile-fusion-eager": Prediction(steps(in_region("step", [
        op("aten::linear", under=(op("aten::addmm", (GEMM, 40)),)), op("aten::gelu", (GELU, 8)),
        op("aten::linear", under=(op("aten::addmm", (GEMM, 40)),)), op("aten::layer_norm", (NORM, 10))]), 3,
        counter()), {}),
    "compile-fusion-compiled": Prediction(steps(in_region("step", [compiled_graph(
        op("aten::addmm", (GEMM, 40)), op("triton_poi_fused_gelu_0", ("triton_poi_fused_gelu_0", 6)),
        op("aten::addmm", (GEMM, 40)), op("triton_per_fused_native_layer_norm_1",
                                          ("triton_per_fused_native_layer_norm_1", 8)))]), 3, counter()),
        {"On a GPU, the compiled step should launch about as many kernels as the eager one, and no more": 1}),
    # The snippet times both configurations itself: compiled 900 µs a step against eager 1000 µs.
    "compile-pays-large": Prediction(plain_events(), {
        "On a GPU, the compiled large step should be about as fast as the eager one, or a little faster": 0.9},
        results={"configurations": [{"name": "eager", "median_step_us": 1000.0},
                                    {"name": "compiled", "median_step_us": 900.0}]}),
    # Each input's region launches addmm's one GEMM, eager and compiled alike: two kernels a step on both sides,
    # the same name, so the diff finds none gone and none new.
    "model-linear-eager": Prediction(steps(lambda start, ids: combine(start, ids, [
        ("2-D input", [linear(GEMM)]),
        ("3-D input", [op("aten::linear", under=(op("aten::view"), op("aten::t"), op("aten::addmm", (GEMM, 40)),
                                                  op("aten::view")))])]), 5, counter()), {}),
    "model-linear-compiled": Prediction(steps(lambda start, ids: combine(start, ids, [
        ("2-D input", [compiled_graph(op("aten::addmm", (GEMM, 40)))]),
        ("3-D input", [compiled_graph(op("aten::addmm", (GEMM, 40)))])]), 5, counter()),
        {"On a GPU, the compiled step should launch as many kernels as the eager one": 1,
         "no kernel of the eager run should be missing from the compiled one": 0, "and none should be new": 0}),
    # Five kernels a step eager, four compiled: 5 / 4; the GELU and multiply kernels gone, the Triton one new.
    "model-mlp-eager": Prediction(mlp_eager(), {}),
    "model-mlp-compiled": Prediction(mlp_compiled(), {
        "On a GPU, the compiled step should launch four kernels for every five of the eager one": 5 / 4,
        "the two elementwise kernels of the eager run should be gone": 2, "and one generated kernel new": 1}),
    # Out of place, six GPU ops a call: five kernels (two GEMMs, the scaling, the fill, softmax) and the clone's
    # Memcpy DtoD, the clone's only one; in place, the same five kernels and no copy: the diff, which compares
    # kernels, finds none gone and none new.
    "model-attention-masked-fill": Prediction(attention_by_hand("aten::masked_fill", copy=True), {
        "the clone should launch one `Memcpy DtoD`": 1, "and nothing else": 1,
        "the out-of-place run should launch six GPU operations a call": 6}),
    "model-attention-masked-fill-inplace": Prediction(attention_by_hand("aten::masked_fill_", copy=False), {
        "the in-place run five": 5, "the diff should find no kernel gone": 0, "and none new": 0}),
    "model-attention-sdpa-flash": Prediction(sdpa("aten::_scaled_dot_product_flash_attention", FLASH), {}),
    "model-attention-sdpa-math": Prediction(sdpa_math(), {
        "it should launch between fifteen and twenty-five kernels a call": 19, "all of them should be fp32 GEMMs": 1}),
    "model-attention-sdpa-efficient": Prediction(sdpa(
        "aten::_scaled_dot_product_efficient_attention",
        "fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t, "
        "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)"), {
        "the efficient backend's region should hold one `aten::_scaled_dot_product_efficient_attention`": 1,
        "whose kernels should all decode as memory-efficient attention": 1, "one kernel a call": 1,
        "in bfloat16": 1}),
    "model-attention-sdpa-cudnn": Prediction(sdpa(
        "aten::_scaled_dot_product_cudnn_attention",
        "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_bf16_knob_3_64x64x64_4x1x1_kernel0_0"), {
        "the cuDNN backend's region should hold one `aten::_scaled_dot_product_cudnn_attention`": 1,
        "and no `aten::transpose` at all": 0, "its kernels should decode as cuDNN's": 1,
        "launched by `cuLaunchKernelEx`": 1}),
    # Twelve kernels a step eager, seven compiled: 12 / 7; the MLP's 250 µs of 430 are the largest part's.
    "model-block-eager": Prediction(block(compiled=False), {
        "the MLP should still take the largest share of device time": 1}),
    "model-block-compiled": Prediction(block(compiled=True), {
        "On a GPU, the compiled step should launch between a quarter and two thirds as many kernels as the eager "
        "one": 12 / 7}),
}


def prediction(recording):
    """The predicted run of ``recording``: its Prediction, or a plain run with nothing to answer."""
    return PREDICTIONS.get(recording.id) or Prediction(plain_events(), {})


def table_text(rows):
    """A summary table as ``key_averages().table()`` prints it, names and calls only: what the claims read."""
    width = max([len(row["name"]) for row in rows] + [4])
    rule = "-" * width + "  " + "-" * 10
    body = [f"{row['name']:>{width}}  {row['count']:>10}" for row in rows]
    return "\n".join([rule, f"{'Name':>{width}}  {'# of Calls':>10}", rule, *body, rule, ""])


def write_rank(recording, rank, folder):
    """What the recorder's process for ``rank`` of ``recording`` would leave in ``folder`` on a GPU: the trace,
    the tables, the rows, the exports it asks for, and its own facts (``process.json``)."""
    run = prediction(recording)
    top = {"deviceProperties": [{"id": 0, "name": DEVICE}],
           "distributedInfo": {"rank": rank, "world_size": recording.ranks, "backend": "nccl"}}
    events = run.by_rank[rank] if run.by_rank else run.events
    document = json.dumps({"traceEvents": list(events), **top}).encode()
    (folder / "trace.json.gz").write_bytes(gzip.compress(document, mtime=0))
    # The summary rows: every op by name with its calls (no claim about CUDA runs reads their times).
    names = [event["name"] for event in events if event.get("cat") == "cpu_op"]
    rows = [{"name": name, "count": names.count(name), "self_cpu_us": 0.0, "cpu_total_us": 0.0, "self_device_us": 0.0,
             "device_total_us": 0.0, "cpu_memory_bytes": 0, "self_cpu_memory_bytes": 0, "device_memory_bytes": 0,
             "self_device_memory_bytes": 0} for name in sorted(set(names))]
    (folder / "averages.json").write_text(json.dumps(rows))
    (folder / "table.txt").write_text(table_text(rows))
    for table in recording.tables:
        (folder / table.file).write_text(table_text(rows))
    if recording.memory_timeline:
        # export_memory_timeline's [times, sizes]: for each time, a first column and the bytes of eight categories.
        (folder / "memory-timeline.json").write_text(json.dumps(run.memory_timeline
                                                                or [[0, 1], [[0] * 9, [0] + [1] * 8]]))
    if run.results is not None:
        (folder / "results.json").write_text(json.dumps(run.results))
    facts = {"pid": 4242 + rank, "device_name": DEVICE, "torch": "2.13.0", "cuda": "13.0", "python": "3.12",
             "platform": "Linux x86_64"}
    (folder / "process.json").write_text(json.dumps(facts))


# Part 6, Profiling a server

# The part's decoder on an H100 or H200 in bfloat16, its kernels as ATen names them: the embeddings' gathers (a small
# and a large index), the positions' arange, RMSNorm's fused kernel (a norm), the dynamic cache's concatenations (a
# copy), the static cache's writes, SiLU, argmax's reduction and the memory-efficient attention kernel.
GATHER = ("void at::native::(anonymous namespace)::indexSelectSmallIndex<c10::BFloat16, long, unsigned int, 2, 2, -2>"
          "(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>)")
GATHER_LARGE = ("void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, "
                "2, -2, true>(int)")
ARANGE = "void (anonymous namespace)::elementwise_kernel_with_index<long, at::native::arange_cuda_out>(long)"
RMS_NORM = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float, true>(int)"
CAT = ("void at::native::(anonymous namespace)::CatArrayBatchedCopy_contig<at::native::(anonymous namespace)::"
       "OpaqueType<2u>, unsigned int, 4, 64, 64>(int)")
INDEX_COPY = "void at::native::elementwise_kernel<128, 4, at::native::index_copy_kernel_impl<c10::BFloat16>>(int)"
SILU = "void at::native::vectorized_elementwise_kernel<4, at::native::silu_kernel>(int)"
ARGMAX = ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::BFloat16, at::native::ArgMaxOps<float>, "
          "unsigned int, long, 4>>(int)")
MEM_EFFICIENT = ("fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<"
                 "cutlass::bfloat16_t, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)")


def server_decode_step(start, ids):
    """One decode step of the page's decoder (4 layers, width 64, batch 1) in its region: each kernel 2 to 4 µs,
    shorter than the host's 4 µs between launches, so the GPU waits for the host: the step is host-bound."""
    def norm():
        return op("aten::rms_norm", (NORM, 3), (MUL, 2))

    def linear(us=3):
        return op("aten::linear", under=(op("aten::matmul", under=(op("aten::mm", (GEMM, us)),)),))

    layer = [norm(), linear(), op("aten::cat", (CAT, 2)), op("aten::cat", (CAT, 2)),
             op("aten::scaled_dot_product_attention", under=(
                 op("aten::_scaled_dot_product_flash_attention", (FLASH, 4)),)),
             linear(), op("aten::add", (ADD, 2)), norm(), linear(), op("aten::silu", (SILU, 2)),
             op("aten::mul", (MUL, 2)), linear(), op("aten::add", (ADD, 2))]
    calls = [op("aten::embedding", under=(op("aten::index_select", (GATHER, 2)),)), op("aten::arange", (ARANGE, 2)),
             op("aten::embedding", under=(op("aten::index_select", (GATHER, 2)),)), op("aten::add", (ADD, 2)),
             *layer * 4, norm(), linear(4), op("aten::argmax", (ARGMAX, 3))]
    return region("decode bs=1 toks=1", calls, start, ids)


def served_steps():
    """The serve loop's one recorded cycle: the schedule skips 20 steps, waits 5 and warms up 1, so the three
    active steps, decode steps of the first generation (its steps 0 to 31), are ProfilerStep#26 to #28."""
    first = 20 + 5 + 1
    return tuple({**event, "name": f"ProfilerStep#{int(event['name'][13:]) + first - 1}"}
                 if event["name"].startswith("ProfilerStep#") else event
                 for event in steps(server_decode_step, 3, counter()))


def server_costs():
    """What ``measure_profiler_costs`` returns on an H200 for the recording's params (results.json)."""
    # A decode step runs 99 ops (68 kernels), some 6 µs of host time each without the profiler: 600 µs.
    # Under the profiler each op is recorded on the host, and each launch's CUPTI callback adds its own: 840 µs
    # with the defaults, 840 / 600 = 1.4. Shapes, stacks and memory each add their own host work on top.
    configurations = [("no profiler", None, 600.0), ("defaults", {}, 840.0),
                      ("record_shapes", {"record_shapes": True}, 900.0),
                      ("with_stack", {"with_stack": True}, 1000.0),
                      ("profile_memory", {"profile_memory": True}, 870.0)]
    # The 16 steps' events: the CPU stand-in's ops (10,267 with the defaults, 16,298 with the stacks' Python
    # calls, the same Python on either machine), plus, per launch (68 a step, 1,088), its runtime call, its
    # kernel and the flow's two ends: 4 × 1,088 = 4,352 more on both sides. Events: (16,298 + 4,352) /
    # (10,267 + 4,352) = 20,650 / 14,619 = 1.41. Bytes: about 1,000 a launch's four events, 1,088,000 more on both
    # sides: 5,437,082 / 3,634,222 = 1.50.
    sizes = [("defaults", 3_634_222, 14_619, 55_000.0), ("with_stack", 5_437_082, 20_650, 70_000.0)]
    # The stop waits for the GPU's queue and gathers CUPTI's records: 60,000 µs; writing on the serving thread
    # adds the export's 40,000: 100,000 µs, of which the stop is 60,000 / 100,000 = 0.6. Written on another
    # thread, the stop stays on the serving thread and the writer contends for the interpreter lock with the
    # steps after it: the longest step is 104,000 µs, 104,000 / 100,000 = 1.04. The median step of all those
    # generations, most of them under the profiler: 800 µs.
    stalls = [("not written", 60_000.0), ("written on the serving thread", 100_000.0),
              ("written on another thread", 104_000.0)]
    return {"device": "cuda", "new_tokens": 32, "rounds": 9, "active": 16,
            "configurations": [{"name": name, "options": options, "median_step_us": us}
                               for name, options, us in configurations],
            "trace_sizes": [{"name": name, "bytes": size, "events": events, "export_us": us}
                            for name, size, events, us in sizes],
            "hand_over": [{"name": name, "longest_step_us": us, "median_step_us": 800.0} for name, us in stalls],
            "steps_run": 4 * 32}


PREDICTIONS.update({
    # The trace is the serve loop's: three decode steps, ProfilerStep#26 to #28. The answers are results.json's:
    # defaults 840 / no profiler 600 µs; stop 60,000 / written here 100,000 µs; another thread 104,000 / 100,000.
    "serving-profiler-cost": Prediction(served_steps(), {
        "On a GPU, where a decode step at batch 1 waits for the host, the defaults should slow it down too, though "
        "not twice over": 840 / 600,
        "On a GPU, stopping should take at least half of the stall": 60_000 / 100_000,
        "On a GPU the writer thread should neither help nor hurt much more": 104_000 / 100_000},
        results=server_costs()),
})


# Part 6, Serving a model: generation.md

# Each kernel's µs on an H200, by phase: a decode step reads the weights once whatever its batch (each GEMM a few
# µs, the vocabulary's 16 µs at batch 1 and 18 at batch 8, 65 MB of weights); a prefill of 512 tokens at batch 1
# runs GEMMs of 512 rows (the MLP's 30 and 16 µs, the vocabulary's 70): 110 µs of kernels a block. Keyed (phase,
# batch).
GENERATION_US = {
    ("decode", 1): {"small": 2, "qkv": 3, "cat": 1, "attention": 3, "out": 2, "up": 5, "down": 3, "head": 16},
    ("decode", 8): {"small": 2, "qkv": 3, "cat": 2, "attention": 3, "out": 2, "up": 5, "down": 3, "head": 18},
    ("decode", 32): {"small": 2, "qkv": 3, "cat": 12, "attention": 8, "out": 2, "up": 5, "down": 3, "head": 20},
    ("prefill", 1): {"small": 4, "qkv": 14, "attention": 20, "out": 6, "up": 30, "down": 16, "head": 70},
    ("prefill", 8): {"small": 12, "qkv": 60, "attention": 60, "out": 25, "up": 150, "down": 80, "head": 420},
    ("prefill", 32): {"small": 45, "qkv": 240, "attention": 250, "out": 90, "up": 600, "down": 320, "head": 1700},
}


def generation_linear(us):
    """``nn.Linear`` without a bias on the decoder's 3-D input: aten::linear, aten::matmul, aten::mm's GEMM."""
    return op("aten::linear", under=(op("aten::matmul", under=(op("aten::mm", (GEMM, us)),)),))


def decoder_forward(phase, batch, layers=8):
    """The ops of one forward of the decoder (snippets/serving_a_model/generation.py), eager, with the dynamic
    cache: the embeddings (5 ops, 6 µs of host each); per block 13 ops and 100 µs of host at decode (two norms
    and the sdpa 8 µs each, four linears 10 each, the two concatenations, the adds, SiLU and the multiply 6
    each), 11 ops and 88 µs at the prefill (no concatenation: the cache is empty); then the final norm (8), the
    vocabulary's linear (10), the last token's slice (2, no kernel) and argmax (6)."""
    us = GENERATION_US[phase, batch]
    small = us["small"]

    def norm():
        return op("aten::rms_norm", under=(op("aten::_fused_rms_norm", (RMS_NORM, small)),))

    embed = [op("aten::embedding", (GATHER, small)), op("aten::arange", (ARANGE, small)),
             op("aten::add", (ADD, small)), op("aten::embedding", (GATHER, small)), op("aten::add", (ADD, small))]
    cat = [op("aten::cat", (CAT, us["cat"])), op("aten::cat", (CAT, us["cat"]))] if phase == "decode" else []
    block_ops = [norm(), generation_linear(us["qkv"]), *cat,
                 op("aten::scaled_dot_product_attention", under=(
                     op("aten::_scaled_dot_product_flash_attention", (FLASH, us["attention"])),)),
                 generation_linear(us["out"]), op("aten::add", (ADD, small)), norm(), generation_linear(us["up"]),
                 op("aten::silu", (SILU, small)), op("aten::mul", (MUL, small)), generation_linear(us["down"]),
                 op("aten::add", (ADD, small))]
    return [*embed, *block_ops * layers, norm(), generation_linear(us["head"]), op("aten::slice"),
            op("aten::argmax", (ARGMAX, small))]


def generation(batch, prompt_tokens=512, new_tokens=32):
    """profile_generation's kept generation: ProfilerStep#1 the prefill's region, each later step one decode
    step's, each region named as the snippet names it."""
    def per_step(start, ids):
        if start == 0:
            return region(f"prefill bs={batch} toks={batch * prompt_tokens}", decoder_forward("prefill", batch),
                          start, ids)
        return region(f"decode bs={batch} toks={batch}", decoder_forward("decode", batch), start, ids)
    return steps(per_step, new_tokens, counter())


PREDICTIONS.update({
    # Batch 1, launch-bound: a decode step's kernels are shorter than the host's launches, so the GPU waits
    # for the host; the step ends when argmax's 2 µs kernel does, queued behind the vocabulary's GEMM. That GEMM is
    # launched 1 + 30 + 8 × 100 + 8 + 3 = 842 µs into the step (the region and the ops it opens, the embeddings,
    # the blocks, the final norm, the linear's three ops), starts 5 µs later and runs 16: a decode step lasts
    # 842 + 5 + 16 + 2 + 1 = 866 µs. The prefill's GPU is busy from the first block's qkv GEMM on, launched at
    # 1 + 30 + 8 + 3 = 42 and starting at 47: its kernels from there, 978 µs in all (embeddings 5 × 4, blocks
    # 8 × 110, the final norm 4, the vocabulary's GEMM 70, argmax 4) less the first six (24), run back to back:
    # 47 + 954 + 1 = 1002 µs. explain calls the whole run launch-bound (the GPU busy 33% of it).
    "serving-generation-batch-1": Prediction(generation(1), {
        "on a GPU, the prefill should take no more than a few times as long as a decode step": 1002 / 866,
        "and `explain` should call the run launch-bound": 1}),
    # Batch 8: the same ops; each GEMM still reads the same weights, and the vocabulary's takes 18 µs: a decode
    # step lasts 842 + 5 + 18 + 2 + 1 = 868 µs, against 866 at batch 1.
    "serving-generation-batch-8": Prediction(generation(8), {
        "on a GPU, a decode step at batch 8 should take about as long as at batch 1": 868 / 866}),
    # The sweep's own timings, by the clock without the profiler: a decode step at batch 32 (prompt 512) takes
    # 1150 µs, at batch 1 1010 µs; the profiled generation is batch 32's.
    "serving-generation-sweep": Prediction(generation(32, new_tokens=16), {
        "On a GPU, a decode step of a batch of 32 should take less than twice as long as one of batch 1": 1150 / 1010},
        results={"device": "cuda", "new_tokens": 16, "repeats": 3, "points": [
            {"batch": 1, "prompt_tokens": 128, "prefill_us": 1050.0, "decode_us": 1000.0},
            {"batch": 1, "prompt_tokens": 512, "prefill_us": 1150.0, "decode_us": 1010.0},
            {"batch": 1, "prompt_tokens": 2048, "prefill_us": 3400.0, "decode_us": 1040.0},
            {"batch": 8, "prompt_tokens": 512, "prefill_us": 4300.0, "decode_us": 1030.0},
            {"batch": 32, "prompt_tokens": 512, "prefill_us": 17000.0, "decode_us": 1150.0}]}),
})


# Part 6, The KV cache (serving-a-model/kv-cache.md)
# The decoder on a GPU by its CUDA params: 8 layers of width 1024 (16 heads of 64), MLP 4096, vocabulary 32000,
# bfloat16, batch 4, a 512-token prompt, 16 tokens generated: the prefill, then 15 decode steps (the last token
# chosen is never fed back). One token's keys and values: 2 × 8 layers × 1024 × 2 bytes × 4 = 131072 bytes (KV_TOKEN);
# one layer's keys (or values) take 1024 × 2 × 4 = 8192 bytes a token (KV_LAYER), the same as one token's hidden
# state for the batch.
KV_TOKEN, KV_LAYER, KV_LAYERS, KV_PROMPT, KV_DECODES = 131072, 8192, 8, 512, 15
KV_QKV = 3 * KV_LAYER  # the qkv projection's output, a token: queries, keys and values
KV_MLP = 4 * 4096 * 2  # the MLP's hidden activations, a token
KV_TOKEN_IDS = 512  # the chosen tokens, 4 int64s: one 512-byte block of the CUDA caching allocator
KV_LOGITS = 4 * 32000 * 2  # one position's logits for the batch


def memory(ts, size):
    """A ``[memory]`` instant of the CUDA caching allocator on the host thread: ``size`` bytes handed out (freed
    when negative)."""
    return {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "ts": ts, "pid": 100, "tid": 1,
            "args": {"Bytes": size, "Device Type": 1, "Device Id": 0}}


def with_memory(laid, plan):
    """``region``'s (events, host end, GPU end) with the allocator's events added: ``plan`` is, in the order the ops
    start, (an op's name, the bytes it allocates, the bytes freed as it returns); each entry takes the next op of
    that name. Allocations fall inside the op, frees at its end."""
    events, host_end, gpu_end = laid
    laid_ops = sorted((e for e in events if e["cat"] == "cpu_op"), key=lambda e: (e["ts"], -e["dur"]))
    added, at = [], 0
    for name, allocated, freed in plan:
        while laid_ops[at]["name"] != name:
            at += 1
        event, at = laid_ops[at], at + 1
        added += [memory(event["ts"] + 1 + n / 10, size) for n, size in enumerate(allocated)]
        added += [memory(event["ts"] + event["dur"], -size) for size in freed]
    return [*events, *added], host_end, gpu_end


def kv_layer(tokens, cache, cached):
    """One decoder layer on ``tokens`` positions a sequence, its cache ``cache`` ("dynamic" or "static") holding
    ``cached`` tokens before it: (the ops, the memory plan for ``with_memory``). Each op allocates its output and
    frees what nothing holds any more: a layer leaves its hidden state in place of its input and, besides, only
    what the cache keeps. The dynamic cache's prefill keeps views of the qkv output (held whole, queries too);
    its first decode step's two concatenations replace them, freeing that output; later ones free the old cache."""
    x, qkv = tokens * KV_LAYER, tokens * KV_QKV
    if cache == "dynamic" and tokens > 1:
        update, keeps = [], [("aten::addmm", [qkv], [])]
    elif cache == "dynamic":
        grown, old = (cached + 1) * KV_LAYER, cached * KV_LAYER
        update = [op("aten::cat", (CAT, 3 + cached // 64)), op("aten::cat", (CAT, 3 + cached // 64))]
        keeps = [("aten::addmm", [qkv], []), ("aten::cat", [grown], [old] if cached > KV_PROMPT else []),
                 ("aten::cat", [grown], [old] if cached > KV_PROMPT else [KV_PROMPT * KV_QKV])]
    else:
        update = [op("aten::index_copy_", (INDEX_COPY, 2)), op("aten::index_copy_", (INDEX_COPY, 2))]
        keeps = [("aten::addmm", [qkv], []), ("aten::index_copy_", [], []), ("aten::index_copy_", [], [])]
    attention = ("aten::_scaled_dot_product_flash_attention", FLASH) if cache == "dynamic" or tokens > 1 else \
        ("aten::_scaled_dot_product_efficient_attention", MEM_EFFICIENT)
    kept_qkv = [] if cache == "dynamic" and tokens > 1 else [qkv]  # the prefill's stays, the cache's views
    calls = [op("aten::linear", under=(op("aten::addmm", (GEMM, 6 if tokens == 1 else 60)),)), *update,
             op("aten::scaled_dot_product_attention", under=(op(attention[0], (attention[1], 8 if tokens == 1
                                                                                    else 90)),)),
             op("aten::linear", under=(op("aten::addmm", (GEMM, 4 if tokens == 1 else 30)),)),
             op("aten::add", (ADD, 2)),
             op("aten::linear", under=(op("aten::addmm", (GEMM, 10 if tokens == 1 else 110)),)),
             op("aten::gelu", (GELU, 3)),
             op("aten::linear", under=(op("aten::addmm", (GEMM, 10 if tokens == 1 else 110)),)),
             op("aten::add", (ADD, 2))]
    plan = [*keeps, (attention[0], [x, 512], [*kept_qkv, 512]), ("aten::addmm", [x], [x]),
            ("aten::add", [x], [x, x]), ("aten::addmm", [tokens * KV_MLP], []),
            ("aten::gelu", [tokens * KV_MLP], [tokens * KV_MLP]), ("aten::addmm", [x], [tokens * KV_MLP]),
            ("aten::add", [x], [x, x])]
    return calls, plan


def kv_phase(cache, tokens, cached):
    """A per_step for ``steps``: one phase step (the prefill, or a decode step) in its region, with its memory.
    The embedding makes the hidden state; the projection to the vocabulary its logits (every position's), of which
    argmax keeps the last position's choice: the one thing a step leaves besides the cache."""
    calls, plan = [op("aten::embedding", (GATHER_LARGE, 3))], [("aten::embedding", [tokens * KV_LAYER], [])]
    for _ in range(KV_LAYERS):
        layer_calls, layer_plan = kv_layer(tokens, cache, cached)
        calls += layer_calls
        plan += layer_plan
    logits = tokens * KV_LOGITS
    calls += [op("aten::linear", under=(op("aten::mm", (GEMM, 30 if tokens == 1 else 900)),)),
              op("aten::argmax", (ARGMAX, 4))]
    plan += [("aten::mm", [logits], [tokens * KV_LAYER]), ("aten::argmax", [KV_TOKEN_IDS], [logits])]
    name = f"prefill bs=4 toks={4 * tokens}" if tokens > 1 else "decode bs=4 toks=4"
    return lambda start, ids: with_memory(region(name, calls, start, ids), plan)


def kv_generation(cache):
    """The prefill and the 15 decode steps, a profiler step each."""
    phases = [kv_phase(cache, KV_PROMPT, 0), *(kv_phase(cache, 1, KV_PROMPT + n) for n in range(KV_DECODES))]
    return steps(lambda start, ids: phases.pop(0)(start, ids), 1 + KV_DECODES, counter())


def kv_timeline(category, held):
    """A memory timeline of one time per phase step: the parameters (8 layers of 12.6 M, two 32.8 M embeddings,
    bfloat16), and ``category`` holding ``held[n]`` bytes after step n."""
    column = CATEGORIES.index(category) + 1
    parameters = 2 * (8 * (4 * 1024 * 1024 + 2 * 1024 * 4096) + 2 * 32000 * 1024)
    rows = []
    for size in held:
        row = [0] * 9
        row[1], row[column] = parameters, size
        rows.append(row)
    return [list(range(len(held))), rows]


PREDICTIONS.update({
    # The dynamic cache. Decode step s (1 to 15) starts with 512 + s − 1 tokens cached; each layer's two
    # aten::cat allocate its keys and its values again, 512 + s tokens: 2 × 8 × (512 + s) × 8192 bytes =
    # (512 + s) × 131072, one KV_TOKEN more than step s − 1's: growth 131072 / 131072 = 1. Steps 2 to 15 free the
    # old cache (512 + s − 1 tokens) and leave one token's keys and values and the chosen tokens' 512-byte block:
    # (131072 + 512) / 131072 = 1.0039, the median of the 15. Step 1 frees instead the prefill's qkv outputs,
    # 8 × 512 × 24576 bytes = 768 KV_TOKENs, having allocated 513: (513 − 768) × 131072 + 512, / 131072 = −254.996.
    # At the end the activations hold 527 tokens' keys and values and the 16 tokens chosen: 527 + 16 × 512 / 131072
    # = 527.0625.
    "serving-kv-dynamic": Prediction(
        kv_generation("dynamic"),
        {"on a GPU, the concatenations should allocate one token's keys and values more each step in the GPU's "
         "memory": 131072 / 131072},
        memory_timeline=kv_timeline("ACTIVATION", [768 * KV_TOKEN + KV_TOKEN_IDS] + [
            (513 + n) * KV_TOKEN + (n + 2) * KV_TOKEN_IDS for n in range(KV_DECODES)])),
    # The static cache: its buffers, 528 positions of keys and values in each layer (528 × 131072 bytes), made by
    # torch.zeros before the first profiled step, and filed as Unknown: 528 at every step. A decode step's
    # index_copy_ calls allocate nothing (growth 0); its own working memory is freed inside it, and it leaves only
    # the chosen tokens' block: 512 / 131072 = 0.0039.
    "serving-kv-static": Prediction(
        kv_generation("static"),
        {"on a GPU, its decode steps should leave next to nothing allocated either": 512 / 131072},
        memory_timeline=kv_timeline("Unknown", [528 * KV_TOKEN] * (1 + KV_DECODES))),
})


# Part 6, Graphs and compiled decoding
# The decoder of serving-a-model/compiled-decoding.md at its CUDA sizes (8 layers, width 1024, 16 heads of 64, MLP
# 4096, a vocabulary of 32000, batch 1, a prompt of 512 tokens), in bfloat16 on an H200. Its profiled generation is
# sixteen ProfilerSteps: #1 the prefill's region, #2 to #16 one decode step's region each. The static cache's mask
# adds two elementwise kernels to the part's names.
LE = "void at::native::vectorized_elementwise_kernel<4, at::native::CompareFunctor<long>>(int)"  # elementwise
LOGICAL_NOT = "void at::native::vectorized_elementwise_kernel<4, at::native::logical_not_kernel_cuda>(int)"


def decoder_linear(us):
    """``nn.Linear`` without bias on a 3-D input, eager: the weight's transpose, and matmul's one GEMM on the
    flattened input (at batch 1 and one token, cuBLAS's GEMM of one row)."""
    return op("aten::linear", under=(op("aten::t", under=(op("aten::transpose", under=(op("aten::as_strided"),)),)),
                                      op("aten::matmul", under=(op("aten::view"), op("aten::mm", (GEMM, us)),
                                                                op("aten::_unsafe_view")))))


def eager_layer(cache, tokens):
    """One block, eager: 19 kernels with the static cache, 17 with the dynamic one (its decode step's attention
    needs no mask; its prefill asks SDPA for a causal one, flash attention's)."""
    long = tokens > 1
    norm = op("aten::rms_norm", under=(op("aten::_fused_rms_norm", (RMS_NORM, 3 if long else 2)),))
    if cache == "static":
        # written = position + arange(tokens); two index_copy_ into the buffers; the causal mask arange(max) <=
        # written[:, None]; SDPA turns the boolean mask into a float one (logical_not, where) for the memory-
        # efficient kernel, flash attention taking no mask: 2 + 2 + 2 + 2 + 1 = 9 kernels.
        update = [op("aten::arange", (ARANGE, 2)), op("aten::add", (ADD, 2)),
                  op("aten::index_copy_", (INDEX_COPY, 2)), op("aten::index_copy_", (INDEX_COPY, 2)),
                  op("aten::arange", (ARANGE, 2)), op("aten::le", (LE, 2))]
        attention = op("aten::scaled_dot_product_attention", under=(
            op("aten::logical_not", (LOGICAL_NOT, 2)), op("aten::where", (WHERE, 2)),
            op("aten::_scaled_dot_product_efficient_attention", (MEM_EFFICIENT, 40 if long else 8))))
    else:
        # two cat of the cache and this step's keys and values; flash attention, causal in the prefill only: 3.
        update = [op("aten::cat", (CAT, 3)), op("aten::cat", (CAT, 3))] if not long else []
        attention = op("aten::scaled_dot_product_attention", under=(
            op("aten::_scaled_dot_product_flash_attention", (FLASH, 30 if long else 6)),))
    return [norm, decoder_linear(30 if long else 6), op("aten::unbind"), *update, attention,
            decoder_linear(15 if long else 4), op("aten::add", (ADD, 2)), norm, decoder_linear(60 if long else 12),
            op("aten::chunk"), op("aten::silu", (SILU, 3)), op("aten::mul", (MUL, 3)),
            decoder_linear(30 if long else 10), op("aten::add", (ADD, 2))]


def eager_forward(cache, tokens):
    """The decoder's forward and the next token's argmax, eager: the two embeddings, the positions' arange and the
    adds (5 kernels), eight blocks, the final norm and the head (2), the argmax (1): 5 + 8 × 19 + 3 = 160 kernels
    a step with the static cache."""
    long = tokens > 1
    layers = [call for _ in range(8) for call in eager_layer(cache, tokens)]
    return [op("aten::embedding", (GATHER_LARGE, 2)), op("aten::arange", (ARANGE, 2)), op("aten::add", (ADD, 2)),
            op("aten::embedding", (GATHER_LARGE, 2)), op("aten::add", (ADD, 2)), *layers,
            op("aten::rms_norm", under=(op("aten::_fused_rms_norm", (RMS_NORM, 2)),)),
            decoder_linear(120 if long else 16), op("aten::slice"), op("aten::argmax", (ARGMAX, 3))]


def inductor_calls(cache, tokens):
    """The kernels of Inductor's graph for ``tokens``, each under its host op (a Triton kernel's own, or the extern
    kernel's aten op). With the static cache, the causal mask first: the same in every block, computed once
    (AOTAutograd's CSE), arange, le and SDPA's boolean-to-float conversion fused. Then per block a fused norm (the
    first with the embeddings, the others with the residual's add), the four GEMMs left to cuBLAS, one kernel for
    the cache update (both index_copy_, or the keys' and values' cat, none in the dynamic cache's prefill), SDPA's
    kernel, the fused SiLU and multiply: 9 a block (8 in the dynamic prefill); then the final add and norm fused,
    and the head's GEMM: 1 + 8 × 9 + 2 = 75 with the static cache."""
    long = tokens > 1

    def triton(kind, fused, number, us):
        name = f"triton_{kind}_fused_{fused}_{number}"
        return op(name, (name, us))

    calls = [triton("poi", "arange_le_logical_not_scalar_tensor_where", 40, 2)] if cache == "static" else []
    for layer in range(8):
        first = "add_arange_embedding_mean_mul_pow_rsqrt" if layer == 0 else "add_mean_mul_pow_rsqrt"
        calls += [triton("per", first, 4 * layer, 3 if long else 2), op("aten::mm", (GEMM, 30 if long else 6))]
        if cache == "static":
            calls += [triton("poi", "arange_index_copy", 4 * layer + 1, 2),
                      op("aten::_scaled_dot_product_efficient_attention", (MEM_EFFICIENT, 40 if long else 8))]
        else:
            calls += [triton("poi", "cat", 4 * layer + 1, 3)] if not long else []
            calls.append(op("aten::_scaled_dot_product_flash_attention", (FLASH, 30 if long else 6)))
        calls += [op("aten::mm", (GEMM, 15 if long else 4)), triton("per", "add_mean_mul_pow_rsqrt", 4 * layer + 2, 2),
                  op("aten::mm", (GEMM, 60 if long else 12)), triton("poi", "mul_silu", 4 * layer + 3, 3),
                  op("aten::mm", (GEMM, 30 if long else 10))]
    return [*calls, triton("per", "add_mean_mul_pow_rsqrt", 33, 2), op("aten::mm", (GEMM, 120 if long else 16))]


def inductor_graph(cache, tokens, graph):
    """The compiled region ``0/graph`` (0 the prefill's, then the decode steps') and Inductor's call in it."""
    return op(f"Torch-Compiled Region: 0/{graph}", under=(
        op(f"## Call CompiledFxGraph f{graph}decode ##", under=tuple(inductor_calls(cache, tokens))),))


def argmax():
    return [op("aten::slice", under=(op("aten::as_strided"),)), op("aten::argmax", (ARGMAX, 3))]


def generation(forward):
    """The profiled generation: ``forward(phase, step)`` gives the calls of step 0 (the prefill, 512 tokens) and
    of each decode step 1 to 15 (one token), each in its phase's region, one ProfilerStep a step."""
    made = iter(range(16))

    def per_step(start, ids):
        step = next(made)
        name = "prefill bs=1 toks=512" if step == 0 else "decode bs=1 toks=1"
        return region(name, forward(step), start, ids)

    return steps(per_step, 16, counter())


def decoding_compiled(cache):
    # Static cache: the prefill runs graph 0/0, every decode step 0/1. Dynamic cache: the first decode step runs
    # 0/1, the later ones 0/2, compiled for a cache of any length.
    def graph(step):
        return 0 if step == 0 else 1 if cache == "static" or step == 1 else 2

    return generation(lambda step: [inductor_graph(cache, 512 if step == 0 else 1, graph(step)), *argmax()])


def reduce_overhead_step(start, ids, name, graph, tokens):
    """A step of mode="reduce-overhead": its region, the compiled region and Inductor's call, in which CUDA graph
    trees copy the new token ids into the graph's static input (the cache's buffers are static), then replay the
    recorded graph with one ``cudaGraphLaunch``: the 75 kernels of ``inductor_calls``, all of that launch's
    correlation; then the argmax, eager. (events, host end, GPU end)"""
    replayed = [kernel for _, kernels, _ in inductor_calls("static", tokens) for kernel in kernels]
    copied, host, gpu_end = ops([op("aten::copy_", (COPY, 2))], start + 3, ids)
    launch, own = next(ids), next(ids)
    events = [*copied, cpu("cudaGraphLaunch", host + 1, 8, kind="runtime", correlation=launch, external_id=own)]
    at = max(host + 6, gpu_end)
    for kernel, us in replayed:
        events.append(gpu(kernel, at, us, correlation=launch, external_id=own))
        at += us
    host += 10
    events = [cpu(name, start, 0, kind="annotation"), cpu(f"Torch-Compiled Region: 0/{graph}", start + 1, host - start),
              cpu(f"## Call CompiledFxGraph f{graph}decode ##", start + 2, host - start - 2), *events]
    tail, end, tail_gpu = ops(argmax(), host + 2, ids)
    tail = [{**event, "ts": max(event["ts"], at)} if event["cat"] == "kernel" else event for event in tail]
    events += tail
    events[0]["dur"] = end + 1 - start
    return events, end + 1, max(tail_gpu, at + 3)


def decoding_reduce_overhead():
    made = iter(range(16))

    def per_step(start, ids):
        step = next(made)
        return reduce_overhead_step(start, ids, "prefill bs=1 toks=512" if step == 0 else "decode bs=1 toks=1",
                                    0 if step == 0 else 1, 512 if step == 0 else 1)

    return steps(per_step, 16, counter())


PREDICTIONS.update({
    # Eager, static cache: 160 kernels a step (eager_forward), and no compiled region in any.
    "serving-decode-eager": Prediction(generation(lambda step: eager_forward("static", 512 if step == 0 else 1)),
                                       {}),
    # Compiled, static cache: every decode step runs 0/1, one Inductor call, 75 kernels (inductor_calls) and the
    # argmax's: 76 against the eager 160 a step, the median of each over its sixteen steps: 160 / 76. No
    # compilation, and without CUDA graphs no cudaGraphLaunch.
    "serving-decode-compiled": Prediction(decoding_compiled("static"), {
        "On a GPU, the compiled decode step should launch at most half as many kernels as the eager one": 160 / 76,
        "and replay no CUDA graph: the default mode captures none": 0}),
    # reduce-overhead: each of the fifteen decode steps holds one cudaGraphLaunch, under its 0/1.
    "serving-decode-reduce-overhead": Prediction(decoding_reduce_overhead(), {
        "On a GPU, each decode step should replay its graph with one `cudaGraphLaunch`": 15}),
    # Dynamic cache: the first decode step runs 0/1, the fourteen after it 0/2.
    "serving-decode-dynamic-compiled": Prediction(decoding_compiled("dynamic"), {}),
})
