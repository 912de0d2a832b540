import os
import shutil
import subprocess
import sys

import pytest

from tests.helpers import ROOT, TINY_PAGE


@pytest.fixture
def project(tmp_path):
    """A scratch checkout of the guide: the snippets, a site configuration, and one page that shows TINY."""
    shutil.copytree(ROOT / "snippets", tmp_path / "snippets", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "mkdocs.yml").write_text("site_name: scratch\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text(TINY_PAGE)
    return tmp_path


@pytest.fixture(scope="session")
def recordings_made_once(tmp_path_factory):
    """Recordings that many tests read, each made once, in fresh processes, for the session: copy them, then
    change the copies. Returns a function: recording → its folder."""
    from profguide.site import launch

    root = tmp_path_factory.mktemp("recordings")
    shutil.copytree(ROOT / "snippets", root / "snippets", ignore=shutil.ignore_patterns("__pycache__"))
    made = {}

    def folder(recording):
        if recording.id not in made:
            launch.record(recording, "cpu", root, root / "out")
            made[recording.id] = root / "out" / recording.id
        return made[recording.id]

    return folder


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
