"""What a recording is, and the claims a page makes about one: plain data, no behaviour.

The recordings themselves are listed by part in ``profguide.site.parts`` and
gathered in ``profguide.site.catalogue``. A recording names a function in one of the snippet packages under
``snippets/``, the parameters to call it with, how many processes run it,
how to annotate its timeline, and the sentences of the guide that describe
what it shows. Each recording runs in fresh processes, as a reader's script
would; ``profguide.site.launch`` starts them. Each claim is checked against
the recording's data by ``profguide.site.claims`` whenever the site is built.

Standard library only: ``profguide record`` imports this on a bare GPU machine.
"""

from dataclasses import asdict, dataclass, field, fields
from typing import Annotated, Literal, get_type_hints

# What each string a measure holds stands for. The claims check (``profguide.site.claims.unknown_names``) looks
# every one up before it measures, because a misspelt name is not an absent one: a count of the events named
# "aten::adddmm" is 0, and "the region holds no aten::add" would hold for it. A name must occur in a run the claim
# reads, in a real trace of the guide's, or in torch's operator registry; a closed set's member must be one of
# the set.
Event = Annotated[str, "event"]  # an event's whole name: an op, a region, a runtime call, a summary-table row
NamePart = Annotated[str, "name part"]  # a part of some event's name, as written (case too): a kernel's, an op's
Module = Annotated[str, "module"]  # an nn.Module class, as torch names its calls: ``nn.Module: <class>_<n>``
RunId = Annotated[str, "run"]  # the id of a recording or a real trace of the guide's
TableName = Annotated[str, "table"]  # the name of one of the recording's extra tables (``Table.name``)
# Closed sets that the analysis defines; profguide.site.claims.CLOSED_SETS lists their members.
IdleCause = Annotated[str, "idle cause"]
HostActivity = Annotated[str, "host activity"]
MemoryCategory = Annotated[str, "memory category"]
Verdict = Annotated[str, "verdict"]
RuleId = Annotated[str, "rule"]
CompileKey = Annotated[str, "compile marker"]
DiffField = Annotated[str, "diff field"]
DiffKey = Annotated[str, "diff key"]  # an entry of a diff field by key (its host activities, its idle causes)
DiffRow = Annotated[str, "diff row"]  # a row of the diff's kernels or ops: a name, or a kernel family by role
# A matrix multiply's input shapes as the trace records them ("[[8944, 1024], [1024, 2816]]"): one of the shapes the
# run's matrix multiplies record (a closed set, ``allowed("gemm shapes")``).
GemmShapes = Annotated[str, "gemm shapes"]
Configuration = Annotated[str, "configuration"]  # a configuration the snippet measured (``results.json``)
LogMessage = Annotated[str, "log message"]  # a message the snippet kept from torch's log (``results.json``)
# A function of the stacks export_stacks wrote (``results.json``), by its whole name: ``block`` for ``x.py(12):_block``.
PythonFunction = Annotated[str, "python function"]
DeviceKey = Annotated[str, "device property"]  # a key of the trace's ``deviceProperties`` (``numSms``…)
KernelFamily = Annotated[str, "kernel family"]
FamilyField = Annotated[str, "family field"]
FamilyValue = Annotated[str, "family value"]  # a value of the family field, as the family splits write it
# The columns of a summary row, as profguide.site.record.averages_rows writes them.
Column = Literal["count", "self_cpu_us", "cpu_total_us", "self_device_us", "device_total_us", "cpu_memory_bytes",
                 "self_cpu_memory_bytes", "device_memory_bytes", "self_device_memory_bytes"]
FirstOrLast = Literal["first", "last"]
LeastOrMost = Literal["least", "most"]
Time = Literal["cpu", "device"]
DiffRowKind = Literal["kernels", "ops"]


@dataclass(frozen=True)
class Figure:
    """How to annotate a recording's timeline.

    Attributes:
        brackets: names of events to measure with a bracket above the lanes (the first of each, where present).
        highlight: names of events to outline.
        callouts: names of events to number in this order (the first of each, where present).
        spread: the op whose durations the spread chart plots when the recording has no kernels.
        region: the ``record_function`` region whose calls the calls table compares.
        step: the ``ProfilerStep#N`` the timeline draws, with the GPU work it launched; None draws the whole trace.
        trees: events whose call tree (their first occurrence) the chains fragment prints; without them, it
            prints every ``record_function`` region's.
    """

    brackets: tuple[str, ...] = ()
    highlight: tuple[str, ...] = ()
    callouts: tuple[str, ...] = ()
    spread: str | None = None
    region: str | None = None
    step: int | None = None
    trees: tuple[str, ...] = ()


@dataclass(frozen=True)
class Table:
    """A summary table the recorder prints besides the default one, into ``table-<name>.txt``.

    The arguments are those of ``key_averages(...)`` and ``.table(...)``, so a
    page can show the call that printed the table it includes.
    """

    name: str
    sort_by: str = "cpu_time_total"
    row_limit: int = 10
    group_by_input_shape: bool = False
    group_by_stack_n: int = 0

    @property
    def file(self):
        return f"table-{self.name}.txt"


class Measure:
    """What a claim measures on a recording: each kind is a frozen dataclass that subclasses this and says in
    ``describe`` what it measures; ``profguide.site.claims`` registers the function that computes it."""

    def describe(self):
        raise NotImplementedError


@dataclass(frozen=True)
class FirstOverRest(Measure):
    """The first occurrence of ``region`` over the slowest of the others (``ProfilerStep`` means every step)."""

    region: Event

    def describe(self):
        return f"first {self.region} / slowest later {self.region}"


@dataclass(frozen=True)
class SlowestOverFastest(Measure):
    """The slowest occurrence of ``region`` over the fastest."""

    region: Event

    def describe(self):
        return f"slowest {self.region} / fastest {self.region}"


@dataclass(frozen=True)
class CpuShare(Measure):
    """``part``'s CPU time (its self time, or its total) over ``whole``'s CPU total, from the summary table."""

    part: Event
    whole: Event
    self_time: bool = True

    def describe(self):
        kind = "self" if self.self_time else "total"
        return f"{self.part} {kind} CPU time / {self.whole} CPU total"


