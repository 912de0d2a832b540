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
        (folder / "memory-timeline.json").write_text(json.dumps([[0, 1], [[0] * 9, [0] + [1] * 8]]))
    if run.results is not None:
        (folder / "results.json").write_text(json.dumps(run.results))
    facts = {"pid": 4242 + rank, "device_name": DEVICE, "torch": "2.13.0", "cuda": "13.0", "python": "3.12",
             "platform": "Linux x86_64"}
    (folder / "process.json").write_text(json.dumps(facts))


# Part 6, Graphs and compiled decoding
# The decoder of serving-a-model/compiled-decoding.md at its CUDA sizes (8 layers, width 1024, 16 heads of 64, MLP
# 4096, a vocabulary of 32000, batch 1, a prompt of 512 tokens), in bfloat16 on an H200. Its profiled generation is
# sixteen ProfilerSteps: #1 the prefill's region, #2 to #16 one decode step's region each.
RMS_NORM = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float, true>(int)"
ARANGE = "void (anonymous namespace)::elementwise_kernel_with_index<int, at::native::arange_cuda_out_lambda>(int)"
INDEX_COPY = "void at::native::index_elementwise_kernel<128, 4, at::native::index_copy_kernel_impl<c10::BFloat16>>(int)"
LE = "void at::native::vectorized_elementwise_kernel<4, at::native::CompareFunctor<long>>(int)"  # elementwise
LOGICAL_NOT = "void at::native::vectorized_elementwise_kernel<4, at::native::logical_not_kernel_cuda>(int)"
EMBEDDING = ("void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, "
             "-2, true>(int)")
SILU = "void at::native::vectorized_elementwise_kernel<4, at::native::silu_kernel>(int)"  # elementwise
CAT = ("void at::native::(anonymous namespace)::CatArrayBatchedCopy_vectorized<at::native::(anonymous namespace)::"
       "OpaqueType<2u>, unsigned int, 4, 64, 64, 16>(int)")
ARGMAX = ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::BFloat16, at::native::ArgMaxOps<float>, "
          "unsigned int, long, 4>>(int)")
EFFICIENT = ("fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t, "
             "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)")


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
            op("aten::_scaled_dot_product_efficient_attention", (EFFICIENT, 40 if long else 8))))
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
    return [op("aten::embedding", (EMBEDDING, 2)), op("aten::arange", (ARANGE, 2)), op("aten::add", (ADD, 2)),
            op("aten::embedding", (EMBEDDING, 2)), op("aten::add", (ADD, 2)), *layers,
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
                      op("aten::_scaled_dot_product_efficient_attention", (EFFICIENT, 40 if long else 8))]
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
