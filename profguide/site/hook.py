"""MkDocs hook: render the recordings before each build. All logic is in profguide.build.

The rendered files are committed, so the site also builds without this hook.
"""

import io
import logging
from pathlib import Path

from profguide.site import build
from profguide.site.recordings import RECORDINGS

log = logging.getLogger("mkdocs.hooks.profguide")


def on_pre_build(config):
    root = Path(config.config_file_path).parent
    statuses = build.build(RECORDINGS, root, Path(config.docs_dir) / "generated", stream=io.StringIO())
    for status in build.problems(statuses):
        log.warning(f"recording {status.id} is {status.state}: run `make figures` to refresh it")
