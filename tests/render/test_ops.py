"""`profguide explain TRACE --ops`: the op view as text, Markdown and JSON; a folder gets one line and exit 2."""

import json

import msgspec

from profguide import cli
from profguide.analysis.ops import OpsView
from profguide.render import ops as ops_view
from tests.helpers import ROOT, TRACES

RECORDING = ROOT / "docs" / "generated" / "reading-memory" / "trace.json.gz"  # CPU, shapes, modules, memory
GPU_TRACE = TRACES / "a100_nccl_2rank_rank0.json.gz"


def explain(capsys, *args):
    code = cli.main(["explain", *map(str, args), "--ops"])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_json_is_an_ops_view_with_every_op(capsys):
    code, out, err = explain(capsys, RECORDING, "--json")
    assert code == 0, err
    view = msgspec.json.decode(out, type=OpsView)
    assert set(json.loads(out)) == OpsView.__required_keys__
    assert len(view["ops"]) > ops_view.OPS_SHOWN  # --json lists every op; the text the top ones
    assert view["modules"] and view["memory_peak"] and not view["on_gpu"]


def test_the_text_ranks_a_cpu_traces_ops_by_self_cpu_time_with_their_shapes(capsys):
    code, out, err = explain(capsys, RECORDING)
    assert code == 0, err
    view = msgspec.json.decode(explain(capsys, RECORDING, "--json")[1], type=OpsView)
    top = max(view["ops"], key=lambda row: row["self_cpu_us"])
    lines = out.splitlines()
    first = lines.index(next(line for line in lines if line.startswith("Ops by name")))
    assert "by self CPU time" in lines[first] and f"top {ops_view.OPS_SHOWN} of" in lines[first]
    assert lines[first + 1].split() == ["CPU", "total", "Self", "CPU", "Calls", "Op", "Input", "shapes"]
    assert top["name"] in lines[first + 2] and top["shapes"][:20] in lines[first + 2]
    assert len({len(line.split("  aten")[0]) for line in lines[first + 2 : first + 12] if "  aten" in line}) == 1
    assert any(line.startswith("Modules by class") for line in lines)
    assert any(line.startswith("  cpu: ") for line in lines)  # the memory peak


def test_the_text_of_a_gpu_trace_ranks_ops_by_device_time(capsys):
    code, out, err = explain(capsys, GPU_TRACE)
    assert code == 0, err
    lines = out.splitlines()
    assert "by device time" in lines[1] and lines[2].split()[:3] == ["Device", "Self", "device"]
    assert "No memory events" in out and "No nn.Module events" in out


def test_markdown_has_a_table_of_ops(capsys):
    code, out, err = explain(capsys, RECORDING, "--markdown")
    assert code == 0, err
    assert "| Op | Input shapes | CPU total | Self CPU | Calls |" in out
    assert "| Module | CPU total | Device | Calls |" in out
    assert "<code>aten::" in out


def test_a_step_windows_the_ops(capsys):
    everything = msgspec.json.decode(explain(capsys, RECORDING, "--json")[1], type=OpsView)
    code, out, err = explain(capsys, RECORDING, "--json", "--step", "2")
    assert code == 0, err
    step = msgspec.json.decode(out, type=OpsView)
    assert 0 < sum(r["calls"] for r in step["ops"]) < sum(r["calls"] for r in everything["ops"])


def test_a_folder_or_an_unknown_step_is_one_line_and_exit_2(capsys, tmp_path):
    (tmp_path / "rank0.json").write_text('{"traceEvents": []}')
    for args in ((tmp_path,), (RECORDING, "--step", "99")):
        code, out, err = explain(capsys, *args)
        assert code == 2 and out == ""
        assert len(err.strip().splitlines()) == 1, err
    assert "not a folder" in explain(capsys, tmp_path)[2]
