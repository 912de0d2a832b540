"""Where the guide's source checkout is: ``profguide record`` and ``build`` work on one, and say so when not in one.

Standard library only.
"""

import os
from pathlib import Path

from profguide.errors import ProjectError

# What marks the root of the guide's checkout: its site configuration and its snippet packages.
MARKERS = ("mkdocs.yml", "snippets/__init__.py")


def is_project_root(folder: str | os.PathLike[str]) -> bool:
    return all((Path(folder) / marker).is_file() for marker in MARKERS)


def find_root(start: str | os.PathLike[str] | None = None) -> Path:
    """The nearest folder at or above ``start`` (default: the working folder) that holds the guide's source."""
    start = Path(start or Path.cwd()).resolve()
    for folder in (start, *start.parents):
        if is_project_root(folder):
            return folder
    raise ProjectError(
        f"no checkout of the guide at or above {start} (looked for {' and '.join(MARKERS)}): "
        "run this from the project, or pass --root"
    )


def checked_root(root: str | os.PathLike[str] | None) -> Path:
    """``root`` itself when given and valid, else the one found from the working folder."""
    if root is None:
        return find_root()
    if not is_project_root(root):
        raise ProjectError(f"{root}: not a checkout of the guide (no {' or '.join(MARKERS)})")
    return Path(root).resolve()
