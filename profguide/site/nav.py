"""The site's nav, from the pages themselves: each page says its title in the nav and its place there in its front
matter, and ``profguide build`` writes the nav that mkdocs.yml inherits (``NAV_FILE``), so that a new page is one
new file. Zensical reads mkdocs.yml's ``INHERIT`` as MkDocs does, and runs no hook: the nav is a committed file.

A page's front matter (a notebook page's: its jupytext header, ``# ``-prefixed) holds, as plain ``key: value``
lines::

    nav_title: The summary table    # its entry in the nav
    nav_order: 20                   # its place among its folder's pages
    nav_section: Reading the output # on a folder's index page: the folder's section in the nav ...
    nav_section_order: 2            # ... and its place among the sections

The home page (``docs/index.md``) has a title and an order among the sections. Standard library only: the
catalogue orders the recordings by their pages (``page_order``) on a bare GPU machine too.
"""

import json
import re
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path, PurePosixPath

from profguide.errors import ProjectError

# The file the build writes the nav to, among the site's own fragments (docs/generated/site/): mkdocs.yml inherits
# it and leaves it out of the site.
NAV_FILE = "nav.yml"
# The page files of the guide (a notebook page is a jupytext .py), and what is no page of the nav.
PAGE_SUFFIXES = (".md", ".py")
NOT_PAGES = ("generated", "traces")
FRONT_MATTER = re.compile(r"\A(?:# )?---\n(?P<body>.*?)\n(?:# )?---\n", re.DOTALL)
KEY = re.compile(r"^(?:#)?\s*(?P<key>nav_title|nav_order|nav_section|nav_section_order):[ \t]*(?P<value>.*?)\s*$",
                 re.MULTILINE)
INDEX = "index.md"


@dataclass(frozen=True)
class NavEntry:
    """One page as the nav lists it: ``page`` relative to docs/ (``basics/steps.md``)."""

    page: str
    title: str
    order: int
    section: str | None = None  # on a folder's index page: the folder's section title
    section_order: int | None = None


def nav_keys(text: str) -> dict[str, str]:
    """The ``nav_…`` keys of a page's front matter, as text; {} for a page without front matter."""
    found = FRONT_MATTER.match(text)
    return {m["key"]: m["value"] for m in KEY.finditer(found["body"])} if found else {}


def nav_entry(page: str, text: str) -> NavEntry:
    """A page's entry from its text; ProjectError, naming the page, when its front matter lacks one."""
    keys = nav_keys(text)
    missing = [key for key in ("nav_title", "nav_order") if not keys.get(key)]
    if missing:
        raise ProjectError(f"docs/{page}: its front matter has no {' or '.join(missing)}, which place it in the nav")
    try:
        order = int(keys["nav_order"])
        section_order = int(keys["nav_section_order"]) if "nav_section_order" in keys else None
    except ValueError:
        raise ProjectError(f"docs/{page}: nav_order and nav_section_order are whole numbers") from None
    return NavEntry(page, keys["nav_title"], order, keys.get("nav_section"), section_order)


def page_files(docs: Path) -> list[Path]:
    """Every page of the guide under ``docs``: the nav must list each (MkDocs' strict validation)."""
    return sorted(path for path in Path(docs).rglob("*") if path.suffix in PAGE_SUFFIXES and path.is_file()
                  and path.relative_to(docs).parts[0] not in NOT_PAGES)


def section_indexes(entries: list[NavEntry]) -> dict[str, NavEntry]:
    """{folder: its index page's entry, which names the folder's section}; ProjectError for a section named off a
    folder's index page, or a folder of pages that names none."""
    found = {}
    for entry in entries:
        if entry.section is not None:
            if PurePosixPath(entry.page).name != INDEX or entry.section_order is None:
                raise ProjectError(f"docs/{entry.page}: nav_section goes with nav_section_order, on a folder's "
                                   f"{INDEX}")
            found[folder(entry.page)] = entry
    homeless = sorted({folder(e.page) for e in entries} - set(found) - {"."})
    if homeless:
        raise ProjectError(f"docs/{homeless[0]}/{INDEX} names no nav_section: its pages have no place in the nav")
    return found


def nav_entries(docs: Path) -> list[NavEntry]:
    """Every page's entry, in the nav's order: the home page and the sections by their order, each section's
    pages by theirs."""
    entries = [nav_entry(path.relative_to(docs).as_posix(), path.read_text()) for path in page_files(docs)]
    sections = section_indexes(entries)

    def place(entry: NavEntry) -> tuple[int, int]:
        where = folder(entry.page)
        return (entry.order, 0) if where == "." else (sections[where].section_order or 0, 1 + entry.order)

    ordered = sorted(entries, key=place)
    clashes = [(a.page, b.page) for a, b in pairwise(ordered) if place(a) == place(b)]
    if clashes:
        raise ProjectError(f"docs/{clashes[0][0]} and docs/{clashes[0][1]} have the same place in the nav "
                           "(nav_order, or nav_section_order)")
    return ordered


def folder(page: str) -> str:
    """The folder of a page under docs/ (``.`` for the home page)."""
    return str(PurePosixPath(page).parent)


def page_order(docs: Path) -> list[str]:
    """The pages in the nav's order, relative to docs/."""
    return [entry.page for entry in nav_entries(docs)]


def quoted(text: str) -> str:
    """A YAML scalar in double quotes (a JSON string is one)."""
    return json.dumps(text, ensure_ascii=False)


def nav_yaml(docs: Path) -> str:
    """The file mkdocs.yml inherits its ``nav`` from: the home page, then a section for each folder."""
    entries = nav_entries(docs)
    sections = section_indexes(entries)
    lines = ["# Written by `profguide build` from the pages' front matter (profguide/site/nav.py): do not edit.",
             "nav:"]
    current = None
    for entry in entries:
        where = folder(entry.page)
        if where == ".":
            lines.append(f"  - {quoted(entry.title)}: {entry.page}")
            continue
        if where != current:
            current = where
            lines.append(f"  - {quoted(sections[where].section or '')}:")
        lines.append(f"      - {quoted(entry.title)}: {entry.page}")
    return "\n".join(lines) + "\n"
