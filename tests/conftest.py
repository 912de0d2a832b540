import os
import shutil
import subprocess
import sys

import pytest

from tests.helpers import ROOT


@pytest.fixture
def project(tmp_path):
    """A copy of the snippets in a scratch project root, free to edit."""
    shutil.copytree(ROOT / "snippets", tmp_path / "snippets")
    return tmp_path


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The site as `mkdocs build --strict` makes it, in a temporary folder."""
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
    )
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr
    return out
