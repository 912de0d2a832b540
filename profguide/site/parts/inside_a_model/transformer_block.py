"""The recordings of Part 5, Inside a model: a small decoder block trained, eager and compiled."""

from profguide.site.parts.inside_a_model.mlp import CPP_KERNEL
from profguide.site.recordings import (
    BackwardOverForward,
    Claim,
    Figure,
    NamedInRegion,
    PerStepFall,
    Recording,
    RegionCount,
    RegionShare,
    TimesLogged,
)

PAGE = "inside-a-model/transformer-block.md"
BLOCK = "snippets.inside_a_model.transformer_block"
STEPS = 4
SIZES = {"layers": 4, "width": 1024, "heads": 16, "hidden": 4096, "batch": 8, "tokens": 512}
# One thread: on the small shared machine that makes the stand-ins, an op split over two threads waits for the
# second, and the parts' shares would measure that wait.
SIZES_ON_CPU = {"layers": 2, "width": 256, "heads": 4, "hidden": 1024, "batch": 4, "tokens": 128, "threads": 1}
EAGER = "model-block-eager"
PARTS = ("norm", "attention", "MLP", "optimizer")
COMPILED_REGION = "Torch-Compiled Region: 0/0"  # the block's one compiled frame, its first compilation
FORWARD = "CompiledFunction"  # the compiled forward's op; its backward is CompiledFunctionBackward
# What torch 2.13's Dynamo logs, once, where it treats a record_function as a context that does nothing
# (torch/_dynamo/variables/ctx_manager.py, ProfilerRecordFunctionContextVariable).
IGNORED = "Profiler record function <class 'torch.autograd.profiler.record_function'> will be ignored"


def block_run(compiled, claims, compared_with=""):
    """One training step a ProfilerStep; the parts of the eager forward are regions (compiling drops them)."""
    return Recording(
        id="model-block-compiled" if compiled else EAGER,
        module=BLOCK,
        # Compiled, the run keeps Dynamo's log as its results: the page quotes what Dynamo said of the regions.
        function="profile_block_logged" if compiled else "profile_block",
        params={"compiled": compiled, "steps": STEPS, **SIZES},
        cpu_params=SIZES_ON_CPU,
        title="{layers} pre-norm decoder blocks (width {width}, {heads} heads, MLP {hidden}) trained on {batch} × "
              "{tokens} tokens, " + ("compiled" if compiled else "eager") + ": {steps} steps",
        figure=Figure(step=2, trees=(FORWARD,) if compiled else ()),
        claims=claims,
        compared_with=compared_with,
    )


def claim(page_words, measure, at_least, at_most=None, device=None):
    return Claim(PAGE, page_words, measure, at_least=at_least, at_most=at_least if at_most is None else at_most,
                 device=device)


def on_cpu(page_words, measure, at_least, at_most=None):
    return claim(page_words, measure, at_least, at_most, device="cpu")


def on_gpu(page_words, measure, at_least, at_most=None):
    return claim(page_words, measure, at_least, at_most, device="cuda")


def no_region(page_words, region):
    return claim(page_words, RegionCount(region), 0)


RECORDINGS = (
    block_run(False, (
        on_cpu("On the CPU, the MLP takes the largest share of the steps", RegionShare("MLP", among=PARTS), 1),
        on_cpu("more than half", RegionShare("MLP"), 0.5, 1),
        on_cpu("Attention takes about a quarter", RegionShare("attention"), 0.18, 0.32),
        on_cpu("the optimizer about a twentieth", RegionShare("optimizer"), 0.035, 0.07),
        on_cpu("the norms a few percent", RegionShare("norm"), 0.01, 0.09),
        on_cpu("The MLP's backward takes about twice as long as its forward", BackwardOverForward("MLP"), 1.6, 2.4),
        on_cpu("so does attention's", BackwardOverForward("attention"), 1.6, 2.4),
        on_gpu("the MLP should still take the largest share of device time",
               RegionShare("MLP", time="device", among=PARTS), 1),
    )),
    block_run(True, (
        no_region("the compiled run's trace holds no `norm` region", "norm"),
        no_region("no `attention` region", "attention"),
        no_region("and no `MLP` region", "MLP"),
        claim("The compiled run logged it once", TimesLogged(IGNORED), 1),
        on_cpu("On the CPU, the compiled backward takes about three fifths of the steps",
               RegionShare(COMPILED_REGION, passes="backward"), 0.52, 0.68),
        on_cpu("On the CPU, the compiled forward holds one fused kernel for each norm",
               NamedInRegion(FORWARD, CPP_KERNEL, containing="_mean_mul_pow_rsqrt"), 2 * SIZES_ON_CPU["layers"]),
        on_cpu("All but the first of those kernels start with `_unsafe_view_add`",
               NamedInRegion(FORWARD, CPP_KERNEL + "_unsafe_view_add", containing="_mean_mul_pow_rsqrt"),
               2 * SIZES_ON_CPU["layers"] - 1),
        on_gpu("On a GPU, the compiled step should launch between a quarter and two thirds as many kernels as the "
               "eager one", PerStepFall("kernels", EAGER), 1.5, 4),
    ), compared_with=EAGER),
)
