"""The recordings of Part 2, Reading the output: the summary table, column by column; and a real GPU trace's op
view for the device columns that a CPU stand-in lacks."""

from profguide.site.measures.memory import FreedInside, FreedOutsideOps
from profguide.site.measures.ops import OpShare, OpTotal
from profguide.site.measures.results import CpuShare, RowValue, TableRows
from profguide.site.parts import tracelens_trace
from profguide.site.recordings import Claim, Recording, Table

SUMMARY_TABLE = "snippets.reading_output.table"
PAGE = "reading-output/table.md"

RECORDINGS = (
    Recording(
        id="reading-table",
        module=SUMMARY_TABLE,
        function="profile_forward",
        params={"batches": [64, 64, 512]},
        title="A two-layer model's forward pass on batches of {batches}",
        tables=(
            Table("self", sort_by="self_cpu_time_total", row_limit=8),
            Table("by-shape", sort_by="cpu_time_total", row_limit=12, group_by_input_shape=True),
            Table("memory", sort_by="self_cpu_memory_usage", row_limit=6),
        ),
        claims=(
            Claim(PAGE, "`aten::linear` has almost no self time", CpuShare("aten::linear", "aten::linear"),
                  at_least=0, at_most=0.1),
            Claim(PAGE, "`forward` was called three times", RowValue("forward", "count"), at_least=3, at_most=3),
            Claim(PAGE, "grouped by input shape, `forward` still has one row", TableRows("by-shape", "forward"),
                  at_least=1, at_most=1),
            Claim(PAGE, "`aten::addmm` on four rows", TableRows("by-shape", "aten::addmm"), at_least=4, at_most=4),
            Claim(PAGE, "`aten::linear` allocates nothing itself", RowValue("aten::linear", "self_cpu_memory_bytes"),
                  at_least=0, at_most=0),
            Claim(PAGE, "the `forward` region's Self CPU Mem is negative", FreedInside("forward"),
                  at_least=1, at_most=1, device="cpu"),
            Claim(PAGE, "`aten::addmm` is where the work is, with more than half of all the self CPU time",
                  CpuShare("aten::addmm", "forward"), at_least=0.5, at_most=0.9, device="cpu"),
        ),
    ),
    Recording(
        id="reading-table-stacks",
        module=SUMMARY_TABLE,
        function="profile_with_stacks",
        device="cpu",
        title="The same model's forward pass with its Python stacks, on the CPU",
        tables=(Table("by-stack", sort_by="self_cpu_time_total", row_limit=4, group_by_stack_n=4),),
        claims=(
            Claim(PAGE, "`aten::addmm` appears once for each `nn.Linear`", TableRows("by-stack", "aten::addmm"),
                  at_least=2, at_most=2),
        ),
    ),
)

REAL_TRACES = (
    tracelens_trace(
        "reading-table-h100-bert", "h100-bert",
        claims=(
            Claim(PAGE, "the same kernel time appears on the rows of `aten::linear` and again on those of "
                  "`aten::addmm`", OpShare("aten::linear", "aten::addmm", "device_us"), at_least=0.99, at_most=1.01),
            Claim(PAGE, "`aten::linear` has no self device time", OpTotal("aten::linear", "self_device_us"),
                  at_least=0, at_most=0),
            Claim(PAGE, "its one step frees on the GPU, between its ops, all the device memory that its ops "
                  "allocated", FreedOutsideOps("ProfilerStep#6"), at_least=0.99, at_most=1.01),
        ),
    ),
)
