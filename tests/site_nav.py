"""The guide's pages as mkdocs.yml's nav lists them, for the tests that go over every page: a page added to the
nav is checked without anyone editing a list."""

from pathlib import PurePosixPath

from mkdocs.utils.yaml import yaml_load

from tests.helpers import ROOT


def pages_of(entries):
    """The source files of a nav (a list of ``{title: file}`` and ``{title: [entries]}``), in order; a bare
    string is a page too, and an address (``https://…``) is none."""
    for entry in entries:
        for target in entry.values() if isinstance(entry, dict) else (entry,):
            if isinstance(target, list):
                yield from pages_of(target)
            elif "://" not in target:
                yield target


def nav_pages():
    """Every page mkdocs.yml's nav lists, as a path under docs/ (``basics/steps.md``)."""
    with (ROOT / "mkdocs.yml").open() as config:
        return list(pages_of(yaml_load(config)["nav"]))


def built_page(source):
    """The HTML file MkDocs makes of a page with directory URLs: ``basics/steps.md`` → ``basics/steps/index.html``,
    ``basics/index.md`` → ``basics/index.html``."""
    path = PurePosixPath(source)
    folder = path.parent if path.stem == "index" else path.parent / path.stem
    return str(folder / "index.html").removeprefix("./")


def code_name(page):
    """``reading-output/gpu-waits.md`` → ``reading_output/gpu_waits``: a page's name in code."""
    return str(PurePosixPath(page).with_suffix("")).replace("-", "_")


def page_of(snippet, pages):
    """The page a snippet (``snippets/…py``, relative to the root) is named after: the page whose code name is its
    path, a prefix of its file name followed by ``_``, or its package; None for none."""
    name = str(PurePosixPath(snippet).relative_to("snippets").with_suffix(""))
    return next((page for page in pages if name == code_name(page) or name.startswith(code_name(page) + "_")
                 or name.startswith(code_name(page) + "/")), None)
