"""The notebooks made from the pages run, cell by cell, and are what the build would write now."""

import json
import math
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor

import nbformat
import pytest
from nbclient import NotebookClient

from profguide.site import notebooks
from profguide.site.catalogue import RECORDINGS
from tests.docs_collection import DOCS, ROOT, PrintingEvaluator, docs_sybil

GENERATED = DOCS / "generated" / notebooks.FOLDER
NOTEBOOKS = sorted(GENERATED.glob("*.ipynb"))


def test_the_committed_notebooks_are_what_the_build_writes():
    committed = {path.name: path.read_text() for path in NOTEBOOKS}
    assert committed == notebooks.notebook_files(ROOT), "stale notebooks: run `profguide build`"


def test_every_page_of_the_parts_with_python_has_a_notebook():
    pages = [DOCS / page for page in notebooks.part_pages(DOCS)
             if any(isinstance(e.region.evaluator, PrintingEvaluator) for e in docs_sybil().parse(DOCS / page))]
    assert pages
    assert {notebooks.notebook_name(str(p.relative_to(DOCS))) for p in pages} <= {p.name for p in NOTEBOOKS}


def test_a_notebook_holds_the_blocks_sybil_runs_in_page_order():
    page = DOCS / "basics" / "steps.md"
    run = [str(e.region.parsed).strip("\n") for e in docs_sybil().parse(page)
           if isinstance(e.region.evaluator, PrintingEvaluator)]
    cells = [c["source"] for c in json.loads((GENERATED / "basics-steps.ipynb").read_text())["cells"]]
    code = ["".join(source) for source in cells]
    assert [c for c in code if c in run] == run


def test_snippet_sections_are_inlined_with_their_imports(tmp_path):
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "s.py").write_text(
        "import os\nfrom snippets.other import helper\n\n\n# --8<-- [start:f]\ndef f():\n    return os.sep\n"
        "# --8<-- [end:f]\n")
    page = ('# Title\n\n## Part\n\n```python title="snippets/s.py"\n--8<-- "snippets/s.py:f"\n```\n\n'
            '<!-- not-run: "needs a GPU" -->\n```python\nraise SystemExit\n```\n\n```python\nprint(f())\n```\n')
    cells = json.loads(notebooks.notebook("part/page.md", page, tmp_path))["cells"]
    assert ["".join(c["source"]) for c in cells[1:]] == ["## Part", "import os\n\n\ndef f():\n    return os.sep",
                                                          "print(f())"]
    assert cells[0]["source"][0] == "# Title\n"


def test_a_recording_the_page_shows_runs_after_its_function_with_what_the_page_leaves_out(tmp_path):
    from profguide.site.recordings import Recording, Table

    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "s.py").write_text(
        "import torch\n\n\ndef helper():\n    return 1\n\n\n# --8<-- [start:f]\n"
        "def f(size=1, device='cpu', on_trace_ready=None):\n    return helper()\n# --8<-- [end:f]\n")
    page = ('# Title\n\n```python title="snippets/s.py"\n--8<-- "snippets/s.py:f"\n```\n\n'
            '```text\n--8<-- "docs/generated/r/table-self.txt"\n```\n\n'
            '--8<-- "docs/generated/r/table.txt"\n')
    recording = Recording(id="r", module="snippets.s", function="f", title="t", params={"size": 64},
                          cpu_params={"size": 8}, tables=(Table("self", sort_by="self_cpu_time_total"),))
    cells = ["".join(c["source"]) for c in json.loads(notebooks.notebook("p.md", page, tmp_path, [recording]))["cells"]]
    needs, run = cells[2:]
    assert cells[1].startswith("import torch") and run.count("# The run the page shows") == 1
    assert "def helper():" in needs and "def helper():" not in cells[1]  # what f calls and the page does not show
    assert "params = {'size': 64} if device == \"cuda\" else {'size': 8}" in run
    assert "sort_by='self_cpu_time_total', row_limit=10" in run
    assert run.endswith("prof = f(**params, device=device, on_trace_ready=print_tables)")


