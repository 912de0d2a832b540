"""`profguide draw`: a trace, a step or a window of it, as an SVG file."""

import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from profguide import cli
from profguide.errors import UsageError
from tests.helpers import TRACES


def test_draw_command(tmp_path, capsys):
    out = tmp_path / "t.svg"
    source = TRACES / "a100_nccl_2rank_rank0.json.gz"
    assert cli.main(["draw", str(source), "--out", str(out), "--step", "5"]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {out} (")
    whole = out.read_text()
    assert "ProfilerStep#5" in whole and "ProfilerStep#4" not in whole
    assert cli.main(["draw", str(source), "--out", str(out), "--window", "0:2ms"]) == 0
    assert cli.main(["draw", str(source), "--out", str(out), "--window", "2ms:1ms"]) == 2
    assert capsys.readouterr().err.endswith("END must come after START\n")
    assert not list(tmp_path.glob("*.tmp"))


def draw(capsys, *args):
    try:
        code = cli.main(["draw", *map(str, args)])
    except SystemExit as exited:  # argparse's refusal (an empty --out), one line and status 2 as well
        code = exited.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("kind", ["device", "link", "folder", "input", "root", "empty", "read-only", "hard link"])
def test_draw_never_replaces_what_is_not_its_own_file(capsys, tmp_path, kind):
    source = tmp_path / "trace.json.gz"
    shutil.copy(TRACES / "a100_cuda_event_sync.json.gz", source)
    before = source.read_bytes()
    link = tmp_path / "link.svg"
    link.symlink_to(tmp_path / "target.svg")
    kept = tmp_path / "kept.svg"
    kept.write_text("kept")
    if kind == "read-only":
        kept.chmod(0o444)
    if kind == "hard link":
        os.link(kept, tmp_path / "other-name.svg")
    out = {"device": "/dev/null", "link": link, "folder": tmp_path, "input": source, "root": "/", "empty": "",
           "read-only": kept, "hard link": kept}[kind]
    code, stdout, err = draw(capsys, source, "--out", out)
    assert (code, stdout) == (2, "") and err.startswith("profguide: ") and err.count("\n") == 1
    assert source.read_bytes() == before and not (tmp_path / "target.svg").exists() and kept.read_text() == "kept"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize(("window", "message"), [
    ("0:inf", "expected START:END"), ("nan:5", "expected START:END"), ("", "expected START:END"),
    ("1:2:3", "expected START:END"), ("5s:6s", "nothing is there"), ("1e308ms:2e308ms", "expected START:END"),
])
def test_windows_that_cannot_be_drawn_are_one_line(capsys, tmp_path, window, message):
    code, _, err = draw(capsys, TRACES / "a100_cuda_event_sync.json.gz", "--out", tmp_path / "w.svg",
                        f"--window={window}")
    assert code == 2 and message in err and err.count("\n") == 1
    assert not (tmp_path / "w.svg").exists()


def test_a_window_wider_than_the_trace_is_cut_to_it(capsys, tmp_path):
    source = TRACES / "a100_cuda_event_sync.json.gz"
    assert draw(capsys, source, "--out", tmp_path / "huge.svg", "--window=-1.7e308:1.7e308")[0] == 0
    assert draw(capsys, source, "--out", tmp_path / "whole.svg")[0] == 0
    assert (tmp_path / "huge.svg").read_text() == (tmp_path / "whole.svg").read_text()


def test_a_name_that_is_not_utf8_is_printed_escaped(capsys, tmp_path):
    import os

    source = Path(os.fsdecode(bytes(tmp_path) + b"/trace-\xff.json.gz"))
    shutil.copy(TRACES / "a100_cuda_event_sync.json.gz", source)
    out = Path(os.fsdecode(bytes(tmp_path) + b"/out-\xfe.svg"))
    code, stdout, _ = draw(capsys, source, "--out", out)
    assert code == 0 and "out-\\xfe.svg" in stdout and out.is_file()
    assert "trace-\\xff.json.gz" in out.read_text()  # the title names the file readably


def test_thousands_of_lanes_are_cut_to_the_busiest(capsys, tmp_path):
    from profguide.figures.timeline import MAX_LANES

    events = [{"ph": "X", "cat": "kernel", "name": "k", "ts": i % 100, "dur": 50 + i % 7, "pid": 0, "tid": i}
              for i in range(20_000)]
    source = tmp_path / "streams.json"
    source.write_text(json.dumps({"traceEvents": events}))
    code, _, err = draw(capsys, source, "--out", tmp_path / "s.svg")
    assert code == 0 and "beyond the busiest lanes" in err
    assert 0 < (tmp_path / "s.svg").read_text().count('class="pg-band"') <= MAX_LANES


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="0123456789.:-+eEinfatsmµu ", max_size=16))
def test_any_window_text_is_a_window_inside_the_trace_or_one_line(text):
    try:
        start, end = cli.parse_window(text, (1000.0, 5000.0))
    except UsageError as error:
        assert "\n" not in str(error) and str(error).startswith("--window ")
    else:
        assert 1000.0 <= start < end <= 5000.0


