"""profguide.site reads no trace column: what it says of a trace, an analysis function computes."""

import ast
import dataclasses
from pathlib import Path

from profguide.trace.model import Trace
from tests.helpers import ROOT

SITE = ROOT / "profguide" / "site"
# The per-event arrays and the tables their codes index; a trace's metadata (its distributedInfo, the count of
# events by phase) is not a column, and a page may show it as it is.
COLUMNS = {field.name for field in dataclasses.fields(Trace)
           if "ndarray" in str(field.type) or field.name in ("names", "lanes", "shape_texts")} | {"end"}


def holds_a_trace(node: ast.expr) -> bool:
    """Whether an expression is one by which the site holds a trace: ``trace``, ``loaded``, ``….trace``,
    ``….traces[i]``."""
    if isinstance(node, ast.Name):
        return node.id in ("trace", "loaded") or node.id.endswith("_trace")
    if isinstance(node, ast.Attribute):
        return node.attr == "trace"
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "traces"


def column_reads(path: Path, root: Path = ROOT) -> list[str]:
    """``module:line column`` for each column of a trace that the module reads."""
    relative = path.relative_to(root).as_posix()
    return [f"{relative}:{node.lineno} {node.attr}" for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Attribute) and node.attr in COLUMNS and holds_a_trace(node.value)]


def test_no_module_of_the_site_reads_a_trace_column():
    found = [read for path in sorted(SITE.rglob("*.py")) for read in column_reads(path)]
    assert found == []


def test_the_check_finds_a_column_read(tmp_path):
    module = tmp_path / "module.py"
    module.write_text("def f(run):\n    return run.trace.dur.sum() + trace.kind[0]\n")
    assert sorted(column_reads(module, tmp_path)) == ["module.py:2 dur", "module.py:2 kind"]