def test_what_an_imported_function_uses_in_its_own_snippet_comes_with_it(tmp_path):
    from profguide.site.recordings import Recording

    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "other.py").write_text(
        "import math\n\n\nclass Thing:\n    pass\n\n\ndef build():\n    return Thing()\n")
    (tmp_path / "snippets" / "s.py").write_text(
        "from snippets.other import build\n\n\n# --8<-- [start:f]\n"
        "def f(device='cpu', on_trace_ready=None):\n    return build()\n# --8<-- [end:f]\n")
    page = ('# Title\n\n```python title="snippets/s.py"\n--8<-- "snippets/s.py:f"\n```\n\n'
            '--8<-- "docs/generated/r/table.txt"\n')
    recording = Recording(id="r", module="snippets.s", function="f", title="t")
    cells = ["".join(c["source"]) for c in json.loads(notebooks.notebook("p.md", page, tmp_path, [recording]))["cells"]]
    needs = cells[2]
    assert "import math" in needs and needs.index("class Thing:") < needs.index("def build():")


def test_a_page_without_python_has_no_notebook():
    assert notebooks.notebook("part/page.md", "# Title\n\n```text\nout\n```\n", ROOT) is None


def test_the_links_name_colab_only_for_a_github_repository_and_a_notebook_that_needs_no_clone():
    standalone = (GENERATED / "basics-steps.ipynb").read_text()
    assert "colab" not in notebooks.links("basics/steps.md", standalone)
    line = notebooks.links("basics/steps.md", standalone, "https://github.com/owner/guide")
    assert "https://colab.research.google.com/github/owner/guide/blob/main/docs/generated/notebooks/" \
           "basics-steps.ipynb" in line
    assert '(../generated/notebooks/basics-steps.ipynb){ download="basics-steps.ipynb" }' in line
    needs_clone = (GENERATED / "multi-gpu-overlap.ipynb").read_text()
    line = notebooks.links("multi-gpu/overlap.md", needs_clone, "https://github.com/owner/guide")
    assert "colab" not in line and "clone" in line


def test_the_published_build_takes_its_repository_from_the_pages_workflow(monkeypatch):
    from mkdocs.config import load_config

    from profguide.site import hook

    assert load_config(str(ROOT / "mkdocs.yml")).repo_url is None  # a local build links to no repository
    monkeypatch.setenv("PROFGUIDE_REPO_URL", "https://github.com/owner/guide")
    config = load_config(str(ROOT / "mkdocs.yml"))
    page = type("Page", (), {"file": type("File", (), {"src_uri": "basics/steps.md"})()})()
    shown = hook.on_page_markdown("# Steps\n\nText.\n", page, config, None)
    colab = "https://colab.research.google.com/github/owner/guide/blob/main/docs/generated/notebooks/basics-steps.ipynb"
    assert colab in shown
    assert (ROOT / colab.split("/blob/main/")[1]).is_file()  # the path Colab opens is a committed file


def test_no_notebook_links_where_a_download_cannot_follow():
    """A notebook is opened anywhere: a relative link in it would resolve against wherever that is."""
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text())["cells"]
        targets = [t for c in cells if c["cell_type"] == "markdown"
                   for t in re.findall(r"\]\(([^)\s]+)", "".join(c["source"]))]
        assert all(t.startswith("https://") for t in targets), (path.name, targets)


