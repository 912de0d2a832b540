"""What every page of the guide does for a reader: it asks for a guess before it shows a run, and it shows no
output it did not check. The pages are the nav's, so that a new part is checked as soon as the nav lists it."""

import re

import pytest

from tests.docs_collection import DOCS, OUTPUT_MARK
from tests.site_nav import nav_pages

PAGES = [page for page in nav_pages() if page.endswith(".md")]  # the one notebook page is Python, not Markdown
GENERATED = re.compile(r'^[ \t]*--8<-- "docs/generated/(?!site/)', re.MULTILINE)
QUESTION = re.compile(r'^\?\?\? question "Predict: (?P<question>[^"]+\?)"\n(?P<body>(?:(?: {4}.*)?\n)+)', re.MULTILINE)
# A box's answer comes soon after it: a generated fragment (a figure, a table, a call tree) or a code block.
ANSWER = re.compile(r'^[ \t]*(--8<-- "docs/generated/|```)', re.MULTILINE)
ANSWER_WITHIN = 12  # lines after the box
MEASURED = re.compile(r"\d(?:[\d.,]*)\s?(?:ms|µs|us|ns|s|%|[KMG]i?B)\b")  # a duration, a share, a size
OUTPUT = re.compile(rf"^{re.escape(OUTPUT_MARK)}\n```text\n(?P<body>.*?)^```", re.MULTILINE | re.DOTALL)


def text(page):
    return (DOCS / page).read_text()


@pytest.mark.parametrize("page", [p for p in PAGES if GENERATED.search(text(p))])
def test_a_page_that_shows_a_run_asks_the_reader_to_predict_it_first(page):
    boxes = list(QUESTION.finditer(text(page)))
    assert boxes, f"{page} shows a run but asks for no prediction (??? question \"Predict: …?\")"
    for box in boxes:
        after = text(page)[box.end():].splitlines()[:ANSWER_WITHIN]
        assert any(ANSWER.match(line) for line in after), f"{page}: nothing to compare after {box['question']!r}"
        assert not MEASURED.search(box["body"]), f"{page}: the box gives away a measurement: {box['body']!r}"


@pytest.mark.parametrize("page", PAGES)
def test_no_output_a_page_shows_is_a_wildcard(page):
    """doctest's ``...`` matches anything: an output block that holds one shows the reader nothing checked."""
    for block in OUTPUT.finditer(text(page)):
        assert "..." not in block["body"], f"{page} shows output with a wildcard:\n{block['body']}"
