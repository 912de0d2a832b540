"""The recordings of Part 2, Reading the output: Memory."""

from profguide.site.recordings import (
    Claim,
    FreesInRegion,
    MemoryLeftAtEnd,
    MemoryRatioAtEnd,
    Recording,
    RowValue,
    Table,
)

PAGE = "reading-output/memory.md"
ZERO_GRAD = "Optimizer.zero_grad#Adam.zero_grad"
# The snippet's model: three Linear layers, a weight and a bias each.
PARAMETER_TENSORS = 6

RECORDINGS = (
    Recording(
        id="reading-memory",
        module="snippets.reading_output.memory",
        function="profile_memory_steps",
        params={"width": 2048, "batch": 256, "steps": 5},
        cpu_params={"width": 512, "batch": 64},
        title="{steps} training steps of a {width}-wide MLP with Adam, batch {batch}, memory profiled",
        tables=(
            Table("memory", sort_by="cpu_memory_usage", row_limit=12),
            Table("self-memory", sort_by="self_cpu_memory_usage", row_limit=8),
        ),
        memory_timeline=True,
        claims=(
            Claim(PAGE, "Adam keeps two running averages for every parameter, so its state is twice the size of "
                        "the parameters", MemoryRatioAtEnd("OPTIMIZER_STATE", "PARAMETER"), at_least=1.9,
                  at_most=2.1),
            Claim(PAGE, "the gradients, as large as the parameters, stay from one step to the next",
                  MemoryRatioAtEnd("GRADIENT", "PARAMETER"), at_least=0.9, at_most=1.1),
            Claim(PAGE, "activations come and go inside each step: none are left when the last step ends",
                  MemoryLeftAtEnd("ACTIVATION"), at_least=0, at_most=0.01),
            Claim(PAGE, "the row of `Optimizer.zero_grad#Adam.zero_grad` has a negative Self CPU Mem of a few "
                        "megabytes", RowValue(ZERO_GRAD, "self_cpu_memory_bytes"), at_least=-10_000_000,
                  at_most=-1_000_000, device="cpu"),
            # On the CPU only: the CUDA caching allocator reports the free of every block, profiled or not.
            Claim(PAGE, "the first recorded `zero_grad` records no free at all", FreesInRegion(ZERO_GRAD, "first"),
                  at_least=0, at_most=0, device="cpu"),
            Claim(PAGE, "on a GPU run, the first recorded `zero_grad` should record its six frees too",
                  FreesInRegion(ZERO_GRAD, "first"), at_least=PARAMETER_TENSORS, at_most=PARAMETER_TENSORS,
                  device="cuda"),
            Claim(PAGE, "the last one records one free for each of the model's six weights and biases",
                  FreesInRegion(ZERO_GRAD, "last"), at_least=PARAMETER_TENSORS, at_most=PARAMETER_TENSORS),
            Claim(PAGE, "`AddmmBackward0` allocates megabytes", RowValue("AddmmBackward0", "cpu_memory_bytes"),
                  at_least=1_000_000, at_most=100_000_000, device="cpu"),
            Claim(PAGE, "yet its own Self CPU Mem is zero", RowValue("AddmmBackward0", "self_cpu_memory_bytes"),
                  at_least=0, at_most=0, device="cpu"),
            Claim(PAGE, "`autograd::engine::evaluate_function: AddmmBackward0` is the autograd engine running one "
                        "backward node: inside it, the gradients and saved tensors the node no longer needs are "
                        "freed, more than its own allocations",
                  RowValue("autograd::engine::evaluate_function: AddmmBackward0", "self_cpu_memory_bytes"),
                  at_least=-100_000_000, at_most=-1, device="cpu"),
        ),
    ),
)
