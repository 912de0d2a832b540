"""profguide.site.operators: the committed registry is the installed torch's, so a claim may name any operator."""

import pytest

from profguide.site import operators


def test_the_committed_registry_is_the_installed_torchs():
    torch = pytest.importorskip("torch")
    assert operators.FILE.read_text() == operators.file_text(torch), (
        f"torch {torch.__version__} registers other operators: run `python -m profguide.site.operators`")


def test_the_registry_holds_operators_by_name_without_overloads():
    names = operators.names()
    assert {"aten::add", "aten::_scaled_dot_product_cudnn_attention", "c10d::allreduce_"} <= names
    assert not any(name.startswith("#") or "." in name.partition("::")[2] for name in names)