RUN = re.compile(r"^# The run the page shows: the guide's recording `(?P<id>[\w-]+)`")
# A compiled graph's name holds its hash in Inductor's cache, a Python method's its object's address.
VARYING = re.compile(r"(?<=CompiledFxGraph) \w+| at 0x[0-9a-f.]+")
# With with_stack, Python frames are rows too, and a notebook's kernel runs threads of Python of its own (its
# event loop, its sockets) that a script has not: they push the run's own rows out of a short table.
FRAME = re.compile(r"\.py\(\d+\): |^<built-in ")
# The timing runs repeat their workload `rounds` times to time it, minutes on two cores: the recorder runs them,
# and the notebooks' tests run every cell but theirs.
TIMING_RUNS = {r.id for r in RECORDINGS if "rounds" in r.params}


# The notebooks run as many at a time as there are cores, beside the other tests: each kernel's torch keeps to one
# thread, rather than every kernel's thread pool spinning on all the cores. A kernel of its own per notebook still.
KERNEL_THREADS = {"OMP_NUM_THREADS": "1"}
# One budget for a notebook's whole run, its kernel's start included, and no limit for a cell of its own: a cell's
# time depends on the machine's load and on Inductor's cache (the compiled transformer block's cell ran past nbclient's
# 60 s on a busy two-core machine). The slowest notebook, that block's, takes about 25 s on two idle cores with a cold
# cache and 40 s with both cores busy; the budget, twenty times that, only ends a hang.
NOTEBOOK_BUDGET_S = 900


def run_cells(notebook, name, folder, budget_s=NOTEBOOK_BUDGET_S):
    """Run a notebook's cells in place in a kernel of its own, within ``budget_s`` for the whole run: None, or what
    failed (the notebook's name, the cell, the error). Whatever the run raises is caught and returned, so that it
    fails this notebook's test and no other's."""
    started = time.monotonic()
    running = {}  # the cell nbclient is at

    def time_left(cell):
        return max(1, math.ceil(started + budget_s - time.monotonic()))

    def note_cell(cell, cell_index):
        running["index"] = cell_index

    # An output that reaches the client after the cell's reply is waited for within the budget, and reported if it
    # never does (nbclient's default waits 4 s, then drops it without a word).
    client = NotebookClient(notebook, kernel_name="python3", timeout=budget_s, timeout_func=time_left,
                            startup_timeout=budget_s, iopub_timeout=budget_s, raise_on_iopub_timeout=True,
                            shutdown_kernel="immediate", on_cell_start=note_cell,
                            resources={"metadata": {"path": folder}})
    try:
        client.execute(env=dict(os.environ, **KERNEL_THREADS))
    except Exception as error:
        where = f"cell {running['index']}" if running else "starting its kernel"
        return (f"{name}, {where}, {time.monotonic() - started:.0f} s into its budget of {budget_s} s: "
                f"{type(error).__name__}: {error}")
    return None


def run_notebook(path, folder, budget_s=NOTEBOOK_BUDGET_S):
    """Run one page's notebook, its timing runs left out: (None, or what failed; the notebook with the outputs it
    got, an empty one if it cannot be read)."""
    try:
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
    except Exception as error:
        return f"{path.name}, reading it: {type(error).__name__}: {error}", nbformat.v4.new_notebook()
    for cell in notebook.cells:
        if cell.cell_type == "code" and RUN.match(cell.source) and RUN.match(cell.source)["id"] in TIMING_RUNS:
            cell.metadata.setdefault("tags", []).append("skip-execution")  # nbclient's tag for a cell it skips
    return run_cells(notebook, path.name, folder, budget_s), notebook


def run_notebooks(paths, folder, budget_s=NOTEBOOK_BUDGET_S):
    """Each notebook run once, in a folder of its own under ``folder``, as many at a time as there are cores (most
    of a run is a kernel starting): {name: what run_notebook returned}."""
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        runs = {}
        for path in paths:
            (folder / path.stem).mkdir(parents=True)
            runs[path.name] = pool.submit(run_notebook, path, folder / path.stem, budget_s)
    return {name: run.result() for name, run in runs.items()}


@pytest.fixture(scope="module")
def notebook_runs(tmp_path_factory):
    """Every page's notebook run once."""
    return run_notebooks(NOTEBOOKS, tmp_path_factory.mktemp("notebooks"))


