"""How Sybil collects the code blocks of the pages, shared by conftest and the census test."""

from pathlib import Path

from sybil import Sybil
from sybil.parsers.markdown import PythonCodeBlockParser, SkipParser

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def run_in_scratch_folder(namespace):
    """Blocks that write files (traces, tables) write them into a fresh temporary folder."""
    namespace["monkeypatch"].chdir(namespace["tmp_path"])


def docs_sybil():
    return Sybil(
        parsers=[PythonCodeBlockParser(), SkipParser()],
        patterns=["*.md"],
        path=str(DOCS),
        excludes=["generated/*"],
        fixtures=["tmp_path", "monkeypatch"],
        setup=run_in_scratch_folder,
    )