@dataclass(frozen=True)
class OutsideOps(Measure):
    """The share of the calls of ``region`` after the first spent in no op, over their total duration."""

    region: Event

    def describe(self):
        return f"time in no op / duration, {self.region} calls after the first"


@dataclass(frozen=True)
class DeviceShare(Measure):
    """GPU time of the kernels the op ``part`` launched over the GPU time of all kernels."""

    part: Event

    def describe(self):
        return f"{self.part} kernel time / all kernel time"


@dataclass(frozen=True)
class StepCount(Measure):
    """How many ``ProfilerStep#N`` the recording holds."""

    def describe(self):
        return "recorded ProfilerSteps"


@dataclass(frozen=True)
class StepNumber(Measure):
    """The number of the first or the last recorded ``ProfilerStep#N``."""

    which: FirstOrLast

    def describe(self):
        return f"{self.which} recorded ProfilerStep number"


@dataclass(frozen=True)
class Encloses(Measure):
    """1 when the first ``inner`` event lies inside the first ``outer`` one, else 0."""

    outer: Event
    inner: Event

    def describe(self):
        return f"{self.outer} encloses {self.inner} (1 yes, 0 no)"


@dataclass(frozen=True)
class GpuBusyShare(Measure):
    """GPU busy time over the window from the first GPU op's start to the last one's end."""

    def describe(self):
        return "GPU busy time / GPU window"


@dataclass(frozen=True)
class ExplainBusyShare(Measure):
    """GPU busy time over the window ``profguide explain`` measures (its ``gpu_busy_pct``): on a trace of steps,
    the GPU ops launched in the last ``ProfilerStep`` left out, as HolisticTraceAnalysis does."""

    def describe(self):
        return "GPU busy time / explain's window"


@dataclass(frozen=True)
class SyncOverKernels(Measure):
    """The longest host synchronisation over the total time of the kernels."""

    def describe(self):
        return "longest host sync / kernel time"



@dataclass(frozen=True)
class RowValue(Measure):
    """One number of one summary-table row (``averages.json``): ``count``, ``self_cpu_memory_bytes``…"""

    name: Event
    column: Column

    def describe(self):
        return f"{self.name} {self.column}"


@dataclass(frozen=True)
class ColumnShare(Measure):
    """``part``'s value in one column of the summary table over ``whole``'s value in the same column."""

    part: Event
    whole: Event
    column: Column

    def describe(self):
        return f"{self.part} {self.column} / {self.whole} {self.column}"


@dataclass(frozen=True)
class OpsInRegion(Measure):
    """How many ``op`` events the first occurrence of the region ``region`` holds, at any depth; with ``under``,
    only those nested, at any depth, in an ``under`` event of it."""

    region: Event
    op: Event
    under: Event = ""

    def describe(self):
        nested = f" under {self.under}" if self.under else ""
        return f"{self.op}{nested} in {self.region}"


@dataclass(frozen=True)
class PythonCallsInRegion(Measure):
    """The first occurrence of the ``record_function`` region ``region``: how many Python calls (``"calls"``: the
    ``python_function`` events that ``with_stack`` records) or ops (``"ops"``) lie wholly inside it on its thread
    (start and end inside it: the ``__exit__`` that closes the region, which returns after its end, is left out),
    or the first over the second (``"calls per op"``)."""

    region: Event
    count: Literal["calls", "ops", "calls per op"]

    def describe(self):
        what = {"calls": "Python calls", "ops": "ops", "calls per op": "Python calls / ops"}[self.count]
        return f"{what} in the first {self.region}"


@dataclass(frozen=True)
class OccupancyQueries(Measure):
    """Occupancy queries against launches of one kernel family (``gemm``, ``elementwise``, ``other``):
    ``of="queries"``, the share of queries whose next launch is of the family; ``of="launches"``, the share
    of the family's launches (those whose kernel name holds ``name_contains``) that come right after a query."""

    family: Literal["gemm", "elementwise", "other"]
    of: Literal["queries", "launches"]
    name_contains: NamePart = ""

    def describe(self):
        if self.of == "queries":
            return f"occupancy queries followed by a {self.family} launch / all queries"
        which = f"{self.family} launches" + (f" of kernels named *{self.name_contains}*" if self.name_contains else "")
        return f"{which} right after an occupancy query / all such launches"


@dataclass(frozen=True)
class CommunicationHidden(Measure):
    """The share of the communication kernels' time that overlaps computation kernels, over the whole trace; with
    ``kernels``, of the communication kernels whose names hold it alone (``AllReduce``)."""

    kernels: NamePart = ""

    def describe(self):
        which = f"communication kernels named *{self.kernels}*" if self.kernels else "communication"
        return f"{which} overlapping computation / {which}"


@dataclass(frozen=True)
class CommunicationExposed(Measure):
    """Exposed communication over a step's window, for the step where it is smallest or largest
    (``which``: "least" or "most"), among the steps with communication."""

    which: LeastOrMost

    def describe(self):
        return f"exposed communication / step window, the step with the {self.which}"


@dataclass(frozen=True)
class TableRows(Measure):
    """How many rows named ``name`` an extra table (``Table``) of the recording prints."""

    table: TableName
    name: Event

    def describe(self):
        return f"rows of {self.name} in table {self.table}"


@dataclass(frozen=True)
class IdleShare(Measure):
    """GPU idle time of one cause (a key of ``profguide.analysis.idle.IDLE_CAUSES``) over the window
    ``profguide explain`` measures."""

    cause: IdleCause

    def describe(self):
        return f"GPU idle time, cause {self.cause} / explain's window"


@dataclass(frozen=True)
class DeviceSetupShare(Measure):
    """The host's time in device set-up over the window ``profguide explain`` measures."""

    def describe(self):
        return "device set-up / explain's window"


@dataclass(frozen=True)
class DeviceSetupCall(Measure):
    """The host's time in the device set-up calls named ``call`` over all its time in device set-up, over the
    window ``profguide explain`` measures: each the union over threads (the time when some thread was in such a
    call), so the share is at most 1 even where set-up calls on two threads overlap."""

    call: Event

    def describe(self):
        return f"device set-up in {self.call} / all device set-up"


