"""Golden outputs of ``profguide explain`` on every real trace in ``docs/traces/``: its JSON and its text.

A change to an analysis, a rule or a renderer that moves any verdict, figure or sentence on a real trace shows
as a diff of these files in review. ``make goldens`` (``python -m tests.goldens``) writes them anew; the test
``tests/test_goldens.py`` fails, naming the trace, where the code's output and the committed file differ.
"""

import contextlib
import io
import os
from pathlib import Path

from profguide import cli
from tests.helpers import ROOT

TRACES = Path("docs/traces")  # relative, as a reader types it: the JSON names the file it read
GOLDENS = Path(__file__).resolve().parent
FORMS = {"json": ["--json"], "txt": []}


def real_traces():
    """Every real trace the guide ships, by name."""
    return sorted(path.name for path in (ROOT / TRACES).glob("*.json.gz"))


def golden_path(trace, form):
    return GOLDENS / f"{trace.removesuffix('.json.gz')}.{form}"


def explained(trace, form):
    """What ``profguide explain docs/traces/TRACE`` prints in ``form``, run from the project's root."""
    out, cwd = io.StringIO(), os.getcwd()
    os.chdir(ROOT)  # contextlib.chdir is Python 3.11's; the project supports 3.10
    try:
        with contextlib.redirect_stdout(out):
            code = cli.main(["explain", str(TRACES / trace), *FORMS[form]])
    finally:
        os.chdir(cwd)
    if code != 0:
        raise SystemExit(f"profguide explain {trace}: exit {code}")
    return out.getvalue()


def write_all():
    """Write every golden anew and remove those of traces no longer shipped; return the paths written."""
    wanted = {golden_path(trace, form): explained(trace, form) for trace in real_traces() for form in FORMS}
    for stale in set(GOLDENS.glob("*.json")) | set(GOLDENS.glob("*.txt")):
        if stale not in wanted:
            stale.unlink()
    for path, text in wanted.items():
        path.write_text(text)
    return sorted(wanted)

