"""MkDocs hook: bring the generated fragments up to date before each build. All logic is in profguide.site.build.

The rendered fragments are committed, so the site also builds without this hook.
"""

import io
import logging
from pathlib import Path

from profguide.site import build
from profguide.site.catalogue import REAL_TRACES, RECORDINGS

log = logging.getLogger("mkdocs.hooks.profguide")


def on_pre_build(config):
    root = Path(config.config_file_path).parent
    statuses, _ = build.build(RECORDINGS, root, stream=io.StringIO(), real_traces=REAL_TRACES)
    for status in build.problems(statuses):
        if status.state != "fresh":
            log.warning(f"recording {status.id} is {status.state}: run `make figures` to refresh it")
        for line in status.problems:
            log.warning(line)
