"""profguide.site.project: record and build find the guide's checkout, or say where they looked."""

import pytest

from profguide.errors import ProjectError
from profguide.site.project import checked_root, find_root


def test_the_checkout_is_found_from_any_folder_inside_it(project):
    deep = project / "docs" / "a" / "b"
    deep.mkdir(parents=True)
    assert find_root(deep) == project.resolve()
    assert checked_root(project) == project.resolve()


def test_outside_a_checkout_the_error_says_where_it_looked(tmp_path):
    with pytest.raises(ProjectError, match=f"no checkout of the guide at or above {tmp_path.resolve()}"):
        find_root(tmp_path)
    with pytest.raises(ProjectError, match="not a checkout of the guide"):
        checked_root(tmp_path)
