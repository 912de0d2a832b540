"""What `profguide explain` prints is safe: no name from a trace moves a terminal's cursor or reorders its text,
and no name turns into a link in the Markdown."""

import json
import os
import re
from pathlib import Path

import markdown
import pytest

from profguide import cli
from profguide.render.explain import markdown_text

# What a terminal acts on (C0 controls, DEL, C1 controls such as U+009B CSI and U+0085 NEL) and the marks that
# reorder text (bidi embeddings, overrides, isolates and marks); the output's own newlines aside.
TERMINAL_UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
HOSTILE = "\x1b[31m\x9b31m\x85\u202egnp.exe\u2066\u200f\u061c\x00\x7f"


def hostile_trace(folder, rank=None):
    """A trace whose every name carries ``HOSTILE``: its steps, ops, kernels, device, and its file's name."""
    events = []
    for step in range(3):
        start = step * 1000.0
        events += [
            {"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "ts": start, "dur": 900,
             "pid": 1, "tid": 1},
            {"ph": "X", "cat": "cpu_op", "name": f"aten::{HOSTILE}", "ts": start + 10, "dur": 100, "pid": 1, "tid": 1},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": start + 20, "dur": 10, "pid": 1,
             "tid": 1, "args": {"correlation": step + 1}},
            {"ph": "X", "cat": "kernel", "name": f"kernel{HOSTILE}", "ts": start + 40, "dur": 300, "pid": 0,
             "tid": 7, "args": {"correlation": step + 1}},
            {"ph": "X", "cat": "user_annotation", "name": f"gloo:all_reduce{HOSTILE}", "ts": start + 400,
             "dur": 100, "pid": 1, "tid": 2},
        ]
    document = {"traceEvents": events, "deviceProperties": [{"id": 0, "name": f"GPU{HOSTILE}"}]}
    if rank is not None:
        document["distributedInfo"] = {"backend": f"gloo{HOSTILE}", "rank": rank, "world_size": 2}
    path = Path(os.fsdecode(os.fsencode(folder) + f"/trace{HOSTILE}{rank}.json".replace("\x00", "").encode()))
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize("form", ["text", "markdown"])
@pytest.mark.parametrize("what", ["file", "folder"])
def test_nothing_explain_prints_acts_on_a_terminal(capsys, tmp_path, form, what):
    source = hostile_trace(tmp_path) if what == "file" else tmp_path
    if what == "folder":
        hostile_trace(tmp_path, 0), hostile_trace(tmp_path, 1)
    code = cli.main(["explain", str(source), *(["--markdown"] if form == "markdown" else [])])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "kernel" in out and not TERMINAL_UNSAFE.search(out + err), TERMINAL_UNSAFE.findall(out + err)


@pytest.mark.parametrize("name", ["[x](javascript:alert(1))", "<javascript:alert(1)>", "![x](javascript:alert(1))",
                                  "[x]\n\n[x]: javascript:alert(1)", "<a href='javascript:alert(1)'>x</a>",
                                  "\\[x\\](javascript:alert(1))"])
def test_no_name_makes_a_link_in_markdown(name):
    html = markdown.markdown(f"- {markdown_text(name)}")
    assert "<a" not in html and "<img" not in html, html
    assert "javascript:alert(1)" in html  # shown as text, not dropped


def test_no_kernel_name_makes_a_link_in_the_markdown_table(capsys, tmp_path):
    events = [{"ph": "X", "cat": "kernel", "name": name, "ts": 100.0 * i, "dur": 50, "pid": 0, "tid": 7}
              for i, name in enumerate(["[x](javascript:alert(1))", "<javascript:alert(1)>"])]
    source = tmp_path / "links.json"
    source.write_text(json.dumps({"traceEvents": events}))
    assert cli.main(["explain", str(source), "--markdown"]) == 0
    html = markdown.markdown(capsys.readouterr().out, extensions=["tables"])
    assert "<table>" in html and "<a" not in html, html


def test_json_writes_what_a_terminal_acts_on_as_escapes(capsys, tmp_path):
    """msgspec writes C1 controls and bidi overrides as they are: ``--json`` escapes them, losing nothing."""
    assert cli.main(["explain", str(hostile_trace(tmp_path)), "--json"]) == 0
    out = capsys.readouterr().out
    assert not TERMINAL_UNSAFE.search(out), TERMINAL_UNSAFE.findall(out)
    assert any(TERMINAL_UNSAFE.search(row["name"]) for row in json.loads(out)["top_kernels"])


PATH_HOSTILE = "\x1b]0;owned\x07\n\x1b[2J\r"  # a title change, a newline, a screen wipe and a carriage return


@pytest.mark.parametrize("argv", [["explain", "{file}"], ["explain", "{file}", "--markdown"],
                                  ["explain", "{file}", "--ops"], ["explain", "{folder}"], ["diff", "{file}", "{file}"],
                                  ["diff", "{folder}", "{folder}"],
                                  ["draw", "{file}", "--out", "{out}"], ["draw", "{folder}", "--out", "{out}"],
                                  ["explain", "{folder}/absent{hostile}.json"], ["draw", "{file}", "--out", "{file}"]])
def test_no_path_prints_what_a_terminal_acts_on(capsys, tmp_path, argv):
    folder = tmp_path / f"ranks{PATH_HOSTILE}"
    folder.mkdir()
    for rank in (0, 1):
        hostile_trace(folder, rank).rename(folder / f"rank{rank}{PATH_HOSTILE}_trace.json")
    file = folder / f"rank0{PATH_HOSTILE}_trace.json"
    cli.main([part.format(file=file, folder=folder, out=tmp_path / f"out{PATH_HOSTILE}.svg", hostile=PATH_HOSTILE)
              for part in argv])
    out, err = capsys.readouterr()
    assert (out + err).strip() and not TERMINAL_UNSAFE.search(out + err), TERMINAL_UNSAFE.findall(out + err)