@dataclass(frozen=True)
class IdleBelowHtas(Measure):
    """How much lower explain's GPU idle share of a real trace is than the one HolisticTraceAnalysis reported for
    it, which leaves out the ops launched before the trace began (percentage points of the window, over 100)."""

    def describe(self):
        return "GPU idle share HTA reported − explain's"


@dataclass(frozen=True)
class QueueingOverLaunch(Measure):
    """The median queueing (op behind earlier work) over the median launch delay (runtime API, stream empty)."""

    def describe(self):
        return "median queueing / median launch delay"


@dataclass(frozen=True)
class LaunchGap(Measure):
    """The median time from a launch call's end to the start of its GPU op, for the ops that met an empty stream
    (``"launch delay"``, runtime API launches) or queued behind earlier work (``"queueing"``): in µs, or with
    ``per_step`` over the median ``ProfilerStep``."""

    kind: Literal["launch delay", "queueing"]
    per_step: bool = False

    def describe(self):
        return f"median {self.kind}" + (" / median ProfilerStep" if self.per_step else ", µs")


@dataclass(frozen=True)
class SyncsPerStep(Measure):
    """The fewest host synchronisation calls in any one ``ProfilerStep``."""

    def describe(self):
        return "fewest host sync calls in a ProfilerStep"


@dataclass(frozen=True)
class SyncOverStep(Measure):
    """The longest host synchronisation over the median ``ProfilerStep``."""

    def describe(self):
        return "longest host sync / median ProfilerStep"


@dataclass(frozen=True)
class MeanOverMedian(Measure):
    """The mean duration of the kernel with the most total time over its median."""

    def describe(self):
        return "top kernel's mean duration / its median"


@dataclass(frozen=True)
class PeakShare(Measure):
    """Achieved TFLOP/s of the matrix multiply with the most kernel time over the datasheet's peak for the
    device and input type."""

    def describe(self):
        return "achieved TFLOP/s / datasheet peak"


@dataclass(frozen=True)
class MemoryLeftAtEnd(Measure):
    """The bytes memory category ``category`` holds at the end of the memory timeline over its peak."""

    category: MemoryCategory

    def describe(self):
        return f"{self.category} at the end of the memory timeline / its peak"


@dataclass(frozen=True)
class MemoryRatioAtEnd(Measure):
    """The bytes of memory category ``part`` over those of ``whole``, at the end of the memory timeline."""

    part: MemoryCategory
    whole: MemoryCategory

    def describe(self):
        return f"{self.part} / {self.whole} at the end of the memory timeline"


@dataclass(frozen=True)
class OpsInStep(Measure):
    """How many ops ran inside the first or the last recorded ``ProfilerStep#N``."""

    which: FirstOrLast

    def describe(self):
        return f"ops in the {self.which} recorded ProfilerStep"


@dataclass(frozen=True)
class StepTimeRatio(Measure):
    """The median step time of configuration ``part`` over that of ``whole``, from the recording's results."""

    part: Configuration
    whole: Configuration

    def describe(self):
        return f"median step time, {self.part} / {self.whole}"


@dataclass(frozen=True)
class TimesLogged(Measure):
    """How many times the run logged ``message``, as the snippet kept torch's log in its results
    (``results.json``: ``{"logged": [message, …]}``)."""

    message: LogMessage

    def describe(self):
        return f"times the run logged {self.message!r}"


@dataclass(frozen=True)
class DeviceProperty(Measure):
    """A number the trace's ``deviceProperties`` give its first GPU: ``numSms`` (its SMs, or an AMD GPU's compute
    units), ``totalGlobalMem`` (bytes)…"""

    key: DeviceKey

    def describe(self):
        return f"the first GPU's {self.key}"


@dataclass(frozen=True)
class HostShare(Measure):
    """The share of the recorded steps that the thread running them spent in ``activity`` (a key of
    ``profguide.analysis.host.CPU_ACTIVITIES``), on a recording without GPU work."""

    activity: HostActivity

    def describe(self):
        return f"host time in {self.activity} / recorded steps"


@dataclass(frozen=True)
class HostShareFall(Measure):
    """The ``baseline`` recording's ``HostShare`` of ``activity`` over this recording's."""

    activity: HostActivity
    baseline: RunId

    def describe(self):
        return f"share of the steps in {self.activity}, {self.baseline} / this recording"


@dataclass(frozen=True)
class HostLead(Measure):
    """Host time in ``activity`` over the largest other activity, in the recorded step where it leads least."""

    activity: HostActivity

    def describe(self):
        return f"{self.activity} / the largest other host activity, least over the steps"


@dataclass(frozen=True)
class VerdictIs(Measure):
    """1 when ``profguide explain`` gives the recording's trace the verdict ``verdict``, else 0."""

    verdict: Verdict

    def describe(self):
        return f"explain's verdict is {self.verdict} (1 yes, 0 no)"


@dataclass(frozen=True)
class DiffValue(Measure):
    """A number of ``profguide diff`` from the run this one is compared with (``compared_with``) to this one: the
    ``part`` (before, after, change, ratio or change_pct) of the diff's ``field`` (step_us, gpu_busy_pct,
    launches…; for a field by key, such as host_pct, the entry ``key``)."""

    field: DiffField
    part: Literal["before", "after", "change", "ratio", "change_pct"] = "ratio"
    key: DiffKey = ""

    def describe(self):
        what = f"{self.field} of {self.key}" if self.key else self.field
        return f"diff from the run compared with: {what}, {self.part}"


@dataclass(frozen=True)
class DiffRows(Measure):
    """How many rows of ``profguide diff``'s ``rows`` (kernels or ops) have ``status`` (added, removed, changed,
    same), from the run this one is compared with to this one."""

    rows: DiffRowKind
    status: Literal["added", "removed", "changed", "same"]

    def describe(self):
        return f"diff from the run compared with: {self.rows} {self.status}"


