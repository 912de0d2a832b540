"""profguide.site.operators: the committed registry is the installed torch's, so a claim may name any operator."""

import subprocess
import sys

import pytest

from profguide.site import operators
from tests.helpers import ROOT


@pytest.mark.slow
def test_the_committed_registry_is_the_installed_torchs():
    """Read in a fresh interpreter, as the command that writes it does: modules a test session imports register
    operators of their own."""
    pytest.importorskip("torch")
    fresh = subprocess.run([sys.executable, "-c", "import torch; from profguide.site.operators import file_text; "
                            "print(file_text(torch), end='')"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert operators.FILE.read_text() == fresh.stdout, (
        "the installed torch registers other operators: run `python -m profguide.site.operators`")


def test_the_registry_holds_operators_by_name_without_overloads():
    names = operators.names()
    assert {"aten::add", "aten::_scaled_dot_product_cudnn_attention", "c10d::allreduce_"} <= names
    assert not any(name.startswith("#") or "." in name.partition("::")[2] for name in names)
