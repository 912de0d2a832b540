"""The recordings of torch.compile, *What compiling costs*: the calls of a compiled function as its shapes change."""

from profguide.site.recordings import (
    CallsThatCompile,
    Claim,
    CompileShare,
    Figure,
    FirstOverMedian,
    Recording,
)

PAGE = "torch-compile/cost.md"


def calls_recording(recording_id, dynamic, claims):
    """The calls of the compiled function as the rows change, compiled with ``dynamic``: one of three runs that
    the cost page's calls table puts side by side."""
    return Recording(id=recording_id, module="snippets.torch_compile.cost", function="profile_calls",
                     params={"dynamic": dynamic, "cold": True},
                     title="The calls of a compiled x @ w + b as the rows of x change, dynamic={dynamic}",
                     figure=Figure(region="call"), claims=claims)


RECORDINGS = (
    calls_recording("compile-cost", None, (
        Claim(PAGE, "The first call took more than a thousand times as long as the calls after it",
              FirstOverMedian("call"), at_least=1000, at_most=10000),
        Claim(PAGE, "nearly all of it went to compiling", CompileShare("call"), at_least=0.9, at_most=1),
        Claim(PAGE, "the first new shape compiled again", CallsThatCompile("call"), at_least=2, at_most=2),
    )),
    calls_recording("compile-cost-static", False, (
        Claim(PAGE, "`dynamic=False` compiles once for each shape", CallsThatCompile("call"), at_least=3, at_most=3),
    )),
    calls_recording("compile-cost-dynamic", True, (
        Claim(PAGE, "`dynamic=True` compiles once, for every shape", CallsThatCompile("call"), at_least=1,
              at_most=1),
    )),
)