@dataclass(frozen=True)
class RuleFixed(Measure):
    """1 when the rule ``rule`` fires on the run this one is compared with and not on this one, else 0."""

    rule: RuleId

    def describe(self):
        return f"rule {self.rule} fires on the run compared with and not on this one (1 yes, 0 no)"


@dataclass(frozen=True)
class RanksNamed(Measure):
    """The share of the recording's rank traces whose ``distributedInfo`` names their own rank and the job's size."""

    def describe(self):
        return "rank traces whose distributedInfo names their rank and the world size / all"


@dataclass(frozen=True)
class BackendOutsideCall(Measure):
    """The share of rank 0's backend ops of ``collective`` (``gloo:all_reduce``…) that run outside the
    ``c10d::`` call that asked for them, on another thread."""

    collective: NamePart = "all_reduce"

    def describe(self):
        return f"backend {self.collective} ops outside their c10d call / all"


@dataclass(frozen=True)
class EnclosedShare(Measure):
    """The share of rank 0's ``inner`` events that an event whose name holds ``outer`` encloses, on one thread."""

    inner: Event
    outer: NamePart

    def describe(self):
        return f"{self.inner} inside *{self.outer}* / all {self.inner}"


@dataclass(frozen=True)
class CollectivesPerStep(Measure):
    """The fewest backend ops of ``collective`` that start in any one ``ProfilerStep`` of rank 0."""

    collective: NamePart = "all_reduce"

    def describe(self):
        return f"fewest {self.collective} ops in a ProfilerStep"


@dataclass(frozen=True)
class CommStreamShare(Measure):
    """Of the kernel time on the streams that run NCCL kernels, the share that is NCCL kernels."""

    def describe(self):
        return "NCCL kernel time / all kernel time on NCCL's streams"


@dataclass(frozen=True)
class StragglerIs(Measure):
    """1 when the straggler of the recording's ranks (``profguide explain DIR``'s) is rank ``rank``, else 0."""

    rank: int

    def describe(self):
        return f"the straggler is rank {self.rank} (1 yes, 0 no)"


@dataclass(frozen=True)
class StragglerWait(Measure):
    """The longest time another rank waited for the straggler in their collectives, over that rank's window
    (``profguide explain DIR``'s)."""

    def describe(self):
        return "longest wait for the straggler / that rank's window"


@dataclass(frozen=True)
class RanksLineUp(Measure):
    """1 when the ranks' collectives, matched by name, stream and order, end together on every rank (up to
    each rank's clock offset), else 0: sampled or unlike traces do not line up."""

    def describe(self):
        return "the ranks' matched collectives end together (1 yes, 0 no)"


@dataclass(frozen=True)
class PerStepFall(Measure):
    """The ``baseline`` recording's median ``count`` per ProfilerStep over this recording's: ``ops`` (every op),
    ``aten_ops`` (ops named ``aten::``) or ``kernels`` (by their launch call's start)."""

    count: Literal["ops", "aten_ops", "kernels"]
    baseline: RunId

    def describe(self):
        return f"{self.count} per step, {self.baseline} / this recording"


@dataclass(frozen=True)
class NamedInRegion(Measure):
    """How many events whose name starts with ``prefix`` (and holds ``containing``) the first occurrence of the
    region ``region`` holds, at any depth: for names that carry a hash or a number (``## Call CompiledFxGraph
    <hash> ##``)."""

    region: Event
    prefix: NamePart
    containing: NamePart = ""

    def describe(self):
        holding = f" holding {self.containing}" if self.containing else ""
        return f"{self.prefix}…{holding} in {self.region}"


@dataclass(frozen=True)
class FirstOverMedian(Measure):
    """The first occurrence of ``region`` over the median of the others."""

    region: Event

    def describe(self):
        return f"first {self.region} / median later {self.region}"


@dataclass(frozen=True)
class CallsThatCompile(Measure):
    """How many occurrences of the region ``region`` hold a torch.compile compilation."""

    region: Event

    def describe(self):
        return f"{self.region} occurrences that compiled"


@dataclass(frozen=True)
class SyncInsideStep(Measure):
    """The longest host synchronisation that starts inside a ``ProfilerStep``, over that step's duration: the
    largest such share over the steps."""

    def describe(self):
        return "longest host sync inside a ProfilerStep / that step"


@dataclass(frozen=True)
class LongestSyncAfterSteps(Measure):
    """1 when the trace's longest host synchronisation starts after the last ``ProfilerStep`` has ended (the
    profiler's own sync when it stops), else 0."""

    def describe(self):
        return "the longest host sync starts after the last ProfilerStep (1 yes, 0 no)"


@dataclass(frozen=True)
class KernelSpread(Measure):
    """Over the kernels whose name holds ``name_contains``, each name on its own, ``statistic`` (``"p95"`` or
    ``"mean"``) of its durations over their median: the largest when ``which`` is "most", the smallest when
    "least"."""

    name_contains: NamePart
    statistic: Literal["mean", "p95", "max"]
    which: LeastOrMost

    def describe(self):
        return f"{self.statistic} / median of a kernel named *{self.name_contains}*, the {self.which} over them"


@dataclass(frozen=True)
class OpMedianOver(Measure):
    """The median duration of the op ``op`` here over its median duration in the recording ``baseline``."""

    op: Event
    baseline: RunId

    def describe(self):
        return f"median {self.op}, this trace / {self.baseline}"


@dataclass(frozen=True)
class BusiestGemmSpread(Measure):
    """The calls of the matrix multiply (op, input shapes, input type) with the most kernel time, the first row of
    the TFLOP/s table: ``statistic`` of each call's kernel time over their median. The same work every call, so
    the spread is the GPU's own."""

    statistic: Literal["p95", "max"]

    def describe(self):
        return f"{self.statistic} / median kernel time of a call, the busiest matrix multiply's calls"


@dataclass(frozen=True)
class GemmCallsNamed(Measure):
    """The share of the calls of the matrix multiply ``op`` on inputs of the shapes ``shapes`` whose GEMM kernels
    all hold ``contains`` in their names (a tile, ``MT128x224x64``): the kernel a library picked for one shape."""

    op: Event
    shapes: GemmShapes
    contains: NamePart

    def describe(self):
        return f"calls of {self.op} on {self.shapes} whose GEMM kernels are named *{self.contains}* / all of them"