# It starts kernels, so it is slow; make test runs it beside the pages' notebooks (notebook), which balances the two
# processes: most of its ten seconds is a kernel sleeping.
@pytest.mark.slow
@pytest.mark.notebook
def test_a_notebook_that_fails_or_runs_past_its_budget_fails_alone(tmp_path):
    """A cell that raises, a kernel that dies and a cell still running when the budget ends are each reported as
    their own notebook's failure, with the cell; the notebook beside them runs as if they were not there."""
    sources = {"sleeps": ["import time\ntime.sleep(600)"], "raises": ["x = 1", "raise ValueError('on purpose')"],
               "dies": ["import os\nos._exit(1)"], "runs": ["print(6 * 7)"]}
    paths = []
    for name, cells in sources.items():
        paths.append(tmp_path / f"{name}.ipynb")
        nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(f"# {name}")]
                                                + [nbformat.v4.new_code_cell(source) for source in cells]), paths[-1])
    runs = run_notebooks(paths, tmp_path / "runs", budget_s=10)
    failures = {name: failure for name, (failure, _) in runs.items()}
    expected = {"sleeps.ipynb": ("cell 1", "CellTimeoutError"), "raises.ipynb": ("cell 2", "on purpose"),
                "dies.ipynb": ("cell 1", "DeadKernelError")}
    for name, (cell, error) in expected.items():
        assert failures[name].startswith(f"{name}, {cell}, ") and error in failures[name], failures[name]
    assert failures["runs.ipynb"] is None
    assert runs["runs.ipynb"][1].cells[1].outputs[0].text == "42\n"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_notebook_runs(path, notebook_runs):
    failure, _ = notebook_runs[path.name]
    assert failure is None, failure


def test_the_site_serves_each_notebook_and_its_page_links_to_it(built_site):
    page = (built_site / "basics" / "steps" / "index.html").read_text()
    assert 'download="basics-steps.ipynb" href="../../generated/notebooks/basics-steps.ipynb"' in page
    for path in NOTEBOOKS:
        assert (built_site / "generated" / notebooks.FOLDER / path.name).read_text() == path.read_text()


def summary_tables(text):
    """Each ``key_averages().table()`` in ``text``: (its column names, the names of its rows that are not Python
    frames), a hash in a compiled graph's name left out."""
    found = []
    lines = text.splitlines()
    for i, line in enumerate(lines[:-2]):
        if re.fullmatch(r"-{10,}(  -+)+\s*", line) and "Name" in lines[i + 1]:
            width = len(line.split()[0])
            rows = []
            for row in lines[i + 3:]:
                if row.startswith("---"):
                    break
                name = VARYING.sub("", row[:width].strip())
                rows += [name] if name and not FRAME.search(name) else []
            found.append((tuple(re.split(r"\s{2,}", lines[i + 1].strip())), rows))
    return found


def recording_runs(notebook):
    """{recording id: what its run cell printed} for each recording the notebook runs."""
    return {RUN.match(c.source)["id"]: "".join(o.get("text", "") for o in c.outputs if o.output_type == "stream")
            for c in notebook.cells if c.cell_type == "code" and RUN.match(c.source)}


