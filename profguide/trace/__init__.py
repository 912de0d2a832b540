"""A torch.profiler trace: ``model`` (kinds, ``Trace``, ``Slice``) and ``loader`` (file → ``Trace``)."""

from profguide.errors import TraceError
from profguide.trace.loader import load, parse, trace_files
from profguide.trace.model import Slice, Trace

__all__ = ["Slice", "Trace", "TraceError", "load", "parse", "trace_files"]
