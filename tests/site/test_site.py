"""The site builds with `mkdocs build --strict`, and the built pages carry the generated figures."""

import json
import re
import shutil
from urllib.parse import unquote, urlsplit

import pytest

from profguide.site.catalogue import RECORDINGS
from profguide.site.launch import rank_file
from tests.helpers import ROOT, page_links
from tests.site_nav import built_page, nav_pages


@pytest.fixture
def site(built_site):
    return built_site


def test_every_page_of_the_nav_is_built(site):
    # The nav holds every page: a page it leaves out fails the build (validation.nav.omitted_files, strict).
    pages = nav_pages()
    assert pages
    for page in pages:
        assert (site / built_page(page)).is_file(), page


def test_every_recording_is_shown_with_its_trace(site):
    html = "".join(p.read_text() for p in site.rglob("*.html"))
    for recording in RECORDINGS:
        meta = json.loads((ROOT / "docs" / "generated" / recording.id / "meta.json").read_text())
        first = rank_file("trace.json.gz", 0, meta.get("ranks", 1))  # trace-rank0.json.gz in a job of ranks
        assert (site / "generated" / recording.id / first).is_file()
        assert f"generated/{recording.id}/{first}" in html, recording.id
        if (site / "generated" / recording.id / "timeline.svg").is_file():
            # The figure, inline, its title filled from the parameters the recording ran with.
            rank = " (rank 0)" if meta.get("ranks", 1) > 1 else ""
            assert f"<title>Timeline: {recording.title_with(meta['params'])}{rank}</title>" in html, recording.id


def test_snippets_are_included_not_left_as_directives(site):
    page = (site / "basics" / "index.html").read_text()
    assert "--8&lt;--" not in page and "--8<--" not in page
    assert "profile_matmul_bias" in page


def test_reference_documents_the_public_modules_with_typed_signatures_and_not_the_guides_machinery(site):
    page = (site / "reference" / "api" / "index.html").read_text()
    documented = set(re.findall(r'id="(profguide\.[\w.]+)"', page))
    for module in ("trace.loader", "trace.model", "analysis.job", "analysis.summary", "figures.timeline",
                   "render.explain"):
        assert f"profguide.{module}" in documented, module
    assert not any(name.startswith("profguide.site") for name in documented)
    signature = re.sub(r"<[^>]+>", "", page.partition('id="profguide.trace.loader.load"')[2])[:600]
    assert "max_bytes: int" in signature and "-&gt; Trace" in signature  # from the type hints


def test_no_request_leaves_for_google_fonts(site):
    assert "fonts.googleapis.com" not in (site / "index.html").read_text()


@pytest.mark.parametrize(("term", "part"), [("schedule", "basics/"), ("self_cpu_time_total", "reading-output/"),
                                            ("straggler", "multi-gpu/"), ("recompil", "torch-compile/")])
def test_search_finds_a_term_of_each_part_offline(site, term, part):
    # Material searches the index that the build writes beside the pages, in the browser: nothing is fetched.
    index = json.loads((site / "search" / "search_index.json").read_text())
    found = {doc["location"].split("#")[0] for doc in index["docs"] if term in (doc["title"] + doc["text"]).lower()}
    assert any(location.startswith(part) for location in found), (term, sorted(found)[:5])
    assert index["config"]["lang"] == ["en"]


def test_a_missing_page_gets_the_sites_404_page(site):
    page = (site / "404.html").read_text()
    assert "404" in page and 'href="/reading-output/cheat-sheet/"' in page  # with the site's navigation


def broken_links(site):
    """Every link of a built page that leads nowhere on the site: a missing file, or an anchor no element of the
    page it names has. Raw HTML in pages and fragments is checked too, which MkDocs' own validation skips."""
    ids = {}

    def anchors(target):
        if target not in ids:
            ids[target] = set(re.findall(r'\b(?:id|name)="([^"]+)"', target.read_text()))
        return ids[target]

    broken = []
    for page in sorted(site.rglob("*.html")):
        here = "/" + page.relative_to(site).as_posix()
        for href, address in page_links(page.relative_to(site).as_posix(), page.read_text()):
            if urlsplit(href).scheme or href.startswith("//"):
                continue  # leaves the site
            address = urlsplit(address)
            target = site / unquote(address.path).lstrip("/")
            target = target / "index.html" if target.is_dir() else target
            if not target.is_file():
                broken.append(f"{here}: {href} (no such file)")
            elif address.fragment and target.suffix == ".html" and unquote(address.fragment) not in anchors(target):
                broken.append(f"{here}: {href} (no such anchor)")
    return broken


def test_every_internal_link_and_anchor_of_the_built_site_resolves(site):
    assert broken_links(site) == []


def test_the_link_check_finds_a_missing_page_and_a_missing_anchor(site, tmp_path):
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    page = copy / "basics" / "index.html"
    page.write_text(page.read_text().replace(
        "</article>", '<a href="../nowhere/">x</a><a href="steps/#no-such-heading">y</a></article>'))
    assert broken_links(copy) == ["/basics/index.html: ../nowhere/ (no such file)",
                                  "/basics/index.html: steps/#no-such-heading (no such anchor)"]
