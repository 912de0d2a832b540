"""Every recording of the guide, in the order of its pages, and lookup by id (standard library only)."""

from profguide.errors import UsageError
from profguide.site.parts import (
    basics,
    compile_fusion,
    compile_regions,
    model_attention,
    model_block,
    model_linear,
    model_mlp,
    multigpu,
    multigpu_overlap,
    multigpu_ranks,
    reading_anti_patterns,
    reading_dispatch,
    reading_footprint,
    reading_input,
    reading_memory,
    reading_table,
    reading_waits,
    reference_around,
    reference_traces,
)

RECORDINGS = (
    *basics.RECORDINGS,
    *reading_table.RECORDINGS,
    *reading_dispatch.RECORDINGS,
    *reading_waits.RECORDINGS,
    *reading_input.RECORDINGS,
    *reading_memory.RECORDINGS,
    *reading_footprint.RECORDINGS,
    *reading_anti_patterns.RECORDINGS,
    *multigpu.RECORDINGS,
    *compile_regions.RECORDINGS,
    *compile_fusion.RECORDINGS,
    *model_linear.RECORDINGS,
    *model_mlp.RECORDINGS,
    *model_attention.RECORDINGS,
    *model_block.RECORDINGS,
    *reference_around.RECORDINGS,
)
# Traces from machines this project does not own, which pages show with their source (never recorded).
REAL_TRACES = (*basics.REAL_TRACES, *reading_table.REAL_TRACES, *reading_dispatch.REAL_TRACES,
               *reading_waits.REAL_TRACES, *multigpu.REAL_TRACES, *multigpu_overlap.REAL_TRACES,
               *multigpu_ranks.REAL_TRACES, *compile_fusion.REAL_TRACES, *compile_regions.REAL_TRACES,
               *model_linear.REAL_TRACES, *model_mlp.REAL_TRACES, *model_attention.REAL_TRACES,
               *reference_traces.REAL_TRACES)


def by_id(recording_id, recordings=RECORDINGS):
    """Return the recording named ``recording_id``; raise UsageError with the known ids."""
    for recording in recordings:
        if recording.id == recording_id:
            return recording
    known = ", ".join(r.id for r in recordings)
    raise UsageError(f"no recording named {recording_id!r} (known: {known})")
