"""The notebooks made from the pages run, cell by cell, and are what the build would write now."""

import json
import os
import re
from concurrent.futures import ThreadPoolExecutor

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from profguide.site import notebooks
from tests.docs_collection import DOCS, ROOT, PrintingEvaluator, docs_sybil

GENERATED = DOCS / "generated" / notebooks.FOLDER
NOTEBOOKS = sorted(GENERATED.glob("*.ipynb"))


def test_the_committed_notebooks_are_what_the_build_writes():
    committed = {path.name: path.read_text() for path in NOTEBOOKS}
    assert committed == notebooks.notebook_files(ROOT), "stale notebooks: run `profguide build`"


def test_every_page_of_the_parts_with_python_has_a_notebook():
    pages = [p for part in notebooks.PARTS for p in (DOCS / part).glob("*.md")
             if any(isinstance(e.region.evaluator, PrintingEvaluator) for e in docs_sybil().parse(p))]
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


def run_notebook(path, folder):
    """Run one notebook cell by cell in a kernel of its own; None, or the failing cell and its error."""
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    client = NotebookClient(notebook, timeout=60, kernel_name="python3", resources={"metadata": {"path": folder}})
    try:
        client.execute()
    except CellExecutionError as error:
        failed = next(i for i, c in enumerate(notebook.cells) if any(o.get("output_type") == "error"
                                                                     for o in c.get("outputs", ())))
        return f"{path.name}, cell {failed}:\n{error}"
    return None


@pytest.fixture(scope="module")
def notebook_runs(tmp_path_factory):
    """Every notebook run once, as many at a time as there are cores: most of a run is a kernel starting."""
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        runs = {path.name: pool.submit(run_notebook, path, tmp_path_factory.mktemp(path.stem)) for path in NOTEBOOKS}
    return {name: run.result() for name, run in runs.items()}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_notebook_runs(path, notebook_runs):
    failure = notebook_runs[path.name]
    assert failure is None, failure


def test_the_site_serves_each_notebook_and_its_page_links_to_it(built_site):
    page = (built_site / "basics" / "steps" / "index.html").read_text()
    assert 'download="basics-steps.ipynb" href="../../generated/notebooks/basics-steps.ipynb"' in page
    for path in NOTEBOOKS:
        assert (built_site / "generated" / notebooks.FOLDER / path.name).read_text() == path.read_text()
