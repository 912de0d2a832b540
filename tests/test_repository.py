"""The project stands on its own: no file refers to a path outside the repository.

A user's clone has nothing beside it, so a test, a page or a script that
reads a folder beside the checkout, or a path of the machine it was written on, works here and
fails there.
"""

import re
import subprocess

from tests.helpers import ROOT

# The folder beside the checkout that earlier sessions read, this machine's paths, and ways of climbing out.
OUTSIDE = re.compile("|".join([r"\.\./shared", "shared" + "/traces", "/work/", r"ROOT\.parent\b", r"parents\[[2-9]\]",
                               r"\.parent\.parent\b"]))
TEXT_SUFFIXES = {".py", ".md", ".txt", ".toml", ".yml", ".yaml", ".json", ".cfg", ".ini", ".css", ".js", ".html",
                 ".svg", ".sh", ""}


def project_files():
    """The project's files: what git tracks or would track (not what .gitignore leaves out), text only."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    paths = sorted({ROOT / name for name in listed if name})
    return [path for path in paths if path.is_file() and path.suffix in TEXT_SUFFIXES]


def references_outside(text):
    return sorted({match.group(0) for match in OUTSIDE.finditer(text)})


def test_no_file_refers_to_a_path_outside_the_repository():
    this_file = ROOT / "tests" / "test_repository.py"
    found = {
        str(path.relative_to(ROOT)): hits
        for path in project_files()
        if path != this_file and (hits := references_outside(path.read_text(errors="replace")))
    }
    assert found == {}


def test_the_scan_reads_the_project_and_finds_what_it_looks_for():
    names = {path.name for path in project_files()}
    assert {"Makefile", "README.md", "conftest.py", "mkdocs.yml", "run"} <= names
    assert references_outside('TRACES = ROOT.parent / "shared" / "traces"') == ["ROOT.parent"]
    sibling, folder = "../" + "shared", "shared" + "/traces"  # split, so that a grep for them finds the checks only
    assert references_outside(f"see {sibling}/traces/README.md") == [sibling]
    assert references_outside(f"copied from {folder}") == [folder]
    assert references_outside("/work/main/docs") == ["/work/"]
    assert references_outside("Path(__file__).resolve().parents[2]") == ["parents[2]"]
    assert references_outside("ROOT / 'docs' / 'traces'") == []


def test_no_source_file_is_left_out_by_gitignore():
    # A pattern meant for the built site (site/) once hid profguide/site/ from every clone.
    ignored = subprocess.run(["git", "ls-files", "--others", "--ignored", "--exclude-standard", "-z", "profguide",
                              "snippets", "tests", "docs", "benchmarks"], cwd=ROOT, capture_output=True,
                             check=True).stdout.decode().split("\0")
    source = [name for name in ignored if name.endswith((".py", ".md", ".json", ".gz", ".svg", ".txt"))]
    assert source == []
