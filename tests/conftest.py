import shutil

import pytest

from tests.helpers import ROOT


@pytest.fixture
def project(tmp_path):
    """A copy of the snippets in a scratch project root, free to edit."""
    shutil.copytree(ROOT / "snippets", tmp_path / "snippets")
    return tmp_path
