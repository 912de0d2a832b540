"""profguide export TRACE --parquet DIR: the tables hold the trace's rows and explain's joins; bad folders are
refused in one line, and nothing half-written is left."""

import os
from collections import defaultdict

import pyarrow.parquet as pq
import pytest

from profguide import cli
from profguide.analysis.idle import idle_breakdown
from profguide.analysis.ops import op_rows
from profguide.analysis.select import gpu_work, kinds_mask, profiler_steps
from profguide.analysis.summarise import measured_window
from profguide.analysis.tables import SCHEMA, schema_tables
from profguide.patterns import STEP
from profguide.render import fragments as render
from profguide.trace.model import KIND
from tests.helpers import ROOT, TRACES

BERT = "h100_bert_small_inference.json.gz"
TEXT = "dictionary<values=string, indices=int32, ordered=0>"  # text columns: each distinct value stored once


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The BERT trace's tables, written by the command: {table: pyarrow Table}."""
    folder = tmp_path_factory.mktemp("export") / "tables"
    assert cli.main(["export", str(TRACES / BERT), "--parquet", str(folder)]) == 0
    assert sorted(os.listdir(folder)) == sorted(f"{name}.parquet" for name in SCHEMA)
    return {name: pq.read_table(folder / f"{name}.parquet") for name in SCHEMA}


def test_every_table_has_the_schemas_columns_and_types(exported):
    for name, (_, columns) in SCHEMA.items():
        assert exported[name].column_names == list(columns)
        assert [str(field.type) for field in exported[name].schema] == [
            {"string": TEXT, "int64": "int64", "float64": "double"}[kind] for kind, _ in columns.values()]


def test_row_counts_are_the_traces(exported, real_trace):
    trace = real_trace(BERT)
    assert exported["events"].num_rows == len(trace)
    kinds = exported["kernels"].column("kind").to_pylist()
    assert kinds.count("kernel") == int((trace.kind == KIND["kernel"]).sum()) > 0
    assert len(kinds) == int(gpu_work(trace).sum())
    events = exported["events"].to_pydict()
    cpu_ops = [name for name, kind in zip(events["name"], events["kind"], strict=True) if kind == "cpu_op"]
    # every cpu_op but ProfilerStep#N (a user annotation in new traces, an op in old ones)
    assert exported["ops"].num_rows == sum(not STEP.match(name) for name in cpu_ops) > 0
    steps = profiler_steps(trace)
    assert exported["steps"].column("step").to_pylist() == [step["step"] for step in steps]
    assert exported["memory"].num_rows == len(trace.memory_ts) > 0
    launches = kinds_mask(trace, ("runtime", "driver")) & (trace.correlation != -1)
    assert exported["launches"].num_rows == int(launches.sum())


def test_a_kernels_op_and_stream_are_explain_ops_join(exported, real_trace):
    """Each GPU op's time, added up by the name and shapes of the op that launched it (its op column), is that
    op row's self device time in explain --ops; its stream is its event's tid."""
    trace = real_trace(BERT)
    ops = exported["ops"].to_pydict()
    shapes = dict(zip(ops["event"], ops["shapes"], strict=True))
    kernels = exported["kernels"].to_pydict()
    by_op: dict[tuple[str, str], float] = defaultdict(float)
    for op, name, dur in zip(kernels["op"], kernels["op_name"], kernels["dur_us"], strict=True):
        if op in shapes:  # launched by an op (not by a region)
            by_op[name, shapes[op]] += dur
    rows = {(row["name"], row["shapes"]): row["self_device_us"] for row in op_rows(trace) if row["self_device_us"]}
    assert rows and by_op.keys() == rows.keys()
    for key, device_us in rows.items():
        assert by_op[key] == pytest.approx(device_us, rel=1e-9)
    events = exported["events"].to_pydict()
    for event, stream, device in zip(kernels["event"], kernels["stream"], kernels["device"], strict=True):
        assert (events["tid"][event], events["pid"][event]) == (stream, device)
    # and the ops' own columns are the op view's sums
    for row in op_rows(trace):
        picked = [i for i, (name, shape) in enumerate(zip(ops["name"], ops["shapes"], strict=True))
                  if (name, shape) == (row["name"], row["shapes"])]
        assert len(picked) == row["calls"]
        assert sum(ops["self_cpu_us"][i] for i in picked) == pytest.approx(row["self_cpu_us"], rel=1e-9, abs=1e-9)


def test_a_kernels_launch_is_the_call_with_its_correlation(exported):
    kernels = exported["kernels"].to_pydict()
    events = exported["events"].to_pydict()
    launched = [(k, c, launch) for k, c, launch in zip(kernels["event"], kernels["correlation"], kernels["launch"],
                                                       strict=True) if launch is not None]
    assert launched
    for _, correlation, launch in launched:
        assert events["correlation"][launch] == correlation and events["kind"][launch] in ("runtime", "driver")


