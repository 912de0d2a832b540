"""`profguide explain TRACE --ops`: the op view as text, Markdown and JSON; a folder gets one line and exit 2."""

import io
import json
import re
import sys

import msgspec

from profguide import cli
from profguide.analysis import footprint
from profguide.analysis.op_view import OpsView
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


FOOTPRINT_TRACE = TRACES / "h100_bert_small_inference.json.gz"  # kernels with registers, shared memory, grid, block


def test_the_text_has_the_kernels_footprint_after_the_ops_with_its_notes(capsys):
    code, out, err = explain(capsys, FOOTPRINT_TRACE)
    assert code == 0, err
    lines = out.splitlines()
    section = next(at for at, line in enumerate(lines) if line.startswith(ops_view.FOOTPRINT_HEADING))
    assert next(at for at, line in enumerate(lines) if line.startswith("Ops by name")) < section < \
        next(at for at, line in enumerate(lines) if line.startswith("Modules"))
    assert lines[section + 1].split()[:3] == ["Device", "Launches", "Regs"]
    flash = next(line for line in lines[section:] if "flash_fwd_kernel" in line)
    number = re.search(r"  (\d+\.) \S.*flash_fwd_kernel", flash).group(1)  # the row's number, "3."
    assert any(line.strip().startswith(number + " ") and footprint.EXPECTED in line for line in lines[section:])


def test_the_json_lists_the_kernels_of_a_gpu_trace_and_none_of_a_cpu_one(capsys):
    kernels = json.loads(explain(capsys, FOOTPRINT_TRACE, "--json")[1])["kernels"]
    assert kernels and all(set(row) == footprint.FootprintRow.__required_keys__ for row in kernels)
    assert json.loads(explain(capsys, RECORDING, "--json")[1])["kernels"] == []
    assert f"{ops_view.FOOTPRINT_HEADING}: none recorded" in explain(capsys, RECORDING)[1]


def test_markdown_has_a_table_of_kernels_and_their_notes_by_row(capsys):
    code, out, err = explain(capsys, FOOTPRINT_TRACE, "--markdown")
    assert code == 0, err
    assert "| Kernel | Device | Launches | Regs |" in out
    assert re.search(r"^- Kernel \d+: expected: holds a tile", out, re.MULTILINE)


def test_a_trace_read_from_standard_input_says_its_footprints_were_not_read(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(FOOTPRINT_TRACE.read_bytes()))))
    code, out, err = explain(capsys, "-")
    assert code == 0, err
    assert f"{ops_view.FOOTPRINT_HEADING}: not read from standard input" in out
