"""One name per page: a snippet is named after the page that first shows it (``docs/reading-output/gpu-waits.md`` →
``snippets/reading_output/gpu_waits.py``, or ``gpu_waits_<what>.py``, or a package ``gpu_waits/``), and each
snippet has its mirror test (``tests/snippets/reading_output/test_gpu_waits.py``)."""

import re
from pathlib import Path

from profguide.site.nav import page_order
from tests.helpers import ROOT
from tests.site_nav import code_name, page_of

SNIPPETS = ROOT / "snippets"
DOCS = ROOT / "docs"
INCLUDE = re.compile(r'^[ \t]*--8<-- "(?P<path>snippets/[^":]+)', re.MULTILINE)


def snippet_files():
    return sorted(path for path in SNIPPETS.rglob("*.py") if path.name != "__init__.py")


def test_every_snippet_is_named_after_a_page_in_a_package_of_its_part():
    pages = page_order(DOCS)
    assert (SNIPPETS / "__init__.py").is_file()
    for snippet in snippet_files():
        relative = snippet.relative_to(ROOT).as_posix()
        assert page_of(relative, pages), f"{relative} is named after no page of the nav"
        for package in snippet.relative_to(SNIPPETS).parents[:-1]:
            assert (SNIPPETS / package / "__init__.py").is_file(), package


def test_every_snippet_has_its_mirror_test():
    for snippet in snippet_files():
        mirror = ROOT / "tests" / "snippets" / snippet.relative_to(SNIPPETS).with_name(f"test_{snippet.name}")
        assert mirror.is_file(), f"{snippet.relative_to(ROOT)} has no test {mirror.relative_to(ROOT)}"


def test_a_page_shows_its_own_snippets_and_those_of_pages_before_it():
    """A snippet that several pages show lives with the first of them."""
    pages = page_order(DOCS)
    shown_first = {}
    for page in pages:
        for match in INCLUDE.finditer((DOCS / page).read_text()):
            shown_first.setdefault(match["path"], page)
            named_after = page_of(match["path"], pages)
            assert named_after is not None and pages.index(named_after) <= pages.index(page), (page, match["path"])
    for snippet, page in shown_first.items():
        assert page_of(snippet, pages) == page, f"{snippet} is first shown by {page}, and named after another page"


def test_the_name_of_a_snippet_is_found_for_its_page_and_only_for_it():
    pages = ["basics/index.md", "reading-output/gpu-waits.md", "reference/around-the-profiler.md"]
    assert page_of("snippets/reading_output/gpu_waits.py", pages) == "reading-output/gpu-waits.md"
    assert page_of("snippets/reading_output/gpu_waits_flops.py", pages) == "reading-output/gpu-waits.md"
    assert page_of("snippets/reference/around_the_profiler/stacks.py", pages) == "reference/around-the-profiler.md"
    assert page_of("snippets/reading_output/gpu_waitsx.py", pages) is None
    assert page_of("snippets/basics/steps.py", pages) is None
    assert Path(code_name("multi-gpu/per-rank.md")) == Path("multi_gpu/per_rank")
