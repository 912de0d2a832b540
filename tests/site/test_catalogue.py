"""profguide.site.catalogue: recordings and real traces, each id once, each real trace served with its licence."""

from profguide.site.catalogue import REAL_TRACES, RECORDINGS
from tests.helpers import ROOT


def test_ids_are_unique_across_recordings_and_real_traces():
    ids = [item.id for item in (*RECORDINGS, *REAL_TRACES)]
    assert len(ids) == len(set(ids))


def test_every_real_trace_is_served_beside_its_licence_and_its_claims_name_no_device():
    assert REAL_TRACES
    for real in REAL_TRACES:
        path = ROOT / real.file
        assert path.is_file() and path.relative_to(ROOT).parts[:2] == ("docs", "traces"), real.file
        assert (path.parent / "LICENSE").is_file()
        assert real.licence in (path.parent / "README.md").read_text()
        assert real.source_url.startswith("https://")
        assert all(claim.device is None for claim in real.claims), real.id  # the trace is what it is
