"""A recording as the build reads it: its spec, provenance, traces and summary rows, each loaded once."""

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from profguide import trace as trace_io
from profguide.site.launch import rank_file


@dataclass(eq=False)
class RecordingData:
    """One recording's folder, loaded on first use. ``trace`` and ``rows`` are rank 0's."""

    recording: object
    folder: Path

    @cached_property
    def meta(self):
        return json.loads((self.folder / "meta.json").read_text())

    @property
    def ranks(self):
        return self.meta.get("ranks", 1)

    @property
    def params(self):
        return self.meta["params"]

    @property
    def title(self):
        return self.recording.title_with(self.params)

    def trace_path(self, rank=0):
        return self.folder / rank_file("trace.json.gz", rank, self.ranks)

    @cached_property
    def traces(self):
        return tuple(trace_io.load(self.trace_path(rank)) for rank in range(self.ranks))

    @property
    def trace(self):
        return self.traces[0]

    @cached_property
    def rows(self):
        return json.loads((self.folder / rank_file("averages.json", 0, self.ranks)).read_text())
