"""One Jupyter notebook per page with code to run (the parts and the reference), made from the page's own blocks.

A notebook's cells are the page's headings (as markdown) and its Python
blocks in page order: the ```python fences Sybil runs, and the snippet
sections the page shows with ``--8<-- "snippets/...:section"``, inlined with
the snippet file's imports, since a reader's notebook has no ``snippets``
package. Fences marked ``<!-- not-run: ... -->`` or ``<!-- skip: ... -->`` and
invisible blocks (the tests' hidden asserts) are left out. Nothing is written
twice: change the page or the snippet and the build writes the notebook again.

Where the page includes what one of the guide's recordings made (``--8<--
"docs/generated/<recording>/..."``) and the notebook defines that recording's
function, a cell runs it there as the recording did, with its parameters, and
prints the profiler's tables that the recording printed: the notebook shows
the run the page describes, with the same ops, rows and columns (the times
are this machine's). A recording of several ranks needs several processes and
is not run in a notebook.
"""

import ast
import json
import posixpath
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Literal, NotRequired, TypedDict, cast

from profguide.site.catalogue import RECORDINGS
from profguide.site.nav import folder, page_order
from profguide.site.recordings import Recording

FOLDER = "notebooks"  # under docs/generated/
# A fenced block, possibly indented (inside an admonition): its indent, info string and body.
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
                   re.MULTILINE | re.DOTALL)
SNIPPET = re.compile(r'^[ \t]*--8<-- "(?P<path>snippets/[^":]+)(?::(?P<section>[\w-]+))?"[ \t]*$')
SECTION_MARK = re.compile(r"^[ \t]*# --8<-- \[(?P<end>start|end):(?P<name>[\w-]+)\][ \t]*$")
SNIPPET_IMPORT = re.compile(r"^from snippets\.[\w.]+ import ")
HEADING = re.compile(r"^(#{1,6}) (.+)$", re.MULTILINE)
GENERATED = re.compile(r'^[ \t]*--8<-- "docs/generated/(?P<id>[\w-]+)/(?P<name>[^"/]+)"[ \t]*$', re.MULTILINE)
EXTRA_TABLE = re.compile(r"table-(?P<name>[\w-]+)\.txt")
LEFT_OUT = ("<!-- not-run:", "<!-- skip:")
NEEDS_CLONE = ("Cells that import `profguide` read files of the guide's repository: run them in a clone, "
               "after `pip install -e .`.")

CellKind = Literal["markdown", "code"]
Cell = tuple[CellKind, str]  # a notebook cell before it is numbered: its kind and its source
Definition = tuple[Path, ast.stmt, str]  # a top-level name's snippet file, its statement and the statement's source


class NotebookCell(TypedDict):
    """A cell as nbformat 4 writes it; a code cell's outputs are empty until a reader runs it."""

    cell_type: CellKind
    id: str
    metadata: dict[str, str]
    source: list[str]
    execution_count: NotRequired[None]
    outputs: NotRequired[list[str]]


def notebook_name(page: str) -> str:
    """``basics/first-trace.md`` → ``basics-first-trace.ipynb``."""
    return str(Path(page).with_suffix("")).replace("/", "-") + ".ipynb"


def section(path: Path, name: str | None) -> str:
    """A snippet file's section ``name`` (the whole file without ``name``), dedented, its marker lines removed."""
    lines: list[str] = []
    inside = name is None
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


def snippet_imports(path: Path) -> list[str]:
    """The top-level import statements of a snippet file, less those of other snippet modules."""
    source = Path(path).read_text()
    statements = [cast(str, ast.get_source_segment(source, node)) for node in ast.parse(source).body
                  if isinstance(node, ast.Import | ast.ImportFrom)]  # a parsed statement has its source's positions
    return [s for s in statements if not SNIPPET_IMPORT.match(s)]


def code_cell(body: str, root: Path | str, imported: set[str]) -> str:
    """A fence's code with each snippet include inlined (after the imports not yet in the notebook)."""
    lines: list[str] = []
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


def line_before(text: str, position: int) -> str:
    lines = [line.strip() for line in text[:position].splitlines() if line.strip()]
    return lines[-1] if lines else ""


