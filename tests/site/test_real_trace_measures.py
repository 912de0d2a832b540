"""profguide.analysis.kernel_resources: the kernel footprint that the measures KernelFootprint, OccupancyLimit and
OccupancyReadsZero read (their known answers: tests/site/measures/test_kernels.py), worked out by hand."""

import json

from profguide.analysis import kernel_resources
from tests.helpers import gpu_event as gpu
from tests.site.measures.test_kernels import GEMM, H100, KERNELS


def test_how_many_blocks_of_a_kernel_fit_on_an_sm_by_each_limit():
    fits = {launch.name: kernel_resources.fit(launch)
            for launch in kernel_resources.launches_of(json.dumps({"traceEvents": list(KERNELS),
                                                                   "deviceProperties": [H100]}).encode())}
    # flash: 4 warps a block. A warp takes 255 × 32 = 8160 registers, 8192 rounded up to 256; a quarter of the SM's
    # 65536 holds 16384 // 8192 = 2 warps, the SM 8, so 8 // 4 = 2 blocks. Shared memory: the system reserves
    # 233472 - 232448 = 1024 bytes a block, so 233472 // (49152 + 1024) = 4. Warps: 64 // 4 = 16. Blocks: 32.
    flash = fits["flash_fwd_kernel"]
    assert flash.by == {"registers": 2, "shared memory": 4, "warps": 16, "blocks": 32}
    assert (flash.blocks, flash.limited_by, flash.theoretical) == (2, ("registers",), 2 * 4 / 64)
    # The GEMM: 12 warps; 168 × 32 = 5376 registers a warp, 3 warps a quarter, 12 an SM: 1 block; and
    # 233472 // (231424 + 1024) = 1 by shared memory: both limit it, to 12 of 64 warps.
    gemm = fits[GEMM]
    assert (gemm.blocks, gemm.limited_by, gemm.theoretical) == (1, ("registers", "shared memory"), 12 / 64)
    # A small elementwise block: 20 × 32 = 640 registers, 768 rounded up: 21 warps a quarter, 84 an SM, 21 blocks;
    # no shared memory; 64 // 4 = 16 by warps, the least: every warp an SM holds.
    tiny = fits["elementwise_kernel"]
    assert (tiny.by["shared memory"], tiny.blocks, tiny.limited_by, tiny.theoretical) == (None, 16, ("warps",), 1)
    assert kernel_resources.fit(kernel_resources.Launch("k", 1.0, "", 32, 0, 128, 1, None, {"warpSize": 32})) is None


def test_a_trace_without_footprints_gives_none(tmp_path):
    path = tmp_path / "rocm.json"
    # A ROCm trace's kernels carry a grid and a block but no registers or shared memory.
    path.write_text(json.dumps({"traceEvents": [gpu("attn_fwd", 0, 5, device=0, block=[256, 1, 1], grid=[8, 1, 1])],
                                "deviceProperties": [{"id": 0, "warpSize": 64}]}))
    assert kernel_resources.kernel_launches(path) == []
    assert kernel_resources.kernel_launches(tmp_path / "missing.json") == []
