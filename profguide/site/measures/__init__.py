"""What a claim measures on a run, each kind declared and computed in one place.

A measure is a frozen dataclass: its fields are its parameters, ``describe`` says in words what it measures, and
``value`` computes it from a run: a number, or None when the run cannot give one. The base class ``Measure`` and
``Run`` are declared in ``profguide.site.recordings``, beside the claims that hold measures.
The kinds are grouped by topic in the modules of this package; ``every_kind`` finds them all.

Standard library only at import: the pages' parts (``profguide.site.parts``) import these classes, and
``profguide record`` imports the parts on a bare GPU machine that has torch but neither numpy nor msgspec. So each
``value`` imports the analysis functions it calls inside itself, where only the build, never the recorder, runs it.
"""

import importlib
import pkgutil
from typing import Annotated, Literal

from profguide.site.recordings import Measure

# What each string a measure holds stands for. The claims check (``profguide.site.claims.unknown_strings``) looks
# every one up before it measures, because a misspelt name is not an absent one: a count of the events named
# "aten::adddmm" is 0, and "the region holds no aten::add" would hold for it. A name must occur in a run the claim
# reads, in a real trace of the guide's, or in torch's operator registry; a closed set's member must be one of
# the set.
Event = Annotated[str, "event"]  # an event's whole name: an op, a region, a runtime call, a summary-table row
NamePart = Annotated[str, "name part"]  # a part of some event's name, as written (case too): a kernel's, an op's
Module = Annotated[str, "module"]  # an nn.Module class, as torch names its calls: ``nn.Module: <class>_<n>``
TableName = Annotated[str, "table"]  # the name of one of the recording's extra tables (``Table.name``)
# Closed sets that the analysis defines, whose members profguide.site.claims.CLOSED_SETS lists. (An idle cause, a
# host activity, a verdict and a rule id are the Literals of profguide.analysis.vocabulary: the sets themselves.)
MemoryCategory = Annotated[str, "memory category"]
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


def every_kind() -> list[type[Measure]]:
    """Every kind of measure, from every module of this package, in the order of their modules and classes."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
    return sorted(Measure.__subclasses__(), key=lambda kind: (kind.__module__, kind.__qualname__))
