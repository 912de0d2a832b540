"""Small helpers shared by the tests."""

import os
import subprocess
import sys
from pathlib import Path

from profguide.recordings import Recording

ROOT = Path(__file__).resolve().parents[1]


def run_script(path, cwd, *args):
    """Run a Python script as a reader would, from ``cwd``; return the finished process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), CUDA_VISIBLE_DEVICES="")
    return subprocess.run(
        [sys.executable, str(path), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


# A recording small enough to make in a test: the first snippet on 8×8 inputs.
TINY = Recording(
    id="tiny-matmul",
    snippet="snippets/basics/first_profile.py",
    function="profile_matmul_bias",
    params={"size": 8},
    title="tiny",
)
