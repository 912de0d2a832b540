"""What torch.compile leaves in a trace."""

from profguide.analysis.select import kinds_mask, names_where
from profguide.trace.model import KIND


def compile_markers(trace):
    """What torch.compile leaves in a trace: compiled regions, Triton kernels, CUDA graph launches."""

    def named(predicate, kinds):
        return names_where(trace, predicate) & kinds_mask(trace, kinds)

    regions = named(
        lambda n: "Torch-Compiled Region" in n or n.startswith("CompiledFunction"), ("annotation", "cpu_op")
    )
    triton = named(lambda n: n.startswith("triton_") or "triton" in n.lower(), ("kernel",))
    graphs = named(lambda n: n in ("cudaGraphLaunch", "hipGraphLaunch", "cuGraphLaunch"), ("runtime", "driver"))
    return {
        "compiled_regions": int(regions.sum()),
        "compiled_region_us": float(trace.dur[regions].sum()),
        "triton_kernels": int(triton.sum()),
        "triton_kernel_us": float(trace.dur[triton].sum()),
        "cuda_graph_launches": int(graphs.sum()),
        "driver_launches": int((trace.kind == KIND["driver"]).sum()),
    }
