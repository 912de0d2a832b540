"""profguide.site.data.load_once: a trace file read by several real traces is loaded once, and again once
written again."""

import os
import shutil

from profguide.site import data
from tests.helpers import ROOT

SMALL_TRACE = ROOT / "docs" / "generated" / "basics-cpu-only" / "trace.json.gz"


def test_a_trace_is_loaded_once_until_its_file_is_written_again(tmp_path):
    path = tmp_path / "trace.json.gz"
    shutil.copyfile(SMALL_TRACE, path)
    first = data.load_once(path)
    assert data.load_once(str(path)) is first
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    again = data.load_once(path)
    assert again is not first and len(again.name) == len(first.name)
