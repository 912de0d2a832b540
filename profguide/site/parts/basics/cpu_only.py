"""The recording of Basics, *Without a GPU*: the matmul plus bias add with the CPU alone."""

from profguide.site.measures.results import CpuShare
from profguide.site.measures.timing import Encloses
from profguide.site.recordings import Claim, Recording

PAGE = "basics/cpu-only.md"

RECORDINGS = (
    Recording(
        id="basics-cpu-only",
        module="snippets.basics.cpu_only",
        function="profile_on_cpu",
        params={"size": 1024},
        device="cpu",
        title="Matmul plus bias add on {size}×{size} inputs, CPU only",
        claims=(
            Claim(PAGE, "the region on top, `aten::matmul` and under it `aten::mm`",
                  Encloses("aten::matmul", "aten::mm"), at_least=1, at_most=1),
            Claim(PAGE, "`aten::mm` alone has most of the self CPU time",
                  CpuShare("aten::mm", "matmul_bias"), at_least=0.5, at_most=0.9),
        ),
    ),
)
