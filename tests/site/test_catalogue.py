"""profguide.site.catalogue: recordings and real traces, each id once, each real trace served with its licence; the
parts modules found, one per page, in the nav's order."""

import pytest

from profguide.errors import ProjectError
from profguide.site.catalogue import MODULES, REAL_TRACES, RECORDINGS, page_modules
from profguide.site.nav import page_order
from tests.helpers import ROOT
from tests.site_nav import code_name, page_of

DOCS = ROOT / "docs"


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


def test_each_parts_module_is_named_after_its_page_and_they_come_in_the_navs_order():
    pages = page_order(DOCS)
    assert [module.PAGE for module in MODULES] == [page for page in pages if page in {m.PAGE for m in MODULES}]
    for module in MODULES:
        name = module.__name__.removeprefix("profguide.site.parts.").replace(".", "/")
        assert name == code_name(module.PAGE), (module.__name__, module.PAGE)


def test_a_recording_runs_a_snippet_of_its_page_or_of_a_page_before_it():
    pages = page_order(DOCS)
    for module in MODULES:
        for recording in getattr(module, "RECORDINGS", ()):
            snippet = page_of(recording.module.replace(".", "/") + ".py", pages)
            assert snippet is not None and pages.index(snippet) <= pages.index(module.PAGE), recording.id


def test_a_parts_module_of_a_page_the_nav_lacks_is_refused(tmp_path):
    (tmp_path / "index.md").write_text("---\nnav_title: Home\nnav_order: 0\n---\n\n# Home\n")
    with pytest.raises(ProjectError, match=r"profguide\.site\.parts\.basics\.\w+: its PAGE is no page of the nav"):
        page_modules(tmp_path)


def test_without_the_guides_pages_beside_the_package_every_parts_module_is_found_unordered(tmp_path):
    # An installed profguide has no docs/: `profguide record` must still load the catalogue to say what it needs.
    found = page_modules(tmp_path / "no-docs")
    assert sorted(module.__name__ for module in found) == sorted(module.__name__ for module in MODULES)