def test_a_folder_draws_its_ranks_aligned(capsys, tmp_path):
    from tests.test_explain import rank_file

    folder = tmp_path / "ranks"
    folder.mkdir()
    for rank in range(12):
        rank_file(folder, rank, 0 if rank == 5 else 100 + rank, start=1e6 * rank, world=12)
    out = tmp_path / "ranks.svg"
    code, stdout, _ = draw(capsys, folder, "--out", out)
    assert code == 0 and stdout.startswith(f"wrote {out} (") and "8 ranks drawn; 4 more left out" in stdout
    svg = out.read_text()
    assert "rank 5 · the straggler" in svg and "rank 11 · waited" in svg and "rank 0 ·" not in svg
    assert "ends at the dashed line on every rank:" in svg and "gloo:all_reduce #1. Collectives are outlined." in svg
    code, _, err = draw(capsys, folder, "--out", out, "--window", "0:1ms")
    assert code == 2 and err.startswith("profguide: --window: for one trace") and err.count("\n") == 1


# What XML 1.0 forbids (C0 controls but tab, newline and CR; U+FFFE, U+FFFF), what a terminal or a browser
# would act on (C1 controls, bidi overrides and isolates), what XML quotes, and characters beyond the BMP.
HOSTILE = "".join(map(chr, [*range(32), 127, *range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A),
                            0x200E, 0x200F, 0x061C, 0xFFFE, 0xFFFF, 0x1F600, 0x10FFFF])) + "<>&\"'aé"
hostile_text = st.text(alphabet=HOSTILE, min_size=1, max_size=12)
# A file name: no '/' or NUL, and perhaps bytes that are not UTF-8 (they come back as lone surrogates).
# A leading letter: the name is a folder's, and "", "." and ".." would name a folder that exists already.
hostile_file_name = st.builds(lambda text, raw: b"r" + text.replace("/", "").replace("\0", "").encode() + raw,
                              hostile_text, st.sampled_from([b"", b"\xff", b"\xed\xa0\x80"]))
lane_id = st.one_of(st.integers(0, 3), hostile_text)


def hostile_events(name, pid, tid):
    """Host work and the kernel it launched, named ``name`` on the lane (pid, tid), with a gloo collective."""
    return [{"ph": "X", "cat": "cpu_op", "name": name, "ts": 0, "dur": 400, "pid": pid, "tid": tid},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 10, "dur": 20, "pid": pid,
             "tid": tid, "args": {"correlation": 1}},
            {"ph": "X", "cat": "kernel", "name": name, "ts": 50, "dur": 300, "pid": 0, "tid": 7,
             "args": {"correlation": 1}},
            {"ph": "X", "cat": "user_annotation", "name": "gloo:all_reduce", "ts": 100, "dur": 200, "pid": pid,
             "tid": tid}]


def assert_well_formed(path, slices):
    """The SVG at ``path`` parses as XML, and draws ``slices`` slices, each with its tooltip."""
    from tests.figures.svg_tree import groups_by_tooltip

    svg = path.read_bytes().decode("utf-8")  # strict: a lone surrogate could not have been written
    assert len([g for g in groups_by_tooltip(svg).values() if g[0].get("height") == "20"]) >= slices


@settings(max_examples=40, deadline=None)
@given(name=hostile_text, pid=lane_id, tid=lane_id, file_name=hostile_file_name)
def test_every_svg_draw_writes_is_well_formed_xml_whatever_the_names(name, pid, tid, file_name):
    import io
    import os
    import tempfile
    from contextlib import redirect_stderr, redirect_stdout

    with tempfile.TemporaryDirectory() as folder, redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        ranks = Path(os.fsdecode(os.fsencode(folder) + b"/" + file_name))
        ranks.mkdir()
        for rank in range(2):  # no rank in the traces: the figure names each rank by its file
            source = Path(os.fsdecode(os.fsencode(ranks) + b"/" + file_name + b"%d.json" % rank))
            source.write_text(json.dumps({"traceEvents": hostile_events(name, pid, tid)}))
        out = Path(folder) / "out.svg"
        assert cli.main(["draw", str(source), "--out", str(out)]) == 0
        assert_well_formed(out, slices=3)
        assert cli.main(["draw", str(ranks), "--out", str(out)]) == 0
        assert_well_formed(out, slices=2)