@dataclass(frozen=True)
class GemmCallRatio(Measure):
    """The median kernel time of a call of the matrix multiply ``op`` on inputs of the shapes ``shapes`` over that
    of a call of ``op`` on ``other``: two multiplies of one trace, such as two of the same FLOPs in other shapes."""

    op: Event
    shapes: GemmShapes
    other: GemmShapes

    def describe(self):
        return f"median kernel time of a call of {self.op} on {self.shapes} / on {self.other}"


@dataclass(frozen=True)
class OpOverKernelMedian(Measure):
    """The median duration of the op ``op`` over the median duration of the trace's kernels: the host's time for
    one op against the GPU's for one kernel, both from one trace."""

    op: Event

    def describe(self):
        return f"median {self.op} / median kernel"


@dataclass(frozen=True)
class FreesInRegion(Measure):
    """How many frees the trace's memory events record inside the first or the last occurrence of the region
    ``region`` (``which``: "first" or "last"), on its thread."""

    region: Event
    which: FirstOrLast

    def describe(self):
        return f"frees recorded in the {self.which} {self.region}"


@dataclass(frozen=True)
class QueriesInside(Measure):
    """The share of the occupancy queries (``cudaOccupancy…`` calls) made inside an op whose name holds ``op``."""

    op: NamePart

    def describe(self):
        return f"occupancy queries inside an op named *{self.op}* / all queries"


@dataclass(frozen=True)
class OpMedianInRegions(Measure):
    """The median duration of the op ``op`` where it starts inside an occurrence of the region ``region`` (on its
    thread; where it ends does not matter), over the same inside the occurrences of ``other``: one op in two kinds
    of call of one run."""

    op: Event
    region: Event
    other: Event

    def describe(self):
        return f"median {self.op} inside {self.region} / inside {self.other}"


@dataclass(frozen=True)
class FreedInside(Measure):
    """What the row ``name`` frees outside its ops over what the ops inside it allocate, from the summary table's
    CPU (``memory="cpu"``) or device memory columns: minus its self memory over its memory less its self memory.
    1 when a region frees, between its ops, all that they allocated."""

    name: Event
    memory: Time = "cpu"

    def describe(self):
        return f"{self.name}'s frees / its ops' allocations, {self.memory} memory"


@dataclass(frozen=True)
class CommunicationByCall(Measure):
    """The share of the communication kernels' time, added one by one, that the backend op ``call``
    (``nccl:all_reduce``) launched, joined by correlation whatever the kernels' names
    (``profguide.analysis.collectives.communication_by_call``)."""

    call: Event

    def describe(self):
        return f"communication kernel time launched by {self.call} / all communication kernel time"


@dataclass(frozen=True)
class CommunicationKernelNamed(Measure):
    """The share of the communication kernels' time, added one by one, of the kernels whose name holds
    ``contains``; with ``call``, among the kernels that the backend op ``call`` launched alone (joined as
    ``CommunicationByCall`` joins them)."""

    contains: NamePart
    call: Event = ""

    def describe(self):
        among = f"communication kernel time launched by {self.call}" if self.call else "all communication kernel time"
        return f"time of communication kernels named *{self.contains}* / {among}"


@dataclass(frozen=True)
class KernelsDecoded(Measure):
    """The kernels (launches) of ``family`` as their names decode (``profguide.analysis.families.kernel_family``):
    with no ``field``, how many there are; with one, the share of them whose ``field`` reads ``value`` (as the
    family splits write it: ``yes``/``no`` for tensor cores, ``unknown`` where the name does not say), or with
    ``count`` how many of them."""

    family: KernelFamily
    field: FamilyField = ""
    value: FamilyValue = ""
    count: bool = False

    def describe(self):
        if not self.field:
            return f"{self.family} kernels"
        said = f"{self.family} kernels whose names say {self.field} {self.value}"
        return said if self.count else f"{said} / all {self.family} kernels"


@dataclass(frozen=True)
class RankHostShare(Measure):
    """The share of rank ``rank``'s recorded steps that its main thread spent in ``activity`` (a key of
    ``profguide.analysis.host.CPU_ACTIVITIES``), on a recording without GPU work; with ``label``, only the
    activity's time under that name (a region's, among the activity's three largest)."""

    rank: int
    activity: HostActivity
    label: Event = ""

    def describe(self):
        under = f", under {self.label}" if self.label else ""
        return f"rank {self.rank}'s host time in {self.activity}{under} / its recorded steps"


@dataclass(frozen=True)
class LargestBucketShare(Measure):
    """The largest ``all_reduce`` of a ``ProfilerStep`` over the bytes all the step's all-reduces carried, in
    the step where that share is least (``profguide.analysis.collectives.step_buckets``)."""

    def describe(self):
        return "bytes of a step's largest all_reduce / all its all_reduces' bytes, least over the steps"


@dataclass(frozen=True)
class OverheadEvents(Measure):
    """How many events of the profiler's own work (an ``Activity Buffer Request``, a ``Buffer Flush``) the
    trace holds."""

    def describe(self):
        return "events of the profiler's own overhead"


@dataclass(frozen=True)
class OpsWithShapes(Measure):
    """The share of the trace's ops that carry their input shapes (the ``Input Dims`` that ``record_shapes``
    adds)."""

    def describe(self):
        return "ops with input shapes / all ops"


@dataclass(frozen=True)
class KernelsJoined(Measure):
    """The share of the kernels whose ``External id`` is that of an op: those the trace joins to the op that
    launched them; ``before``: of the others, the share that start before the first joined one."""

    before: bool = False

    def describe(self):
        if self.before:
            return "kernels joined to no op that start before the first joined one / all kernels joined to no op"
        return "kernels joined to an op by External id / all kernels"


@dataclass(frozen=True)
class RegionTimeRatio(Measure):
    """The first occurrence of the region ``region``: its duration (``part="in all"``), its time in the ops
    directly under it (``"in ops"``) or in no op (``"outside ops"``), over the most of the occurrences of ``other``
    that start after it."""

    region: Event
    other: Event
    part: Literal["in all", "in ops", "outside ops"]

    def describe(self):
        return f"first {self.region}'s time {self.part} / the most of a later {self.other}'s"


