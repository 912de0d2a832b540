"""Small helpers shared by the tests."""

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urljoin

from profguide.errors import RecordingError
from profguide.site.measures.results import CpuShare
from profguide.site.recordings import Claim, Recording

ROOT = Path(__file__).resolve().parents[1]
# Real traces from other machines, with their licence and source (docs/traces/README.md).
TRACES = ROOT / "docs" / "traces"


class Results(SimpleNamespace):
    """A recording's data as far as a measure of its ``results.json`` reads it: ``found`` is the file's content,
    or None where the recording wrote none."""

    @property
    def results(self):
        if self.found is None:
            raise RecordingError("no results.json")
        return self.found


def page_links(page, text):
    """Each ``<a href>`` of a built page's HTML ``text``, as written and as an address from the site's root;
    ``page`` is the page's file in the site (``basics/index.html``), served at ``/basics/``: [(href, address)]."""
    here = "/" + page.removesuffix("index.html")
    hrefs = [html.unescape(href) for href in re.findall(r'<a\b[^>]*\bhref="([^"]*)"', text)]
    return [(href, urljoin(here, href)) for href in hrefs]


def run_script(path, cwd, *args, pythonpath=(ROOT,)):
    """Run a Python script as a reader would, from ``cwd``; return the finished process."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(map(str, pythonpath)), CUDA_VISIBLE_DEVICES="")
    return subprocess.run(
        [sys.executable, str(path), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def run_profguide(cwd, *args, pythonpath=(ROOT,)):
    """``python -m profguide ARGS`` from ``cwd``, the package importable; return the finished process."""
    return run_script(ROOT / "profguide" / "__main__.py", cwd, *args, pythonpath=pythonpath)


# A recording small enough to make in a test: the first snippet on 8×8 inputs, and a page that shows it.
TINY = Recording(
    id="tiny-matmul",
    module="snippets.basics.index",
    function="profile_matmul_bias",
    params={"size": 8},
    title="tiny {size}×{size}",
    claims=(Claim("page.md", "The region encloses its ops.", CpuShare("aten::mm", "matmul_bias", self_time=False),
                  at_most=1),),
)
def nav_page(body, title, order):
    """A page's text with the front matter that places it in the nav (``profguide.site.nav``)."""
    return f"---\nnav_title: {title}\nnav_order: {order}\n---\n\n{body}"


TINY_PAGE = nav_page("""# Tiny

[The region encloses its ops.]{.claim}

--8<-- "docs/generated/tiny-matmul/figure.md"

```text
--8<-- "docs/generated/tiny-matmul/table.txt"
```

--8<-- "docs/generated/site/checked-page.md"
""", "Tiny", 1)

CATEGORY = {"cpu_op": "cpu_op", "annotation": "user_annotation", "runtime": "cuda_runtime",
            "driver": "cuda_driver", "kernel": "kernel", "memcpy": "gpu_memcpy", "memset": "gpu_memset",
            "sync": "cuda_sync", "overhead": "overhead", "python": "python_function"}


def event(name, ts, dur, kind="cpu_op", pid=100, tid=1, **args):
    """A complete trace event as torch.profiler writes it; ``args`` as keyword arguments."""
    renamed = {"External id" if key == "external_id" else key: value for key, value in args.items()}
    return {"ph": "X", "cat": CATEGORY[kind], "name": name, "ts": ts, "dur": dur, "pid": pid, "tid": tid,
            "args": renamed}


def gpu_event(name, ts, dur, stream=7, kind="kernel", **args):
    return event(name, ts, dur, kind=kind, pid=0, tid=stream, **args)


def make_trace(*events, **top_level):
    """A Trace parsed from these events, through the real loader."""
    from profguide import trace

    return trace.parse(json.dumps({"traceEvents": list(events), **top_level}).encode())


def one_cycle_trace(tmp_path, profile, **arguments):
    """Run a snippet's ``profile(on_trace_ready=…, **arguments)`` whose schedule has one cycle (repeat=1), and
    return the one trace it hands over, loaded."""
    from profguide import trace

    path, handed = tmp_path / "trace.json", []

    def save(prof):
        handed.append(path)
        prof.export_chrome_trace(str(path))

    profile(on_trace_ready=save, **arguments)
    assert handed == [path]  # one cycle, one trace
    return trace.load(path)


def real_ranks(folder):
    """``folder`` holding the two real ranks of the sampled 128-rank NCCL job, as trace-rank<r>.json.gz."""
    folder.mkdir()
    for rank in (0, 1):
        shutil.copy(TRACES / f"nccl_128rank_sampled_rank{rank}.json.gz", folder / f"trace-rank{rank}.json.gz")
    return folder
