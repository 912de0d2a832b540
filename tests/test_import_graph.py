"""No import cycle in profguide: every module's imports, read from its source, form a graph without one.

Every import counts, wherever it stands: at module level, inside a function (a lazy import hides a cycle from
Python, not from a reader), under ``if TYPE_CHECKING``. Relative imports are resolved; ``from pkg import mod``
is an import of ``pkg.mod`` when that module exists. Importing a submodule runs its package's ``__init__``
first, but that edge is left out: a package that re-exports its submodules would otherwise be a cycle.
"""

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

from tests.helpers import ROOT

Graph = Mapping[str, set[str]]


def module_name(path: Path, root: Path) -> str:
    """``profguide/analysis/verdict.py`` → ``profguide.analysis.verdict``; a package's ``__init__`` is the
    package."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def known_target(name: str, modules: set[str]) -> str | None:
    """The module an import of ``name`` loads: ``name`` itself, or the longest known module it is inside
    (``import a.b.c`` where only ``a.b`` is ours); None outside the package."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imported(tree: ast.Module, name: str, is_package: bool, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that the module ``name`` (whose syntax tree is ``tree``) imports."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(target for alias in node.names if (target := known_target(alias.name, modules)))
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            source = ".".join(part for part in (base, node.module or "") if part)
            for alias in node.names:
                if target := known_target(f"{source}.{alias.name}", modules):
                    found.add(target)
    return found - {name}


def import_graph(package: Path) -> dict[str, set[str]]:
    """{module: the package's modules it imports} for every module under the folder ``package``."""
    paths = sorted(package.rglob("*.py"))
    names = {path: module_name(path, package.parent) for path in paths}
    modules = set(names.values())
    return {names[path]: imported(ast.parse(path.read_text(), str(path)), names[path], path.name == "__init__.py",
                                  modules) for path in paths}


def cycles(graph: Graph) -> Iterator[list[str]]:
    """One cycle ([a, b, …, a]) through each strongly connected part of ``graph`` that has one (Tarjan's
    algorithm, iterative: the package is deep enough to make recursion a risk for no gain)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            following = next(successors, None)
            if following is not None:
                if following not in index:
                    index[following] = low[following] = len(index)
                    stack.append(following)
                    on_stack.add(following)
                    work.append((following, iter(sorted(graph.get(following, ())))))
                elif following in on_stack:
                    low[node] = min(low[node], index[following])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.add(member)
                    if member == node:
                        break
                if len(part) > 1 or node in graph.get(node, ()):
                    yield cycle_within(graph, part)


def cycle_within(graph: Graph, part: set[str]) -> list[str]:
    """A shortest cycle through the first module (by name) of the strongly connected ``part``: a path back to
    it, found breadth first inside the part."""
    first = min(part)
    came_from: dict[str, str] = {}
    frontier = [first]
    while frontier:
        following_frontier = []
        for node in frontier:
            for following in sorted(graph.get(node, ()) & part):
                if following == first:
                    path = [node]
                    while path[-1] != first:
                        path.append(came_from[path[-1]])
                    return [first, *reversed(path[:-1]), first]
                if following not in came_from:
                    came_from[following] = node
                    following_frontier.append(following)
        frontier = following_frontier
    raise AssertionError(f"{sorted(part)} is not strongly connected")


def test_profguide_has_no_import_cycle():
    graph = import_graph(ROOT / "profguide")
    found = [" → ".join(cycle) for cycle in cycles(graph)]
    assert found == [], "import cycles:\n" + "\n".join(found)


def test_the_graph_holds_lazy_relative_and_module_imports():
    graph = import_graph(ROOT / "profguide")
    assert "profguide.site.catalogue" in graph["profguide.cli"]  # imported inside a function
    assert "profguide.trace.loader" in graph["profguide.trace"]  # a package's __init__ re-exporting
    assert "profguide.analysis.diff" in graph["profguide.cli"]  # from profguide.analysis import diff as facts


def test_a_relative_import_resolves_to_its_module(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from . import top\n")
    (package / "top.py").write_text("def f():\n    from .sub import leaf\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "leaf.py").write_text("from ..top import f\nfrom .. import sub\n")
    assert import_graph(package) == {"pkg": {"pkg.top"}, "pkg.top": {"pkg.sub.leaf"},
                                     "pkg.sub": set(), "pkg.sub.leaf": {"pkg.top", "pkg.sub"}}


def test_cycles_names_each_cycle_once():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}, "g": {"g"}}
    assert sorted(cycles(graph)) == [["a", "b", "c", "a"], ["d", "e", "d"], ["g", "g"]]


def test_cycles_finds_none_in_a_graph_without_one():
    graph = {"a": {"b", "c"}, "b": {"c"}, "c": set(), "d": {"a"}}
    assert list(cycles(graph)) == []
