"""Every fence in docs/ is run, checked, or left out on purpose with a reason.

Sybil runs ```python fences and passes over ```py and fences with attributes
in silence; this census lexes every fence with Sybil's own fence lexer and
accounts for each one:

- a ```python fence must be one of the regions Sybil collected; one right
  after ``<!-- skip: next "reason" -->`` is skipped on purpose;
- a ```text fence right after ``<!-- output -->`` must be collected as an
  output check of the block above it;
- a fence whose body only includes files (``--8<-- "path"``) is run
  elsewhere: a snippet by its mirror test, tests/snippets/<part>/test_<name>.py;
  a file under docs/generated/ is output the build writes;
- any other fence (shell, text, ```py, attributes) needs
  ``<!-- not-run: "reason" -->`` on the line before it.
"""

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from sybil import Document
from sybil.parsers.markdown.lexers import RawFencedCodeBlockLexer

from tests.docs_collection import (
    DOCS,
    OUTPUT_MARK,
    ROOT,
    PrintingEvaluator,
    check_output,
    docs_sybil,
    line_before,
)

FENCES = RawFencedCodeBlockLexer(info_pattern=re.compile(r"(?P<info>[^\n]*)$\n", re.MULTILINE))
SKIP_NEXT = re.compile(r'^<!-- skip: next "(?P<reason>[^"]+)" -->$')
NOT_RUN = re.compile(r'^<!-- not-run: "(?P<reason>[^"]+)" -->$')
INCLUDE = re.compile(r'^--8<-- "(?P<path>[^":]+)(:[\w-]+)?"$')


@dataclass
class Fence:
    start: int  # offset of the opening fence in the page
    info: str
    body: list
    before: str  # the nearest non-blank line above the fence


def fences(text, path="page.md"):
    """Every fenced block of a page, as Sybil's lexer finds it."""
    document = Document(text, path)
    return [
        Fence(region.start, region.lexemes["info"].strip(), str(region.lexemes["source"]).splitlines(),
              line_before(text, region.start))
        for region in FENCES(document)
    ]


def collected(path):
    """{start offset: "python" | "output"} of the regions Sybil collects from a page."""
    kinds = {}
    for example in docs_sybil().parse(path):
        if example.region.evaluator is check_output:
            kinds[example.region.start] = "output"
        elif isinstance(example.region.evaluator, PrintingEvaluator):
            kinds[example.region.start] = "python"
    return kinds


def included_paths(fence):
    return [INCLUDE.match(line.strip())["path"] for line in fence.body if line.strip()]


def is_include_only(fence):
    return bool(fence.body) and all(INCLUDE.match(line.strip()) for line in fence.body if line.strip())


def mirror_test(snippet_path):
    """tests/snippets/<part>/…/test_<name>.py for snippets/<part>/…/<name>.py."""
    snippet = Path(snippet_path).relative_to("snippets")
    return ROOT / "tests" / "snippets" / snippet.with_name(f"test_{snippet.name}")


def verdict(fence, kinds):
    """Why this fence is accounted for, or None when it is not."""
    if fence.info == "python":
        if kinds.get(fence.start) != "python":
            return None
        skip = SKIP_NEXT.match(fence.before)
        return f"skipped: {skip['reason']}" if skip else "run by Sybil"
    if SKIP_NEXT.match(fence.before):
        return None  # Sybil would skip the next python block instead of this one
    if fence.before == OUTPUT_MARK:
        return "output, checked against the block above" if kinds.get(fence.start) == "output" else None
    if is_include_only(fence):
        paths = included_paths(fence)
        if all(p.startswith("docs/generated/") for p in paths):
            return "generated output"
        if all(p.startswith("snippets/") and mirror_test(p).is_file() for p in paths):
            return "snippet, run by its mirror test"
        return None
    not_run = NOT_RUN.match(fence.before)
    return f"not run: {not_run['reason']}" if not_run else None


PAGES = sorted(p for p in DOCS.rglob("*.md") if "generated" not in p.relative_to(DOCS).parts)


def test_the_census_reads_pages():
    assert len(PAGES) >= 8
    assert sum(len(fences(p.read_text())) for p in PAGES) >= 10


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_every_fence_is_run_or_skipped_with_a_reason(page):
    text = page.read_text()
    kinds = collected(page)
    unaccounted = [
        f"{page.relative_to(ROOT)}:{text[: fence.start].count(chr(10)) + 1} ```{fence.info}"
        for fence in fences(text)
        if verdict(fence, kinds) is None
    ]
    assert not unaccounted, "fences neither run nor skipped with a reason:\n" + "\n".join(unaccounted)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_included_files_exist(page):
    missing = [
        path
        for fence in fences(page.read_text())
        if is_include_only(fence)
        for path in included_paths(fence)
        if not (ROOT / path).is_file()
    ]
    assert not missing


def test_census_rejects_silently_skipped_fences():
    text = 'Text\n\n```py\nprint(1)\n```\n\n```python title="x.py"\nprint(2)\n```\n\n```bash\nls\n```\n'
    assert [verdict(f, kinds={}) for f in fences(text)] == [None, None, None]


def test_census_accepts_marked_fences():
    text = (
        '<!-- not-run: "a shell command" -->\n```bash\nmake site\n```\n\n'
        '```python title="snippets/basics/index.py"\n--8<-- "snippets/basics/index.py:profile"\n```\n'
    )
    assert [verdict(f, kinds={}) for f in fences(text)] == [
        "not run: a shell command",
        "snippet, run by its mirror test",
    ]


def test_an_output_fence_must_be_collected():
    text = "```python\nprint(1)\n```\n\n<!-- output -->\n\n```text\n1\n```\n"
    found = fences(text)
    assert verdict(found[1], kinds={}) is None
    assert verdict(found[1], kinds={found[0].start: "python", found[1].start: "output"}) == (
        "output, checked against the block above")


def test_a_snippet_without_a_mirror_test_is_not_accounted_for():
    text = '```python title="x"\n--8<-- "snippets/basics/no_such_snippet.py"\n```\n'
    assert verdict(fences(text)[0], kinds={}) is None