NOTHING_DRAWABLE = {
    "metadata": {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}},
    "instants": {"ph": "i", "name": "mark", "ts": 10, "pid": 1, "tid": 1, "s": "t"},
    "profiler bookkeeping": {"ph": "X", "cat": "overhead", "name": "Activity Buffer Request", "ts": 10, "dur": 5,
                             "pid": 1, "tid": 1},
    "syncs on a stream": {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "ts": 10, "dur": 5, "pid": 0,
                          "tid": 7},
    "ops of no duration": {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 10, "dur": 0, "pid": 1, "tid": 1},
}


@pytest.mark.parametrize("kind", NOTHING_DRAWABLE)
def test_a_folder_whose_ranks_have_nothing_to_draw_is_one_line(capsys, tmp_path, kind):
    folder = tmp_path / "ranks"
    folder.mkdir()
    for rank in range(2):
        document = {"traceEvents": [NOTHING_DRAWABLE[kind]],
                    "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2}}
        (folder / f"rank{rank}.json").write_text(json.dumps(document))
    code, stdout, err = draw(capsys, folder, "--out", tmp_path / "ranks.svg")
    assert (code, stdout) == (2, "") and err.startswith("profguide: ") and err.count("\n") == 1, err
    assert not (tmp_path / "ranks.svg").exists()


def test_a_window_that_starts_below_zero_is_a_window_not_an_option(capsys, tmp_path):
    source = TRACES / "a100_cuda_event_sync.json.gz"
    assert draw(capsys, source, "--out", tmp_path / "negative.svg", "--window", "-5:2ms")[0] == 0
    assert draw(capsys, source, "--out", tmp_path / "zero.svg", "--window", "0:2ms")[0] == 0
    assert (tmp_path / "negative.svg").read_text() == (tmp_path / "zero.svg").read_text()  # cut to the trace
    code, _, err = draw(capsys, source, "--out", tmp_path / "x.svg", "--window", "-5:-10")
    assert (code, err) == (2, "profguide: --window '-5:-10': END must come after START\n")


def test_the_roofline_of_a_gpu_trace_draws_one_circle_per_op_with_work(capsys, tmp_path):
    from profguide import trace
    from profguide.analysis.roofline import roofline_rows

    source = TRACES / "h100_bert_small_inference.json.gz"
    code, out, _ = draw(capsys, source, "--out", tmp_path / "r.svg", "--roofline")
    svg = (tmp_path / "r.svg").read_text()
    drawable = [row for row in roofline_rows(trace.load(source)) if row["flops"] and row["tflops"]]
    assert code == 0 and svg.count('<circle class="pg-dot"') == len(drawable) > 0
    assert f"{len(drawable)} ops drawn" in out
    assert "BF16 tensor" in svg and "FP32 vector" in svg  # the GEMMs' roof and the norms' and elementwise ops'


@pytest.mark.parametrize(("name", "args", "message"), [
    ("cpu_only_gloo.json.gz", (), "no GPU work in this trace"),
    ("mi300x_vllm_piecewise_graph_execution.json.gz", (), "no peaks for this GPU"),
    ("h100_bert_small_inference.json.gz", ("--window", "1ms:2ms"), "--window: not with --roofline"),
    ("h100_bert_small_inference.json.gz", ("--step", "99"), "ProfilerStep#99"),
])
def test_a_roofline_that_cannot_be_drawn_is_one_line(capsys, tmp_path, name, args, message):
    code, _, err = draw(capsys, TRACES / name, "--out", tmp_path / "r.svg", "--roofline", *args)
    assert code == 2 and message in err and err.count("\n") == 1
    assert not (tmp_path / "r.svg").exists()


def test_a_folder_has_no_roofline(capsys, tmp_path):
    code, _, err = draw(capsys, TRACES, "--out", tmp_path / "r.svg", "--roofline")
    assert code == 2 and "--roofline draws one trace file" in err
