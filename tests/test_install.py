"""profguide without torch: what `pip install profguide` gives a reader who only has a trace."""

import json
import os
import re
import shutil
import subprocess
import sys
import venv

import pytest

from tests.helpers import ROOT, TRACES

REAL_TRACE = TRACES / "a100_alexnet_cuda_sync.json.gz"
CPU_RECORDING = ROOT / "docs" / "generated" / "basics-cpu-only" / "trace.json.gz"
# What the reader's commands may import of profguide (patterns and stats: the name patterns and the median
# that the analyses share); the guide's machinery, profguide.site, is not among them.
READER_MODULES = {"cli", "trace", "analysis", "figures", "render", "jsontypes", "text", "files", "errors", "limits",
                  "progress", "patterns", "stats"}

# Runs the commands in this process, then reports what they returned and what they imported.
IMPORTS_SCRIPT = """
import json, sys
{block}
from profguide import cli
codes = []
for argv in json.loads(sys.argv[1]):
    try:
        codes.append(cli.main(argv))
    except SystemExit as exited:
        codes.append(exited.code)
print(json.dumps({{"codes": codes, "modules": sorted(sys.modules),
                  "torch_blocked": "torch" in sys.modules and sys.modules["torch"] is None}}))
"""


def run_commands(tmp_path, commands, block_torch):
    """Run profguide's ``commands`` (argv lists) in one fresh interpreter; (its report, its stderr)."""
    script = IMPORTS_SCRIPT.format(block="sys.modules['torch'] = None" if block_torch else "")
    env = dict(os.environ, PYTHONPATH=str(ROOT), CUDA_VISIBLE_DEVICES="")
    done = subprocess.run([sys.executable, "-c", script, json.dumps([[str(a) for a in c] for c in commands])],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1]), done.stderr


@pytest.mark.parametrize("source", [REAL_TRACE, CPU_RECORDING], ids=["a100-trace", "cpu-recording"])
def test_explain_and_draw_work_where_torch_cannot_be_imported(tmp_path, source):
    report, _ = run_commands(tmp_path, [["explain", source], ["explain", source, "--json"],
                                        ["draw", source, "--out", tmp_path / "t.svg"]], block_torch=True)
    assert report["codes"] == [0, 0, 0]
    assert report["torch_blocked"]  # still blocked: nothing put a torch in its place
    assert (tmp_path / "t.svg").read_text().startswith("<svg")


def test_the_readers_commands_import_no_torch_and_none_of_the_guides_machinery(tmp_path):
    # torch is installed here: the commands must not import it, nor the guide's catalogue.
    report, _ = run_commands(tmp_path, [["explain", "--help"], ["draw", "--help"], ["explain", REAL_TRACE],
                                        ["draw", CPU_RECORDING, "--out", tmp_path / "t.svg"]], block_torch=False)
    assert report["codes"] == [0, 0, 0, 0]
    loaded = report["modules"]
    assert not [name for name in loaded if name == "torch" or name.startswith("torch.")]
    ours = {name.split(".")[1] for name in loaded if name.startswith("profguide.")}
    assert ours <= READER_MODULES, ours - READER_MODULES
    assert {"trace", "analysis", "figures", "render"} <= ours  # the check above saw the work being done


@pytest.mark.parametrize("argv", [["record", "basics-matmul-64"], ["build", "--refresh"]], ids=["record", "refresh"])
def test_the_recorder_without_torch_says_to_install_the_record_extra(tmp_path, argv):
    report, stderr = run_commands(tmp_path, [[*argv, "--root", ROOT]], block_torch=True)
    assert report["codes"] == [2]
    assert stderr.count("\n") == 1 and stderr.startswith("profguide: ") and "pip install 'profguide[record]'" in stderr


def lock_pin(name):
    """The version requirements/lock.txt pins ``name`` at."""
    found = re.search(rf"^{re.escape(name)}==(\S+)$", (ROOT / "requirements" / "lock.txt").read_text(), re.M)
    assert found, f"the lock pins no {name}"
    return found.group(1)


@pytest.mark.slow
def test_a_fresh_venv_with_numpy_and_msgspec_alone_runs_explain_and_draw(tmp_path):
    # What `pip install profguide` gives: the package and its two dependencies, at the lock's versions. The
    # source is copied first, so that building the wheel leaves nothing in the checkout.
    source = tmp_path / "source"
    shutil.copytree(ROOT / "profguide", source / "profguide", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source)
    venv.create(tmp_path / "venv", with_pip=True)
    python = tmp_path / "venv" / "bin" / "python"
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}

    def run(*args):
        return subprocess.run([str(a) for a in args], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=600)

    for step in (["--no-deps", f"numpy=={lock_pin('numpy')}", f"msgspec=={lock_pin('msgspec')}"],
                 ["--no-deps", source]):
        installed = run(python, "-m", "pip", "install", "-q", *step)
        assert installed.returncode == 0, installed.stderr
    assert run(python, "-c", "import torch").returncode != 0
    assert run(python, "-m", "pip", "check").returncode == 0  # nothing it needs is missing
    profguide = tmp_path / "venv" / "bin" / "profguide"
    explained = run(profguide, "explain", REAL_TRACE)
    assert explained.returncode == 0, explained.stderr
    assert explained.stdout.splitlines()[1].startswith("Verdict: ")
    drawn = run(profguide, "draw", CPU_RECORDING, "--out", tmp_path / "t.svg")
    assert drawn.returncode == 0, drawn.stderr
    assert (tmp_path / "t.svg").read_text().startswith("<svg")
    recording = run(profguide, "record", "basics-matmul-64", "--root", ROOT)
    assert recording.returncode == 2 and "profguide[record]" in recording.stderr
