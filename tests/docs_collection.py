"""How Sybil collects the code blocks of the pages, shared by conftest and the census test.

Python blocks run in page order in one namespace per page, each page in a
fresh temporary folder. What a block prints is kept, and a ```text fence
marked ``<!-- output -->`` right after it is checked against it, so that the
output a page shows is the output the code gave (``...`` stands for any text,
as in doctest).
"""

import contextlib
import doctest
import io
import os
import sys
import tempfile
from pathlib import Path

from sybil import Region, Sybil
from sybil.evaluators.python import PythonEvaluator
from sybil.parsers.markdown import CodeBlockParser, SkipParser
from sybil.parsers.markdown.lexers import FencedCodeBlockLexer

from tests.interpreter_state import recursion_limit_restored

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
OUTPUT_MARK = "<!-- output -->"
PRINTED = "_printed"


def enter_scratch_folder(namespace):
    """Each page's blocks run in a fresh temporary folder: the traces they write land there."""
    scratch = tempfile.TemporaryDirectory(prefix="profguide-docs-")
    namespace["_scratch"] = (scratch, os.getcwd())
    os.chdir(scratch.name)


def leave_scratch_folder(namespace):
    scratch, previous = namespace.pop("_scratch")
    os.chdir(previous)
    scratch.cleanup()


# A block that calls torch.compile runs Inductor in this process, and Inductor's compile_fx raises
# sys.getrecursionlimit() to 2000 and leaves it there (unless its cache already holds the graph): such a block
# gets the limit put back after it. Any other block that changes the limit, the working directory or the umask
# is failed (tests/interpreter_state.py).
COMPILES = "torch.compile("


class PrintingEvaluator(PythonEvaluator):
    """Runs a Python block and keeps what it printed for an output fence that follows it."""

    def __call__(self, example):
        printed = io.StringIO()
        restoring = recursion_limit_restored() if COMPILES in str(example.parsed) else contextlib.nullcontext()
        try:
            with contextlib.redirect_stdout(printed), restoring:
                super().__call__(example)
        finally:
            example.namespace[PRINTED] = printed.getvalue()
            sys.stdout.write(printed.getvalue())


def line_before(text, position):
    """The nearest non-blank line above ``position``, stripped."""
    lines = [line.strip() for line in text[:position].splitlines() if line.strip()]
    return lines[-1] if lines else ""


def check_output(example):
    """An output fence's text against what the Python block before it printed; a message when they differ."""
    expected = str(example.parsed)
    printed = example.namespace.pop(PRINTED, None)
    if printed is None:
        return "an output fence, but no Python block before it has run"
    if doctest.OutputChecker().check_output(expected, printed, doctest.ELLIPSIS):
        return None
    return f"the page shows:\n{expected}\nthe block printed:\n{printed}"


class OutputParser:
    """```text fences right after ``<!-- output -->``: what the Python block above them printed."""

    lexer = FencedCodeBlockLexer("text")

    def __call__(self, document):
        for region in self.lexer(document):
            if line_before(document.text, region.start) == OUTPUT_MARK:
                yield Region(region.start, region.end, region.lexemes["source"], check_output)


def docs_sybil(path=DOCS):
    return Sybil(
        parsers=[CodeBlockParser("python", PrintingEvaluator()), OutputParser(), SkipParser()],
        patterns=["*.md"],
        path=str(path),
        excludes=["generated/*"],
        setup=enter_scratch_folder,
        teardown=leave_scratch_folder,
        # Sybil's items get no autouse fixture: each block asks for this one by name (tests/interpreter_state.py).
        # The page's own scratch folder is entered before its first block and left after its last, outside it.
        fixtures=["interpreter_left_as_found"],
    )
