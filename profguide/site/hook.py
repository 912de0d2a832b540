"""MkDocs hook: bring the generated fragments up to date before each build. All logic is in profguide.site.build.

The rendered fragments are committed, so the site also builds without this hook.
"""

from __future__ import annotations

import atexit
import io
import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from profguide.site import build, notebook_page, notebooks
from profguide.site.catalogue import REAL_TRACES, RECORDINGS

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

log = logging.getLogger("mkdocs.hooks.profguide")


def on_config(config: MkDocsConfig) -> None:
    """mkdocs-jupyter's kernels start on local sockets in a folder of the build's own, and its cache of executed
    pages is kept apart for each state of profguide's code and the guide's traces (see notebook_page)."""
    if plugin := config.plugins.get("mkdocs-jupyter"):
        root = Path(config.config_file_path).parent
        plugin.config["cache_dir"] = str(notebook_page.keyed_cache(
            root / plugin.config["cache_dir"], notebook_page.inputs_key(root)))
        folder = notebook_page.local_kernel_config(tempfile.mkdtemp(prefix="profguide-kernel-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        os.environ["JUPYTER_CONFIG_PATH"] = os.pathsep.join(
            filter(None, [str(folder), os.environ.get("JUPYTER_CONFIG_PATH")]))


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """A page rendered from a notebook keeps only the styles it uses (see notebook_page)."""
    return notebook_page.used_css(html) if page.file.src_uri.endswith((".py", ".ipynb")) else html


def on_pre_build(config: MkDocsConfig) -> None:
    root = Path(config.config_file_path).parent
    statuses, _ = build.build(RECORDINGS, root, stream=io.StringIO(), real_traces=REAL_TRACES)
    for status in build.problems(statuses):
        if status.state != "fresh":
            log.warning(f"recording {status.id} is {status.state}: run `make figures` to refresh it")
        for line in status.problems:
            log.warning(line)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Under the title of a page that has a notebook, a line that links to it (see profguide.site.notebooks)."""
    path = Path(config.docs_dir) / "generated" / notebooks.FOLDER / notebooks.notebook_name(page.file.src_uri)
    if not path.is_file():
        return markdown
    title, newline, rest = markdown.partition("\n")
    line = notebooks.links(page.file.src_uri, path.read_text(), config.repo_url)
    return f"{title}{newline}\n{line}\n{rest}" if title.startswith("# ") else f"{line}\n\n{markdown}"
