"""How Sybil collects the code blocks of the pages, shared by conftest and the census test."""

import os
import tempfile
from pathlib import Path

from sybil import Sybil
from sybil.parsers.markdown import PythonCodeBlockParser, SkipParser

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def enter_scratch_folder(namespace):
    """Each page's blocks run in a fresh temporary folder: the traces they write land there."""
    scratch = tempfile.TemporaryDirectory(prefix="profguide-docs-")
    namespace["_scratch"] = (scratch, os.getcwd())
    os.chdir(scratch.name)


def leave_scratch_folder(namespace):
    scratch, previous = namespace.pop("_scratch")
    os.chdir(previous)
    scratch.cleanup()


def docs_sybil():
    return Sybil(
        parsers=[PythonCodeBlockParser(), SkipParser()],
        patterns=["*.md"],
        path=str(DOCS),
        excludes=["generated/*"],
        setup=enter_scratch_folder,
        teardown=leave_scratch_folder,
    )