def test_the_runs_the_pages_include_are_run_by_their_notebooks():
    """Where a page shows what a recording of one rank made and its notebook defines the recording's function,
    the notebook runs it: no notebook ends in a function that nothing calls."""
    for recording in RECORDINGS:
        for page in DOCS.glob("*/*.md"):
            name = notebooks.notebook_name(str(page.relative_to(DOCS)))
            if recording.ranks > 1 or f"docs/generated/{recording.id}/" not in page.read_text() \
                    or not (GENERATED / name).exists():
                continue
            notebook = nbformat.read(GENERATED / name, as_version=4)
            if f"def {recording.function}(" in "".join(c.source for c in notebook.cells if c.cell_type == "code"):
                assert recording.id in recording_runs(notebook), (name, recording.id)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_notebook_prints_the_tables_its_page_shows(path, notebook_runs):
    """Each run prints the profiler's tables that the page includes from its recording, and table.txt: the same
    columns and the same first two rows among its rows (modulo the times, which are this machine's); a table with
    Python frames in it, the same columns. A recording made on a GPU is compared only by a run on one."""
    import torch

    _, notebook = notebook_runs[path.name]
    device = "cuda" if torch.cuda.is_available() else "cpu"
    for recording_id, printed in recording_runs(notebook).items():
        folder = DOCS / "generated" / recording_id
        if recording_id in TIMING_RUNS or json.loads((folder / "meta.json").read_text())["device"] != device:
            continue
        shown = {m for m in re.findall(rf"docs/generated/{recording_id}/(table[\w-]*\.txt)",
                                       "".join(p.read_text() for p in DOCS.glob("*/*.md")))}
        ran = summary_tables(printed)
        assert len(ran) == len(shown | {"table.txt"}), (recording_id, len(ran))
        for table in sorted(shown | {"table.txt"}):
            text = (folder / table).read_text()
            (columns, rows), = summary_tables(text)
            # The first two rows: below them, ops a few percent apart trade places with the machine's load, and one
            # can drop out of the printed rows (the third of reading-anti-patterns did, on a busy two-core run).
            top = set() if FRAME.search(text) else set(rows[:2])
            assert any(columns == c and top <= set(r) for c, r in ran), (recording_id, table, rows[:3])


ANALYSE = DOCS / "reference" / "analyse-in-python.py"  # a notebook in jupytext's percent format


@pytest.mark.slow
def test_the_analysis_notebook_prints_what_explain_says_of_the_same_traces(tmp_path, capsys):
    """Its verdicts are those of `profguide explain --json` on the trace it loads and on the two runs it
    compares, and it shows the step it draws as an SVG."""
    import jupytext

    from profguide import cli

    notebook = jupytext.read(ANALYSE)
    failure = run_cells(notebook, ANALYSE.name, tmp_path)
    assert failure is None, failure
    printed = ["".join(o.get("text", "") for o in c.outputs) for c in notebook.cells if c.cell_type == "code"]

    def verdict(path):
        assert cli.main(["explain", "--json", str(path)]) == 0
        return json.loads(capsys.readouterr().out)["verdict"]

    assert f": {verdict(DOCS / 'traces' / 'a100_nccl_2rank_rank0.json.gz')}\n" in printed[1]
    runs = [verdict(DOCS / "generated" / f"reading-input-workers-{n}" / "trace.json.gz") for n in (0, 2)]
    assert next(line for line in printed[-1].splitlines() if "verdict" in line).split()[1:] == runs
    figures = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs
               if "image/svg+xml" in o.get("data", {})]
    assert len(figures) == 1 and "ProfilerStep#" in figures[0]["data"]["image/svg+xml"]


QUERY = DOCS / "reference" / "query-with-sql.py"  # the SQL page: a notebook too, its checks asserts in its cells


@pytest.mark.slow
def test_the_sql_notebook_runs_its_checks_against_explain(tmp_path):
    """Its cells export real traces, query them with DuckDB and Polars, and assert explain's own numbers where
    explain gives one: a run that ends without error is a run whose checks held."""
    import jupytext

    notebook = jupytext.read(QUERY)
    failure = run_cells(notebook, QUERY.name, tmp_path)
    assert failure is None, failure
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert sum("assert " in c.source for c in code) >= 3  # the idle gaps, the ops, the two ranks
    printed = ["".join(o.get("text", "") for o in c.outputs) for c in code]
    assert "events.parquet" in printed[0] and "agrees with explain --ops" in printed[-2]
    assert printed[-1].count("rank 1's start") >= 1