@dataclass(frozen=True)
class LaunchedBy(Measure):
    """Of the kernels whose name holds ``kernels`` (in any case) and whose launch call the trace holds, the share
    that one of the calls named ``calls`` launched (``cuLaunchKernel``, ``cudaGraphLaunch``…)."""

    calls: tuple[Event, ...]
    kernels: NamePart = "triton"

    def describe(self):
        return f"kernels named *{self.kernels}* launched by {' or '.join(self.calls)} / all such kernels launched"


@dataclass(frozen=True)
class CompileMarker(Measure):
    """One number ``profguide explain`` reports of what torch.compile left in the trace: a key of
    ``profguide.analysis.compile.compile_markers`` (``cuda_graph_launches``, ``triton_kernels``…)."""

    key: CompileKey

    def describe(self):
        return f"explain's compile {self.key}"


@dataclass(frozen=True)
class SelfTimeRatio(Measure):
    """The self time (the part no event under it covers) of the first event whose name starts with ``prefix``
    inside the first ``region``, over the same inside the first ``other``."""

    prefix: NamePart
    region: Event
    other: Event

    def describe(self):
        return f"self time of {self.prefix}…, in {self.region} / in {self.other}"


@dataclass(frozen=True)
class MedianStepRatio(Measure):
    """This recording's median ``ProfilerStep`` over the ``baseline`` recording's."""

    baseline: RunId

    def describe(self):
        return f"median ProfilerStep, this recording / {self.baseline}"


@dataclass(frozen=True)
class CompileShare(Measure):
    """The first occurrence of the region ``region``: the time of the compilations inside it over its duration."""

    region: Event

    def describe(self):
        return f"compiling / duration, the first {self.region}"



@dataclass(frozen=True)
class RegionShare(Measure):
    """The calls of the ``record_function`` region ``region``, with the backward functions joined to them by
    sequence number (``passes="both"``), or one pass alone (``"forward"``, ``"backward"``): their CPU time over the
    ProfilerSteps' (``time="cpu"``), or the GPU time launched inside them over all that the trace joins to an op or
    region (``"device"``). ``among`` set: 1 when this share is the largest of those regions' shares, else 0."""

    region: Event
    time: Time = "cpu"
    passes: Literal["forward", "backward", "both"] = "both"
    among: tuple[Event, ...] = ()

    def describe(self):
        what = f"{self.region} {self.passes} {self.time} time / all steps'"
        return f"{what}, the largest of {', '.join(self.among)} (1 yes, 0 no)" if self.among else what


@dataclass(frozen=True)
class RegionCount(Measure):
    """How many calls of the ``record_function`` region ``region`` the trace holds (0 when none)."""

    region: Event

    def describe(self):
        return f"calls of the region {self.region}"


@dataclass(frozen=True)
class BackwardOverForward(Measure):
    """The backward functions joined to the region ``region``: their CPU (or device) time over its calls'."""

    region: Event
    time: Time = "cpu"

    def describe(self):
        return f"{self.region} backward {self.time} time / its forward's"


@dataclass(frozen=True)
class KernelsPerCall(Measure):
    """The GPU ops (kernels, copies, sets) launched inside the calls of the region ``region`` (the forward alone),
    or of the modules of the class ``module``, per call."""

    region: Event = ""
    module: Module = ""

    def describe(self):
        return f"GPU ops launched per call of {self.region or 'module ' + self.module}"


@dataclass(frozen=True)
class ModuleShare(Measure):
    """The GPU time launched inside the forward calls of the modules of the class ``module`` (``nn.Module: …``
    events) over all the GPU time that the trace joins to an op or region; with ``ops``, that of the ops so named
    inside those calls over the modules' own."""

    module: Module
    ops: tuple[Event, ...] = ()

    def describe(self):
        if self.ops:
            return f"device time of {', '.join(self.ops)} inside {self.module} / {self.module}'s"
        return f"{self.module} device time / all device time joined to an op"


@dataclass(frozen=True)
class DiffRowRatio(Measure):
    """The row ``name`` of ``profguide diff``'s ``rows`` (kernels or ops), from the run this one is compared with to
    this one: its time per step after over before."""

    rows: DiffRowKind
    name: DiffRow

    def describe(self):
        return f"diff from the run compared with: {self.rows} {self.name}, time after / before"


# The columns of the op view (profguide.analysis.ops.op_rows) that a measure reads, an op's calls added up.
OpColumn = Literal["calls", "cpu_us", "self_cpu_us", "device_us", "self_device_us"]
# What a kernel's footprint gives (profguide.analysis.kernel_resources): as the trace records it, the blocks of it that
# fit on one SM (in all, or by one limit), the theoretical occupancy, and the trace's own occupancy column.
FootprintValue = Literal["registers", "shared memory", "threads", "blocks", "blocks by registers",
                         "blocks by shared memory", "blocks by warps", "theoretical", "recorded"]
OccupancyLimitKind = Literal["registers", "shared memory", "warps", "blocks"]


@dataclass(frozen=True)
class OpTotal(Measure):
    """One column of the op view (``profguide explain --ops``) for the op ``op``, its calls of every input shape
    added up: how many ``calls``, their CPU time (``cpu_us``, ``self_cpu_us``), or the time of the GPU ops
    launched inside them (``device_us``) or by them alone (``self_device_us``). From the trace, where
    ``RowValue`` reads a recording's summary table, which a real trace does not have."""

    op: Event
    column: OpColumn

    def describe(self):
        return f"{self.op} {self.column}, every call"


@dataclass(frozen=True)
class OpShare(Measure):
    """``part``'s value in one column of the op view over ``whole``'s (``OpTotal``'s columns)."""

    part: Event
    whole: Event
    column: OpColumn

    def describe(self):
        return f"{self.part} {self.column} / {self.whole} {self.column}, every call"


