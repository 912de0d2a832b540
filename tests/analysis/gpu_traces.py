"""Small GPU traces built by hand that several analysis tests share."""

from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make


def small_gpu_trace():
    """A host that launches three kernels, syncs, then launches a fourth one late."""
    return make(
        cpu("region", 0, 200, kind="annotation"),
        cpu("aten::mm", 1, 20),
        cpu("cudaLaunchKernel", 5, 4, kind="runtime", correlation=1),
        cpu("cudaLaunchKernel", 10, 4, kind="runtime", correlation=2),
        cpu("cudaLaunchKernel", 30, 4, kind="runtime", correlation=3),
        cpu("cudaDeviceSynchronize", 40, 70, kind="runtime"),
        cpu("cudaLaunchKernel", 150, 10, kind="runtime", correlation=4),
        gpu("gemm", 15, 50, correlation=1),  # launched at 5, starts at 15
        gpu("add", 70, 10, correlation=2),  # queued since 14, starts 5 µs after gemm ends
        gpu("gemm", 85, 20, correlation=3),
        gpu("late", 170, 10, correlation=4),  # the host launched it after the sync: GPU idle 105..170
    )


DATALOADER = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"  # as torch 2.13 names it


class Loop:
    """A training loop written out as the profiler would record it: a host thread that runs regions and
    ops, each op launching one kernel that runs on one stream as soon as the stream is free."""

    def __init__(self):
        self.events, self.now, self.gpu_free, self.correlation = [], 0.0, 0.0, 0

    def region(self, name, dur, kind="annotation"):
        self.events.append(cpu(name, self.now, dur, kind=kind))

    def op(self, name="aten::add", host_us=10.0, kernel_us=20.0):
        """An op that spends ``host_us`` on the host, launching its kernel near its end."""
        self.correlation += 1
        launch_at = self.now + host_us - 4
        self.events += [cpu(name, self.now, host_us),
                        cpu("cudaLaunchKernel", launch_at, 3, kind="runtime", correlation=self.correlation)]
        start = max(launch_at + 3 + 2, self.gpu_free)
        self.events.append(gpu(f"{name}_kernel", start, kernel_us, correlation=self.correlation))
        self.gpu_free = start + kernel_us
        self.now += host_us

    def wait(self, us):
        """Time on the host in nothing the profiler records (Python between ops)."""
        self.now += us

    def item(self):
        """``loss.item()``: the host waits in a stream sync until the GPU is done."""
        until = max(self.gpu_free, self.now + 2) + 1
        self.events += [cpu("aten::item", self.now, until - self.now + 3),
                        cpu("aten::_local_scalar_dense", self.now + 1, until - self.now + 1),
                        cpu("cudaStreamSynchronize", self.now + 1, until - self.now, kind="runtime")]
        self.now = until + 3

    def trace(self, *extra):
        return make(*self.events, *extra)


def training_loop(steps=4, data_us=0.0, python_us=0.0, item=False, optimizer_ops=0, ops=3, host_us=10.0,
                  kernel_us=20.0, extra=()):
    """``steps`` steps of: load a batch, Python, ``ops`` forward ops, an optimizer step of tiny ops, ``.item()``."""
    loop = Loop()
    for step in range(steps):
        start = loop.now
        step_events = len(loop.events)
        if data_us:
            loop.region(DATALOADER, data_us)
            loop.wait(data_us)
        loop.wait(python_us)
        for _ in range(ops):
            loop.op("aten::mm", host_us=host_us, kernel_us=kernel_us)
        if optimizer_ops:
            loop.region("Optimizer.step#SGD.step", optimizer_ops * 30)
            for _ in range(optimizer_ops):
                loop.op("aten::_foreach_add_", host_us=28, kernel_us=2)
                loop.wait(2)
        if item:
            loop.item()
        loop.events.insert(step_events, cpu(f"ProfilerStep#{step}", start, loop.now - start, kind="annotation"))
    return loop.trace(*extra)


SECOND = 1_000_000.0
OLD_SCHEMA_CATEGORIES = {"cpu_op": "Operator", "cuda_runtime": "Runtime", "kernel": "Kernel"}  # as torch 1.x wrote


def old_schema_loop(workers, iterations=6):
    """The events of a training loop as torch 1.x's profiler wrote them, profiled without a schedule: no
    ProfilerStep, ``record_function`` regions (the DataLoader's ``__next__``, ``Optimizer.step#``) as ``Operator``
    events, and a first iteration of seconds (module loading on the first launch; with ``workers``, starting
    them). Each iteration loads a batch (30 ms in the main process with ``workers=0``, 0.2 ms from the workers
    otherwise), copies it to the GPU, runs 10 ms of kernels and an optimizer step, and waits in ``.item()``."""
    loop = Loop()
    iterator = "_MultiProcessingDataLoaderIter" if workers else "_SingleProcessDataLoaderIter"
    for iteration in range(iterations):
        load_us = (2 * SECOND if iteration == 0 else 200.0) if workers else 30_000.0
        loop.region(f"enumerate(DataLoader)#{iterator}.__next__", load_us, kind="cpu_op")
        loop.wait(load_us)
        loop.op("aten::copy_", host_us=20, kernel_us=300)
        if iteration == 0:  # the first launch of the model's kernels loads their module
            loop.events.append(cpu("cudaLaunchKernel", loop.now, 1.2 * SECOND, kind="runtime"))
            loop.wait(1.2 * SECOND)
        for _ in range(5):
            loop.op("aten::conv2d", host_us=40, kernel_us=2000)
        loop.region("Optimizer.step#SGD.step", 200, kind="cpu_op")
        for _ in range(5):
            loop.op("aten::add_", host_us=38, kernel_us=20)
            loop.wait(2)
        loop.item()
    return [{**event, "cat": OLD_SCHEMA_CATEGORIES[event["cat"]]} for event in loop.events]
