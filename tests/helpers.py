"""Small helpers shared by the tests."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_script(path, cwd, *args):
    """Run a Python script as a reader would, from ``cwd``; return the finished process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), CUDA_VISIBLE_DEVICES="")
    return subprocess.run(
        [sys.executable, str(path), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
