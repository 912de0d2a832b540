"""profguide.site.nav: the nav from the pages' front matter, which mkdocs.yml inherits."""

import pytest
import yaml

from profguide.errors import ProjectError
from profguide.site.nav import FRONT_MATTER, NAV_FILE, nav_keys, nav_yaml, page_files, page_order
from tests.helpers import ROOT
from tests.site_nav import nav_pages

DOCS = ROOT / "docs"
HOME = "---\nnav_title: Home\nnav_order: 0\n---\n\n# Home\n"
SECTION = "---\nnav_title: {title}\nnav_order: {order}\nnav_section: Part\nnav_section_order: 1\n---\n\n# {title}\n"
PAGE = "---\nnav_title: {title}\nnav_order: {order}\n---\n\n# {title}\n"


def docs_of(tmp_path, pages):
    for name, text in pages.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def test_the_committed_nav_is_the_one_the_pages_make_and_mkdocs_reads_it():
    assert (DOCS / "generated" / "site" / NAV_FILE).read_text() == nav_yaml(DOCS), "stale: run `profguide build`"
    assert nav_pages() == page_order(DOCS)


def test_the_front_matter_of_every_markdown_page_is_plain_yaml_that_says_the_same():
    for path in page_files(DOCS):
        if path.suffix == ".md":
            found = yaml.safe_load(FRONT_MATTER.match(path.read_text())["body"])
            assert {key: str(value) for key, value in found.items() if key.startswith("nav_")} == nav_keys(
                path.read_text()), path


def test_pages_come_by_section_then_by_order_whatever_their_file_names(tmp_path):
    docs = docs_of(tmp_path, {"index.md": HOME, "b/index.md": SECTION.format(title="B", order=10),
                              "b/a-later.md": PAGE.format(title="Later: a colon", order=30),
                              "b/z-sooner.md": PAGE.format(title="Sooner", order=20)})
    assert page_order(docs) == ["index.md", "b/index.md", "b/z-sooner.md", "b/a-later.md"]
    assert yaml.safe_load(nav_yaml(docs))["nav"] == [
        {"Home": "index.md"},
        {"Part": [{"B": "b/index.md"}, {"Sooner": "b/z-sooner.md"}, {"Later: a colon": "b/a-later.md"}]}]


@pytest.mark.parametrize(("pages", "error"), [
    ({"b/index.md": "# B\n"}, r"docs/b/index\.md: its front matter has no nav_title or nav_order"),
    ({"b/index.md": SECTION.format(title="B", order=10), "b/c.md": PAGE.format(title="C", order=10)},
     r"docs/b/c\.md and docs/b/index\.md have the same place"),
    ({"b/c.md": PAGE.format(title="C", order=10)}, r"docs/b/index\.md names no nav_section"),
    ({"b/index.md": PAGE.format(title="B", order="ten")}, r"whole numbers"),
])
def test_a_page_the_nav_cannot_place_is_a_one_line_error(tmp_path, pages, error):
    docs = docs_of(tmp_path, {"index.md": HOME, **pages})
    with pytest.raises(ProjectError, match=error):
        page_order(docs)
