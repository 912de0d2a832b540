"""One Jupyter notebook per page of Parts 1–4 that has code to run, made from the page's own blocks.

A notebook's cells are the page's headings (as markdown) and its Python
blocks in page order: the ```python fences Sybil runs, and the snippet
sections the page shows with ``--8<-- "snippets/...:section"``, inlined with
the snippet file's imports, since a reader's notebook has no ``snippets``
package. Fences marked ``<!-- not-run: ... -->`` or ``<!-- skip: ... -->`` and
invisible blocks (the tests' hidden asserts) are left out. Nothing is written
twice: change the page or the snippet and the build writes the notebook again.
"""

import ast
import json
import posixpath
import re
from pathlib import Path

PARTS = ("basics", "reading-output", "multi-gpu", "torch-compile")
FOLDER = "notebooks"  # under docs/generated/
# A fenced block, possibly indented (inside an admonition): its indent, info string and body.
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
                   re.MULTILINE | re.DOTALL)
SNIPPET = re.compile(r'^[ \t]*--8<-- "(?P<path>snippets/[^":]+)(?::(?P<section>[\w-]+))?"[ \t]*$')
SECTION_MARK = re.compile(r"^[ \t]*# --8<-- \[(?P<end>start|end):(?P<name>[\w-]+)\][ \t]*$")
SNIPPET_IMPORT = re.compile(r"^from snippets\.[\w.]+ import ")
HEADING = re.compile(r"^(#{1,6}) (.+)$", re.MULTILINE)
LEFT_OUT = ("<!-- not-run:", "<!-- skip:")
NEEDS_CLONE = ("Cells that import `profguide` read files of the guide's repository: run them in a clone, "
               "after `pip install -e .`.")


def notebook_name(page):
    """``basics/first-trace.md`` → ``basics-first-trace.ipynb``."""
    return str(Path(page).with_suffix("")).replace("/", "-") + ".ipynb"


def section(path, name):
    """A snippet file's section ``name`` (the whole file without ``name``), dedented, its marker lines removed."""
    lines, inside = [], name is None
    for line in Path(path).read_text().splitlines():
        mark = SECTION_MARK.match(line)
        if mark:
            inside = inside if mark["name"] != name else mark["end"] == "start"
            continue
        if inside:
            lines.append(line)
    if name is not None and not lines:
        raise ValueError(f"{path} has no section {name}")
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    return "\n".join(line[indent:] for line in lines).strip("\n")


def snippet_imports(path):
    """The top-level import statements of a snippet file, less those of other snippet modules."""
    source = Path(path).read_text()
    statements = [ast.get_source_segment(source, node) for node in ast.parse(source).body
                  if isinstance(node, ast.Import | ast.ImportFrom)]
    return [s for s in statements if not SNIPPET_IMPORT.match(s)]


def code_cell(body, root, imported):
    """A fence's code with each snippet include inlined (after the imports not yet in the notebook)."""
    lines = []
    for line in body.splitlines():
        include = SNIPPET.match(line)
        if include is None:
            if not SNIPPET_IMPORT.match(line):  # the names are defined by the inlined sections
                lines.append(line)
            continue
        path = Path(root) / include["path"]
        new = [s for s in snippet_imports(path) if s not in imported]
        imported.update(new)
        lines += [*new, "", "", section(path, include["section"])] if new else [section(path, include["section"])]
    return "\n".join(lines).strip("\n")


def line_before(text, position):
    lines = [line.strip() for line in text[:position].splitlines() if line.strip()]
    return lines[-1] if lines else ""


def page_cells(text, root):
    """The page's headings and Python blocks in order: [("markdown" | "code", source)]."""
    cells, imported, done = [], set(), 0
    for fence in FENCE.finditer(text):
        cells += [("markdown", match[0]) for match in HEADING.finditer(text, done, fence.start())]
        done = fence.end()
        info = fence["info"].strip()
        if (info == "python" or info.startswith("python ")) and not line_before(text, fence.start()).startswith(
                LEFT_OUT):
            body = "\n".join(line[len(fence["indent"]):] for line in fence["body"].splitlines())
            cells.append(("code", code_cell(body, root, imported)))
    cells += [("markdown", match[0]) for match in HEADING.finditer(text, done)]
    return cells


def first_cell(title, page, uses_profguide):
    """The title, the page it comes from, and what the notebook needs. It names the page's file rather than
    linking to it: a relative link would lead nowhere once the notebook is downloaded."""
    lines = [f"# {title}", "",
             f"The code of the guide's page *{title}* (`docs/{page}` in the guide's repository), block by block. "
             "The snippets the page shows are inlined with the imports they need, so the notebook runs without "
             "the guide's `snippets` package. It runs on a CPU: the code uses a GPU only when one is there."]
    if uses_profguide:
        lines += ["", NEEDS_CLONE]
    return "\n".join(lines)


def cell(kind, source, number):
    made = {"cell_type": kind, "id": f"cell-{number}", "metadata": {}, "source": source.splitlines(keepends=True)}
    if kind == "code":
        made.update(execution_count=None, outputs=[])
    return made


def notebook(page, text, root):
    """The notebook for ``page`` (relative to docs/), or None when the page has no Python to run."""
    cells = page_cells(text, root)
    if not any(kind == "code" for kind, _ in cells):
        return None
    title = cells[0][1].lstrip("# ").strip() if cells[0][0] == "markdown" else page
    body = cells[1:] if cells[0][0] == "markdown" else cells
    uses_profguide = any(kind == "code" and re.search(r"^(import|from) profguide", source, re.MULTILINE)
                         for kind, source in body)
    every = [("markdown", first_cell(title, page, uses_profguide)), *body]
    document = {
        "cells": [cell(kind, source, number) for number, (kind, source) in enumerate(every)],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                     "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def notebook_files(root):
    """{notebook file name: its text} for every page of Parts 1–4 with Python to run."""
    docs = Path(root) / "docs"
    files = {}
    for part in PARTS:
        for path in sorted((docs / part).glob("*.md")):
            page = str(path.relative_to(docs))
            made = notebook(page, path.read_text(), root)
            if made is not None:
                files[notebook_name(page)] = made
    return files


def links(page, notebook_text, repo_url=None):
    """The line a page shows under its title: its notebook's file, served beside the pages, and Colab where the
    repository is on GitHub and the notebook runs without a clone of it. ``page`` is relative to docs/."""
    name = notebook_name(page)
    raw = posixpath.relpath(f"generated/{FOLDER}/{name}", posixpath.dirname(page))
    line = f'[Download this page as a notebook]({raw}){{ download="{name}" }}'
    github = re.match(r"https://github\.com/(?P<repo>[^/]+/[^/]+?)/?$", repo_url or "")
    if NEEDS_CLONE in notebook_text:
        line += " (run it in a clone of the guide's repository: it reads the guide's own files)"
    elif github:
        line += (f" or [open it in Colab](https://colab.research.google.com/github/{github['repo']}/blob/main/"
                 f"docs/generated/{FOLDER}/{name})")
    return line + "."