def top_level_names(node: ast.stmt) -> set[str]:
    """The names a module-level statement defines."""
    if isinstance(node, ast.FunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Import | ast.ImportFrom):
        return set()
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def module_definitions(path: Path, root: Path | str) -> dict[str, Definition]:
    """{name: (the snippet file that defines it, its node, its source)} for the top-level definitions of a
    snippet file and of the snippet modules it imports from (all of theirs, for what the imported names use), in
    the order the file has them."""
    source = Path(path).read_text()
    found: dict[str, Definition] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and (module := node.module or "").startswith("snippets."):
            other = module_definitions(Path(root) / (module.replace(".", "/") + ".py"), root)
            # What the imported definitions use in their own module (a class a function there builds) comes too.
            found.update({name: other[name] for name in other if name not in found})
            found.update({a.name: other[a.name] for a in node.names})
        segment = cast(str, ast.get_source_segment(source, node))  # a parsed statement has its source's positions
        found.update({name: (Path(path), node, segment) for name in top_level_names(node)})
    return found


def unshown_definitions(snippet: Path, function: str, defined: Iterable[str],
                        root: Path | str) -> tuple[list[str], list[str]]:
    """The definitions that ``function`` needs, directly or through the functions it calls, and that the
    notebook does not define (the page does not show them), with the imports of snippet files other than
    ``snippet`` they need: (import statements, definitions)."""
    by_name = module_definitions(snippet, root)
    needed: set[str] = set()
    todo = [function]
    while todo:
        used = {n.id for n in ast.walk(by_name[todo.pop()][1]) if isinstance(n, ast.Name)}
        new = {n for n in used if n in by_name and n not in needed}
        needed |= new
        todo += sorted(new)
    unshown = {by_name[n][2]: by_name[n][0] for n in by_name if n in needed - set(defined)}
    imports = [i for path in dict.fromkeys(unshown.values()) if path != Path(snippet) for i in snippet_imports(path)]
    return list(dict.fromkeys(imports)), list(unshown)


def defined_functions(source: str) -> dict[str, set[str]]:
    """{name: its parameters} for each function a cell defines at its top level."""
    return {node.name: {a.arg for a in (*node.args.args, *node.args.kwonlyargs)} for node in ast.parse(source).body
            if isinstance(node, ast.FunctionDef)}


def table_call(recording: Recording, name: str) -> str:
    """The call that prints ``name`` of the recording's tables (``table.txt`` or ``table-<name>.txt``), as the
    recorder makes it (``profguide.site.record``)."""
    extra = EXTRA_TABLE.fullmatch(name)
    if extra is None:
        sort_by = "'cuda_time_total' if device == 'cuda' else 'cpu_time_total'"
        return f"print(prof.key_averages().table(sort_by={sort_by}, row_limit=15))"
    table = next(t for t in recording.tables if t.name == extra["name"])
    return (f"print(prof.key_averages(group_by_input_shape={table.group_by_input_shape}, group_by_stack_n="
            f"{table.group_by_stack_n}).table(sort_by={table.sort_by!r}, row_limit={table.row_limit}))")


def needed_cell(recording: Recording, imports: list[str], unshown: list[str], has_torch: bool) -> str:
    """The cell before a run: the imports and the snippets' definitions that the recording's function needs and
    the page does not show ("" when it needs none)."""
    imports = imports if has_torch or "import torch" in imports else ["import torch", *imports]
    lines = [*imports, "", ""] if imports else []
    if unshown:
        lines += [f"# What `{recording.function}` needs from the guide's snippets, which the page does not show:",
                  *"\n\n\n".join(unshown).splitlines()]
    return "\n".join(lines).strip("\n")


def run_cell(recording: Recording, parameters: set[str], tables: list[str], returns: bool) -> str:
    """The cell that runs ``recording``'s function as the recording did and prints its ``tables``; it shows what
    the function returns where the recording kept that (``results.json``)."""
    on_gpu, on_cpu = recording.params_on("cuda"), recording.params_on("cpu")
    lines = [f"# The run the page shows: the guide's recording `{recording.id}`, with its parameters."]
    if recording.device == "cuda":
        lines.append('device = "cuda" if torch.cuda.is_available() else "cpu"')
        lines.append(f"params = {on_gpu!r}" if on_gpu == on_cpu else
                     f'params = {on_gpu!r} if device == "cuda" else {on_cpu!r}')
    else:
        lines += ['device = "cpu"', f"params = {on_cpu!r}"]
    prints = "\n    print()\n".join(f"    {table_call(recording, name)}" for name in tables)
    lines += ["", "", "def print_tables(prof):", prints, "", ""]
    call = f"{recording.function}(**params{', device=device' if 'device' in parameters else ''}, " \
           "on_trace_ready=print_tables)"
    lines += [f"results = {call}", "results"] if returns else [f"prof = {call}"]
    return "\n".join(lines)