def test_the_idle_gaps_are_explains(exported, real_trace):
    trace = real_trace(BERT)
    ops, window, _, _ = measured_window(trace)
    breakdown = idle_breakdown(trace, window, ops)
    idle = exported["idle"].to_pydict()
    assert sum(idle["dur_us"]) == pytest.approx(breakdown["idle_us"], rel=1e-9)
    longest = sorted(zip(idle["dur_us"], idle["cause"], strict=True), key=lambda gap: -gap[0])[:5]
    assert longest == [(gap["dur_us"], gap["cause"]) for gap in breakdown["longest_gaps"]]
    for cause, counted in breakdown["by_cause"].items():
        assert idle["cause"].count(cause) == counted["gaps"]


def test_the_schema_renders_a_table_for_each_table():
    text = schema_tables()
    for name, (_, columns) in SCHEMA.items():
        assert f"### `{name}`" in text
        assert all(f"| `{column}` |" in text for column in columns)


def one_line_exit_2(capsys, argv):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("profguide: ")
    return err


def test_a_file_the_trace_or_a_foreign_folder_is_refused_and_left_as_it_was(capsys, tmp_path):
    trace = str(TRACES / BERT)
    afile = tmp_path / "afile"
    afile.write_text("mine")
    assert "is a file" in one_line_exit_2(capsys, ["export", trace, "--parquet", str(afile)])
    assert afile.read_text() == "mine"
    assert "is the input" in one_line_exit_2(capsys, ["export", trace, "--parquet", trace])
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    assert "notes.txt" in one_line_exit_2(capsys, ["export", trace, "--parquet", str(foreign)])
    assert os.listdir(foreign) == ["notes.txt"]
    assert "not a folder of rank" in one_line_exit_2(capsys, ["export", str(tmp_path), "--parquet",
                                                              str(tmp_path / "out")])


def test_an_earlier_export_is_replaced_whole(tmp_path, real_trace):
    folder = tmp_path / "tables"
    for name in ("nccl_128rank_sampled_rank0.json.gz", BERT):
        assert cli.main(["export", str(TRACES / name), "--parquet", str(folder)]) == 0
    assert pq.read_table(folder / "events.parquet").num_rows == len(real_trace(BERT))
    assert sorted(os.listdir(tmp_path)) == ["tables"]  # no temporary folder left behind


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in a read-only folder")
def test_an_unwritable_place_is_one_line_and_leaves_nothing(capsys, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        one_line_exit_2(capsys, ["export", str(TRACES / BERT), "--parquet", str(locked / "tables")])
        assert os.listdir(locked) == []
    finally:
        locked.chmod(0o755)


def test_a_failure_while_writing_leaves_no_folder(capsys, monkeypatch, tmp_path):
    import pyarrow.parquet

    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pyarrow.parquet, "write_table", full_disk)
    assert "No space left" in one_line_exit_2(capsys, ["export", str(TRACES / BERT), "--parquet",
                                                        str(tmp_path / "tables")])
    assert os.listdir(tmp_path) == []


def test_without_pyarrow_it_says_what_to_install(capsys, monkeypatch, tmp_path):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyarrow" else real(name, *a))
    err = one_line_exit_2(capsys, ["export", str(tmp_path / "missing.json"), "--parquet", str(tmp_path / "t")])
    assert err == "profguide: export --parquet needs pyarrow: pip install 'profguide[tables]'\n"


def test_a_folder_under_a_file_is_one_line_and_leaves_nothing(capsys, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("mine")
    one_line_exit_2(capsys, ["export", str(TRACES / BERT), "--parquet", str(afile / "tables")])
    assert os.listdir(tmp_path) == ["afile"] and afile.read_text() == "mine"


def test_the_reference_shows_the_schema_as_generated():
    regenerate = "run profguide build to write the schema's tables anew"
    assert (ROOT / "docs" / "generated" / "site" / "export-tables.md").read_text() == schema_tables(), regenerate
    page = (ROOT / "docs" / "reference" / "explain.md").read_text()
    assert "## A trace as tables\n" in page and '--8<-- "docs/generated/site/export-tables.md"' in page


def readback_results(pyarrow_read_s):
    readers = {name: {"import_s": 0.2, "read_s": read, "rows": 10, "runs": []}
               for name, read in (("json", 4.0), ("pyarrow", pyarrow_read_s), ("duckdb", 1.0))}
    return {"date": "2026-12-02T16:00:00+00:00", "machine": MACHINE, "checkout": {"commit": "0" * 40, "dirty": False},
            "trace": {"source": "t.json.gz", "copies": 10, "events": 1000, "bytes": 2**20}, "repeats": 3,
            "export_s": 1.0, "parquet_bytes": 2**19, "readers": readers, "goal_speedup": 10.0,
            "read_speedup": {name: 4.0 / readers[name]["read_s"] for name in ("pyarrow", "duckdb")},
            "whole_speedup": {name: 4.2 / (readers[name]["read_s"] + 0.2) for name in ("pyarrow", "duckdb")}}


MACHINE = {"cpu": "AMD EPYC", "cores": 2, "usable_cores": 2, "memory_gib": 23.5, "os": "Linux", "python": "3.11.7"}


def test_the_readback_fragment_says_whether_the_goal_is_met():
    met = render.readback_benchmark_fragment(readback_results(0.25))
    assert "16.0×, ✓ met" in met and "| 4.0× |" in met  # pyarrow's 16×, DuckDB's 4× in its row
    assert "4.0×, ✗ not met" in render.readback_benchmark_fragment(readback_results(2.0))
