"""The output a page shows under a block is checked against what the block printed."""

import pytest
from sybil.example import SybilFailure

from tests.docs_collection import check_output, docs_sybil


def examples(tmp_path, text):
    page = tmp_path / "page.md"
    page.write_text(text)
    return list(docs_sybil().parse(page))


def run(found):
    namespace = {}
    for example in found:
        example.namespace = namespace
        example.evaluate()


def test_output_that_matches_passes(tmp_path):
    found = examples(tmp_path, "```python\nprint('a'); print(2)\n```\n\n<!-- output -->\n```text\na\n2\n```\n")
    assert len(found) == 2
    run(found)


def test_an_ellipsis_stands_for_any_text(tmp_path):
    page = "```python\nprint('trace_123456.json')\n```\n\n<!-- output -->\n```text\ntrace_...json\n```\n"
    found = examples(tmp_path, page)
    # The block, then the output check: with nothing collected, running them would pass for want of a check.
    assert [example.region.evaluator is check_output for example in found] == [False, True]
    run(found)


def test_output_that_differs_fails_and_shows_both(tmp_path):
    found = examples(tmp_path, "```python\nprint('True')\n```\n\n<!-- output -->\n```text\nFalse\n```\n")
    with pytest.raises(SybilFailure, match="the page shows:\nFalse\n\nthe block printed:\nTrue"):
        run(found)


def test_a_text_fence_without_the_mark_is_not_an_output_check(tmp_path):
    assert len(examples(tmp_path, "```python\nprint(1)\n```\n\n```text\n2\n```\n")) == 1
