"""The snippets are one importable package per part, and each snippet has its mirror test."""

from tests.helpers import ROOT

SNIPPETS = ROOT / "snippets"


def test_every_snippet_is_in_a_part_package_and_has_its_mirror_test():
    assert (SNIPPETS / "__init__.py").is_file()
    parts = [p for p in SNIPPETS.iterdir() if p.is_dir() and p.name != "__pycache__"]
    assert parts
    for part in parts:
        assert (part / "__init__.py").is_file(), part.name
        for snippet in part.glob("*.py"):
            if snippet.name != "__init__.py":
                assert (ROOT / "tests" / "snippets" / part.name / f"test_{snippet.name}").is_file(), snippet