@dataclass(frozen=True)
class NestedIn(Measure):
    """How many events named ``inner`` (ops, regions, runtime or driver calls) start inside a call of the op or
    region ``outer`` on its thread (where they end does not matter), per call of ``outer``, over every call of
    it."""

    outer: Event
    inner: Event

    def describe(self):
        return f"{self.inner} inside {self.outer}, per call of {self.outer}"


@dataclass(frozen=True)
class OpsPerCall(Measure):
    """How many ops whose names start with ``prefix`` lie wholly inside a call of the op or region ``region`` (start
    and end inside it), on its thread and at any depth: the median over its calls."""

    region: Event
    prefix: NamePart = "aten::"

    def describe(self):
        return f"{self.prefix}… ops inside a call of {self.region}, median over its calls"


@dataclass(frozen=True)
class KernelsInside(Measure):
    """The GPU ops (kernels, copies, sets) launched inside the calls of the op ``op`` or of the modules of the
    class ``module``, by them or by anything under them, per call: those whose owner (the innermost op or region
    open at the launch) starts inside the call on its thread; with ``family``, only those whose names decode to it
    (``profguide.analysis.families.kernel_family``); with ``named``, only those whose names hold it."""

    op: Event = ""
    module: Module = ""
    family: KernelFamily = ""
    named: NamePart = ""

    def describe(self):
        kind = f"{self.family} GPU ops" if self.family else "GPU ops"
        kind += f" named *{self.named}*" if self.named else ""
        return f"{kind} launched per call of {self.op or 'module ' + self.module}"


@dataclass(frozen=True)
class KernelFootprint(Measure):
    """Over the launches of the kernels whose name holds ``kernels`` (in lower case), the median of one number of
    their footprint as the trace records it (``profguide.analysis.kernel_resources``): ``registers`` a thread,
    ``shared memory`` a block, ``threads`` a block; how many ``blocks`` fit on one SM of the GPU the trace's
    ``deviceProperties`` describe (or fit by one limit: ``blocks by registers``…); the ``theoretical`` occupancy
    those blocks give; or the trace's own ``est. achieved occupancy %`` (``recorded``), both as fractions."""

    kernels: NamePart
    value: FootprintValue

    def describe(self):
        return f"median {self.value} of the kernels named *{self.kernels}*"


@dataclass(frozen=True)
class OccupancyLimit(Measure):
    """Of the launches of the kernels whose name holds ``kernels``, the share whose blocks on one SM are limited
    by ``limit`` (``registers``, ``shared memory``, ``warps``, ``blocks``), alone or with another limit."""

    kernels: NamePart
    limit: OccupancyLimitKind

    def describe(self):
        return f"launches of *{self.kernels}* limited by {self.limit} / all its launches"


@dataclass(frozen=True)
class OccupancyReadsZero(Measure):
    """Of a trace's kernel launches whose occupancy column and footprint it records, the share whose column
    (``est. achieved occupancy %``) reads 0. Only the launches made by one of ``calls``, of kernels whose name
    holds ``kernels``, whose blocks use more shared memory than the GPU's default per-block limit (``above
    default``) or no more (``within default``), and, with ``full_grid``, whose grid gives every SM a block."""

    calls: tuple[Event, ...] = ()
    kernels: NamePart = ""
    shared_memory: Literal["", "above default", "within default"] = ""
    full_grid: bool = False

    def describe(self):
        which = [f"launched by {' or '.join(self.calls)}"] if self.calls else []
        which += [f"named *{self.kernels}*"] if self.kernels else []
        which += [f"with shared memory {self.shared_memory} a block"] if self.shared_memory else []
        which += ["with a block for every SM"] if self.full_grid else []
        return f"kernel launches reading 0 % occupancy / all{' ' + ', '.join(which) if which else ''}"


@dataclass(frozen=True)
class SyncBusyShare(Measure):
    """The GPU's busy time during the longest host synchronisation over that synchronisation's duration."""

    def describe(self):
        return "GPU busy during the longest host sync / its duration"


@dataclass(frozen=True)
class FreedOutsideOps(Measure):
    """Over the calls of the region ``region``: the memory that the allocator's events on its thread record on
    the CPU (``memory="cpu"``) or on a GPU (``"device"``) outside every op, freed, over what they record inside
    its ops. 1 when a region frees between its ops all that they allocated: ``FreedInside`` from the trace's own
    events, where a real trace has no summary table."""

    region: Event
    memory: Literal["cpu", "device"] = "device"

    def describe(self):
        return f"{self.region}'s frees outside its ops / its ops' allocations, {self.memory} memory, from the events"


@dataclass(frozen=True)
class CallCount(Measure):
    """How many runtime or driver calls whose name starts with ``prefix`` the trace holds."""

    prefix: NamePart

    def describe(self):
        return f"runtime and driver calls named {self.prefix}…"


@dataclass(frozen=True)
class TimerRatio(Measure):
    """The median duration of the op ``op`` in the trace over the median of ``torch.utils.benchmark``'s Timer
    for the same op, in the same process (``results.json``: ``{"timer": {"median_us": …}}``)."""

    op: Event

    def describe(self):
        return f"median {self.op} in the trace / the Timer's median"


@dataclass(frozen=True)
class StackLines(Measure):
    """How many lines ``export_stacks`` wrote, after a profile with ``experimental_config=_ExperimentalConfig(
    verbose=True)`` (``verbose``) or without it (``plain``) (``results.json``: ``{"stacks": [line, …],
    "stacks_without_option": [line, …]}``)."""

    which: Literal["verbose", "plain"]

    def describe(self):
        return f"lines export_stacks wrote ({self.which} profile)"


@dataclass(frozen=True)
class StackTime(Measure):
    """The time of the exported stacks that pass through a frame whose function is ``frame`` (its whole name:
    ``block`` for ``snippets/x.py(12):_block``), over that of the stacks through ``over`` (all of them when empty)
    (``results.json``, as ``StackLines``)."""

    frame: PythonFunction
    over: PythonFunction = ""

    def describe(self):
        return f"stack time under {self.frame} / under {self.over or 'any frame'}"


