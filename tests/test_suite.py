"""The suite's own markers (pyproject.toml): what `make test-fast` leaves out, and where the GPU tests run."""

import itertools
import re

import pytest
from _pytest.mark.expression import Expression

import tests.conftest
from tests.helpers import ROOT

CONFTEST = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
import pytest
from tests.conftest import pytest_collection_modifyitems

@pytest.fixture(scope="session")
def recordings_made_once():
    return "recorded"

@pytest.fixture
def recorded(recordings_made_once):
    return recordings_made_once
"""

TESTS = """
import pytest

def test_reads_a_recording(recorded):
    assert recorded == "recorded"

def test_needs_nothing():
    pass

@pytest.mark.slow
def test_marked_slow():
    pass

@pytest.mark.gpu
def test_needs_a_gpu():
    pass
"""


@pytest.fixture
def suite(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_suite=TESTS)
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow\n    gpu: gpu\n")
    return pytester


def test_a_test_that_uses_a_recording_fixture_however_indirectly_is_slow(suite, monkeypatch):
    monkeypatch.setattr(tests.conftest, "cuda_available", lambda: True)
    result = suite.runpytest_inprocess("-m", "not slow", "-v")
    result.assert_outcomes(passed=2, deselected=2)
    result.stdout.fnmatch_lines(["*test_needs_nothing PASSED*", "*test_needs_a_gpu PASSED*"])


def test_a_gpu_test_skips_without_a_gpu_and_says_where_it_runs(suite, monkeypatch):
    monkeypatch.setattr(tests.conftest, "cuda_available", lambda: False)
    result = suite.runpytest_inprocess("-m", "gpu", "-rs")
    result.assert_outcomes(skipped=1, deselected=3)
    result.stdout.fnmatch_lines([f"*{tests.conftest.NO_GPU}*"])


def test_the_refresh_workflow_runs_the_gpu_tests_on_the_recordings_it_made():
    refresh = (ROOT / ".github" / "workflows" / "refresh-figures.yml").read_text()
    assert refresh.index("run: make figures") < refresh.index("run: .venv/bin/python -m pytest -m gpu") < refresh.index(
        "create-pull-request")


def test_make_test_fast_leaves_out_exactly_the_slow_and_the_browser_tests():
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile[makefile.index("\ntest-fast:"):].split("\n\n")[0]
    assert '-m pytest -m "not slow and not browser"' in recipe and "ruff check" in recipe


def test_make_tests_two_processes_run_every_test_once_whatever_its_markers():
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile[makefile.index("\ntest:"):].split("\n\n")[0]
    expressions = re.findall(r'-m pytest -m "([^"]+)"', recipe)
    assert len(expressions) == 2
    compiled = [Expression.compile(expression) for expression in expressions]
    markers = ("slow", "notebook", "site", "browser", "gpu")
    for kept in itertools.product((False, True), repeat=len(markers)):
        marked = {name for name, on in zip(markers, kept, strict=True) if on}
        assert sum(expression.evaluate(marked.__contains__) for expression in compiled) == 1, marked