def page_cells(text: str, root: Path | str, recordings: Iterable[Recording] = ()) -> list[Cell]:
    """The page's headings and Python blocks in order, and a run of each recording the page includes whose
    function the notebook defines, where the page first shows what it made: [("markdown" | "code", source)]."""
    cells: list[Cell] = []
    imported: set[str] = set()
    defined: dict[str, set[str]] = {}
    ran: set[str] = set()
    done = 0
    shown: dict[str, list[str]] = {}  # recording id: the names of its files the page includes
    for match in GENERATED.finditer(text):
        shown.setdefault(match["id"], []).append(match["name"])
    runnable = {r.id: r for r in recordings if r.id in shown and r.ranks == 1}

    def run(recording_id: str) -> None:
        recording = runnable.get(recording_id)
        if recording is None or recording_id in ran or recording.function not in defined:
            return
        ran.add(recording_id)
        tables = ["table.txt", *sorted({n for n in shown[recording_id] if EXTRA_TABLE.fullmatch(n)})]
        returns = (Path(root) / "docs" / "generated" / recording_id / "results.json").is_file()
        names = {name for kind, source in cells if kind == "code" for node in ast.parse(source).body
                 for name in top_level_names(node)}
        new_imports, unshown = unshown_definitions(Path(root) / recording.snippet, recording.function, names, root)
        new_imports = [i for i in new_imports if i not in imported]
        imported.update(new_imports)
        needs = needed_cell(recording, new_imports, unshown, "import torch" in imported)
        cells.extend(("code", cell) for cell in (needs, run_cell(recording, defined[recording.function], tables,
                                                                  returns)) if cell)

    def between(start: int, end: int) -> None:
        for match in sorted([*HEADING.finditer(text, start, end), *GENERATED.finditer(text, start, end)],
                            key=re.Match.start):
            if match.re is HEADING:
                cells.append(("markdown", match[0]))
            else:
                run(match["id"])

    for fence in FENCE.finditer(text):
        between(done, fence.start())
        done = fence.end()
        info = fence["info"].strip()
        if (info == "python" or info.startswith("python ")) and not line_before(text, fence.start()).startswith(
                LEFT_OUT):
            body = "\n".join(line[len(fence["indent"]):] for line in fence["body"].splitlines())
            cells.append(("code", code_cell(body, root, imported)))
            defined.update(defined_functions(cells[-1][1]))
            for match in GENERATED.finditer(text, 0, fence.start()):  # shown before the code that makes it
                run(match["id"])
        else:  # a table the recording printed, shown in a text fence
            for match in GENERATED.finditer(text, fence.start(), fence.end()):
                run(match["id"])
    between(done, len(text))
    return cells


def first_cell(title: str, page: str, uses_profguide: bool) -> str:
    """The title, the page it comes from, and what the notebook needs. It names the page's file rather than
    linking to it: a relative link would lead nowhere once the notebook is downloaded."""
    lines = [f"# {title}", "",
             f"The code of the guide's page *{title}* (`docs/{page}` in the guide's repository), block by block. "
             "The snippets the page shows are inlined with the imports they need, so the notebook runs without "
             "the guide's `snippets` package. It runs on a CPU: the code uses a GPU only when one is there."]
    if uses_profguide:
        lines += ["", NEEDS_CLONE]
    return "\n".join(lines)


def cell(kind: CellKind, source: str, number: int) -> NotebookCell:
    made: NotebookCell = {"cell_type": kind, "id": f"cell-{number}", "metadata": {},
                          "source": source.splitlines(keepends=True)}
    if kind == "code":
        made.update({"execution_count": None, "outputs": []})
    return made


def notebook(page: str, text: str, root: Path | str, recordings: Iterable[Recording] = ()) -> str | None:
    """The notebook for ``page`` (relative to docs/), or None when the page has no Python to run."""
    cells = page_cells(text, root, recordings)
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


def notebook_files(root: Path | str) -> dict[str, str]:
    """{notebook file name: its text} for every page of the parts and the reference with Python to run."""
    docs = Path(root) / "docs"
    files: dict[str, str] = {}
    for page in part_pages(docs):
        made = notebook(page, (docs / page).read_text(), root, RECORDINGS)
        if made is not None:
            files[notebook_name(page)] = made
    return files


def part_pages(docs: Path) -> list[str]:
    """The Markdown pages of the parts and the reference (every folder of the nav), relative to ``docs``."""
    return [page for page in page_order(docs) if page.endswith(".md") and folder(page) != "."]


def links(page: str, notebook_text: str, repo_url: str | None = None) -> str:
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