@dataclass(frozen=True)
class ExecutionTraceCovers(Measure):
    """The share of the trace's ops and ``record_function`` regions that the execution trace recorded beside it
    holds a node of the same name for, name by name and call by call (``results.json``:
    ``{"nodes_by_name": {name: count}}``)."""

    def describe(self):
        return "ops and regions with an execution-trace node / ops and regions in the trace"


@dataclass(frozen=True)
class LastCollective(Measure):
    """The number of the last collective in rank ``rank``'s flight recorder (``results.json``: ``{"ranks":
    [[{"seq": …, "name": …}, …], …]}``, each rank's collectives in order)."""

    rank: int

    def describe(self):
        return f"the last collective in rank {self.rank}'s flight recorder"


@dataclass(frozen=True)
class Claim:
    """A sentence of the guide about a recording, and the measurement that must back it.

    Attributes:
        page: the page that says it, relative to ``docs/``.
        says: the words as the page writes them (line breaks aside); the check finds them there.
        measure: what to measure on the recording.
        at_least: the measured value must be at least this, when given.
        at_most: the measured value must be at most this, when given.
        device: ``"cpu"`` or ``"cuda"`` for a claim about runs on that device only; None for any.
    """

    page: str
    says: str
    measure: Measure
    at_least: float | None = None
    at_most: float | None = None
    device: str | None = None

    def bound(self):
        """The bound in words: '0.5 to 0.9', '= 3', or, open on one side, '≥ 2' or '≤ 0.5'."""
        if self.at_least is not None and self.at_least == self.at_most:
            return f"= {self.at_least:g}"
        if self.at_least is not None and self.at_most is not None:
            return f"{self.at_least:g} to {self.at_most:g}"
        parts = []
        if self.at_least is not None:
            parts.append(f"≥ {self.at_least:g}")
        if self.at_most is not None:
            parts.append(f"≤ {self.at_most:g}")
        return " and ".join(parts)


def runs_compared(claim, recording):
    """The ids of the other runs a claim of ``recording`` reads: those its measure names (its fields annotated
    ``RunId``), and the run ``recording`` is compared with."""
    hints = get_type_hints(type(claim.measure), include_extras=True)
    named = {getattr(claim.measure, item.name) for item in fields(claim.measure) if hints[item.name] == RunId}
    return named | ({recording.compared_with} if recording.compared_with else set())


def exactly(page, says, measure, value, device=None):
    """A claim that ``measure`` is ``value``, no more and no less."""
    return Claim(page, says, measure, at_least=value, at_most=value, device=device)


@dataclass(frozen=True)
class Recording:
    """One profiler run that the guide shows.

    Attributes:
        id: folder name under ``docs/generated/``.
        module: the snippet module, importable from the project root (``snippets.basics.index``).
        function: the snippet function that runs the workload under the profiler and returns it.
        title: what the recording shows; ``{name}`` fields are filled from the parameters used.
        params: keyword arguments for ``function``.
        cpu_params: overrides for a recording meant for CUDA that is made on the CPU as a stand-in
            (a CPU multiplies hundreds of times slower than a GPU: the stand-in uses smaller sizes).
        device: the device the recording is meant for, ``"cuda"`` or ``"cpu"``.
        ranks: how many processes run the function together (one trace each).
        timeout_s: how long the processes may run.
        figure: how to annotate its timeline.
        claims: what the guide's pages say about it.
        tables: summary tables to print besides ``table.txt`` (grouped by input shape, by stack, sorted otherwise).
        memory_timeline: write ``memory-timeline.json`` with ``export_memory_timeline`` (the snippet must
            profile with ``profile_memory``, ``record_shapes`` and ``with_stack``).
        compared_with: the run this one is the after of, for ``profguide diff`` (its ``diff.md`` fragment and
            ``Diff…`` claims): a recording's or a real trace's id.

    A snippet function that returns a dict of plain values (rather than the
    profiler) has it written as ``results.json``: what it measured besides the trace.
    """

    id: str
    module: str
    function: str
    title: str
    params: dict = field(default_factory=dict)
    cpu_params: dict = field(default_factory=dict)
    device: str = "cuda"
    ranks: int = 1
    timeout_s: int = 600
    figure: Figure = Figure()
    claims: tuple[Claim, ...] = ()
    tables: tuple[Table, ...] = ()
    memory_timeline: bool = False
    compared_with: str = ""

    @property
    def snippet(self):
        """The snippet's path, relative to the project root."""
        return self.module.replace(".", "/") + ".py"

    def params_on(self, device):
        """The parameters a recording made on ``device`` uses."""
        if self.device == "cuda" and device == "cpu":
            return {**self.params, **self.cpu_params}
        return dict(self.params)

    def title_with(self, params):
        return self.title.format(**params)

    def exports(self):
        """What the recorder writes besides the trace and the default table, as plain data for its process."""
        return {"tables": [asdict(table) for table in self.tables], "memory_timeline": self.memory_timeline}


@dataclass(frozen=True)
class RealTrace:
    """A trace from a machine this project does not own, shown on a page with its source, licence and device.

    It is never recorded and never stale: the build renders the fragments
    pages include from it and checks its claims, as for a recording. Its
    provenance names the file, the source and the licence given here, and the
    device the trace's own ``deviceProperties`` name.

    Attributes:
        id: folder name under ``docs/generated/`` for its rendered fragments.
        file: the trace, relative to the project root, under ``docs/`` so that the site serves it.
        title: what the trace shows.
        source: who published it, in words (a link's text).
        source_url: where they published it.
        licence: the licence it is distributed under.
        figure: how to annotate its timeline (``step`` picks the step to draw).
        claims: what the guide's pages say about it (their ``device`` does not apply: the trace is what it is).
        files: for the ranks of one job, every rank's trace in rank order (``file`` is then the first):
            fragments of several ranks read them all.
        compared_with: the run this one is the after of, for ``profguide diff`` (as ``Recording``'s).
    """

    id: str
    file: str
    title: str
    source: str
    source_url: str
    licence: str
    figure: Figure = Figure()
    claims: tuple[Claim, ...] = ()
    files: tuple[str, ...] = ()
    compared_with: str = ""
