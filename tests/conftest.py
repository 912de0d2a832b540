import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.helpers import ROOT, TINY_PAGE, TRACES

# Session fixtures that start fresh processes (recordings, notebook kernels, a zensical build): a test that uses
# one, however indirectly, is slow. Tests that start processes themselves carry @pytest.mark.slow.
SLOW_FIXTURES = {"recordings_made_once", "notebook_runs", "zensical_site"}
NO_GPU = "needs a CUDA GPU: the refresh-figures workflow runs `pytest -m gpu` on its GPU runner"


def pytest_collection_modifyitems(config, items):
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if SLOW_FIXTURES & fixtures:
            item.add_marker(pytest.mark.slow)
        if "notebook_runs" in fixtures:
            item.add_marker(pytest.mark.notebook)
        if "built_site" in fixtures:
            item.add_marker(pytest.mark.site)
    gpu_tests = [item for item in items if item.get_closest_marker("gpu")]
    if gpu_tests and not cuda_available():
        for item in gpu_tests:
            item.add_marker(pytest.mark.skip(reason=NO_GPU))


def cuda_available():
    import torch  # only when a gpu test is collected: the reader's tests need no torch

    return torch.cuda.is_available()


@pytest.fixture(scope="session")
def real_trace():
    """A trace of docs/traces by its file name, loaded once for the session and shared: read it, never change
    it. Returns a function: name → Trace."""
    from profguide import trace

    return functools.cache(lambda name: trace.load(TRACES / name))


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
    change the copies. Returns a function: recording → its folder; ``.meta(recording)`` is what
    ``launch.record`` returned for it, and ``.root`` the scratch checkout they were made in (its snippets are
    the repository's)."""
    from profguide.site import launch

    root = tmp_path_factory.mktemp("recordings")
    shutil.copytree(ROOT / "snippets", root / "snippets", ignore=shutil.ignore_patterns("__pycache__"))
    made, metas = {}, {}

    def folder(recording):
        if recording.id not in made:
            metas[recording.id] = launch.record(recording, "cpu", root, root / "out")
            made[recording.id] = root / "out" / recording.id
        return made[recording.id]

    def meta(recording):
        folder(recording)
        return metas[recording.id]

    folder.meta, folder.root = meta, root
    return folder


def mkdocs_build():
    """`mkdocs build --strict` into a temporary folder, started now and left running: (process, folder),
    the folder holding site/ and build.log."""
    folder = Path(tempfile.mkdtemp(prefix="profguide-site-"))
    with open(folder / "build.log", "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder / "site")],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
        )
    return process, folder


SITE_BUILD = pytest.StashKey[tuple]()


def pytest_collection_finish(session):
    """The site build takes seconds in a process of its own: when a collected test needs it, it starts as soon
    as collection ends, and the second core makes it while the first runs the tests that come before."""
    if not session.config.option.collectonly and any(
            "built_site" in getattr(item, "fixturenames", ()) for item in session.items):
        session.config.stash[SITE_BUILD] = mkdocs_build()


def pytest_sessionfinish(session):
    process, folder = session.config.stash.get(SITE_BUILD, (None, None))
    if process is not None:
        process.kill()  # a run stopped early may leave it building
        process.wait()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def built_site(pytestconfig):
    """The site as `mkdocs build --strict` makes it, in a temporary folder."""
    if SITE_BUILD not in pytestconfig.stash:  # asked for through request.getfixturevalue, which collection misses
        pytestconfig.stash[SITE_BUILD] = mkdocs_build()
    process, folder = pytestconfig.stash[SITE_BUILD]
    process.wait(timeout=300)
    log = (folder / "build.log").read_text()
    assert process.returncode == 0, log
    assert "WARNING" not in log
    return folder / "site"
