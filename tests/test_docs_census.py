"""Every fence in docs/ is run, or skipped on purpose with a reason.

Sybil runs ```python fences and silently passes over ```py and fences with
attributes; this census finds every fence and accounts for each one:

- a plain ```python fence must be one of Sybil's collected regions;
- ``<!-- skip: next "reason" -->`` must stand right before a plain python
  fence (Sybil skips the next *python* block, wherever it is);
- a fence whose body only includes files (``--8<-- "path"``) is run elsewhere:
  snippets/ files by the snippet tests, docs/generated/ files are output;
- any other fence (shell, text, ```py, attributes) needs
  ``<!-- not-run: "reason" -->`` on the line before it.
"""

import re
from dataclasses import dataclass

import pytest
from sybil.evaluators.python import PythonEvaluator

from tests.docs_collection import DOCS, ROOT, docs_sybil

FENCE = re.compile(r"^(?P<indent> *)(?P<mark>`{3,}|~{3,})(?P<info>.*)$")
SKIP_NEXT = re.compile(r'^<!-- skip: next "(?P<reason>[^"]+)" -->$')
NOT_RUN = re.compile(r'^<!-- not-run: "(?P<reason>[^"]+)" -->$')
INCLUDE = re.compile(r'^--8<-- "(?P<path>[^":]+)(:[\w-]+)?"$')
TESTED_SNIPPET_FOLDERS = {p.name for p in (ROOT / "tests" / "snippets").iterdir() if p.is_dir()}


@dataclass
class Fence:
    line: int  # 1-based line of the opening fence
    info: str
    body: list
    before: str  # the nearest non-blank line above the fence


def fences(text):
    lines = text.splitlines()
    found, index = [], 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        mark, start = match["mark"], index
        index += 1
        while index < len(lines) and not lines[index].strip().startswith(mark):
            index += 1
        body = lines[start + 1 : index]
        above = [line.strip() for line in lines[:start] if line.strip()]
        found.append(Fence(start + 1, match["info"].strip(), body, above[-1] if above else ""))
        index += 1
    return found


def sybil_code_lines(path):
    document = docs_sybil().parse(path)
    return {
        document.text[: example.start].count("\n") + 1
        for example in document
        if isinstance(example.region.evaluator, PythonEvaluator)
    }


def is_include_only(fence):
    return fence.body and all(INCLUDE.match(line.strip()) for line in fence.body if line.strip())


def included_paths(fence):
    return [INCLUDE.match(line.strip())["path"] for line in fence.body if line.strip()]


def verdict(fence, collected_lines):
    """Why this fence is accounted for, or None when it is not."""
    if fence.info == "python":
        if fence.line in collected_lines:
            skip = SKIP_NEXT.match(fence.before)
            return f"skipped: {skip['reason']}" if skip else "run by Sybil"
        return None
    if SKIP_NEXT.match(fence.before):
        return None  # Sybil would skip the next python block instead of this one
    if is_include_only(fence):
        paths = included_paths(fence)
        if all(p.startswith("docs/generated/") for p in paths):
            return "generated output"
        if all(p.startswith("snippets/") and p.split("/")[1] in TESTED_SNIPPET_FOLDERS for p in paths):
            return "snippet, run by tests/snippets"
        return None
    not_run = NOT_RUN.match(fence.before)
    return f"not run: {not_run['reason']}" if not_run else None


PAGES = sorted(p for p in DOCS.rglob("*.md") if "generated" not in p.relative_to(DOCS).parts)


def test_the_census_reads_pages():
    assert len(PAGES) >= 8
    assert sum(len(fences(p.read_text())) for p in PAGES) >= 10


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_every_fence_is_run_or_skipped_with_a_reason(page):
    collected = sybil_code_lines(page)
    unaccounted = [
        f"{page.relative_to(ROOT)}:{fence.line} ```{fence.info}"
        for fence in fences(page.read_text())
        if verdict(fence, collected) is None
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
    assert [verdict(f, collected_lines=set()) for f in fences(text)] == [None, None, None]


def test_census_accepts_marked_fences():
    text = (
        '<!-- not-run: "a shell command" -->\n```bash\nmake site\n```\n\n'
        '```python title="snippets/basics/first_profile.py"\n--8<-- "snippets/basics/first_profile.py:profile"\n```\n'
    )
    assert [verdict(f, collected_lines=set()) for f in fences(text)] == [
        "not run: a shell command",
        "snippet, run by tests/snippets",
    ]
