"""`profguide explain`: real traces get an answer; bad input gets one line on stderr and exit 2."""

import gzip
import io
import json
import re
import shutil
from typing import get_args

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from profguide import cli, trace
from profguide.analysis import startup, summarise, verdict
from profguide.analysis import summary as summary_types
from profguide.analysis.summary import FolderJob, TraceSummary
from profguide.render import explain as explain_module
from profguide.site.build import SCHEMAS
from profguide.site.verdict_table import FRAGMENT, verdict_table
from tests.helpers import ROOT, TRACES

GPU_TRACES = sorted(p for p in TRACES.glob("*.json.gz") if p.name != "cpu_only_gloo.json.gz")
GENERATED = ROOT / "docs" / "generated"


def explain(capsys, *args):
    code = cli.main(["explain", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def typed_output(capsys, path, shape):
    """``explain PATH --json``, checked against its type: every key of the type there, and no other."""
    code, out, err = explain(capsys, path, "--json")
    assert code == 0, err
    decoded = msgspec.json.decode(out, type=shape)  # raises on a missing key or a value of the wrong type
    assert set(json.loads(out)) == shape.__required_keys__
    assert decoded["schema_version"] == summary_types.SCHEMA_VERSION
    return decoded


@pytest.mark.parametrize("path", GPU_TRACES, ids=lambda p: p.name)
def test_json_of_a_gpu_trace_has_the_typed_shape(capsys, path):
    summary = typed_output(capsys, path, TraceSummary)
    assert summary["window"]["dur_us"] > 0 and summary["idle"] is not None and summary["host"] is None
    assert summary["gpu_busy_pct"] + summary["gpu_idle_pct"] == pytest.approx(100)
    assert summary["verdict"] in cli_verdicts()


@pytest.mark.parametrize("path", [GENERATED / "basics-cpu-only" / "trace.json.gz", TRACES / "cpu_only_gloo.json.gz"],
                         ids=lambda p: p.parent.name + "/" + p.name)
def test_json_of_a_cpu_trace_has_the_same_shape_with_nulls(capsys, path):
    summary = typed_output(capsys, path, TraceSummary)
    assert summary["window"] is None and summary["idle"] is None and summary["gpu_busy_pct"] is None
    assert summary["host"] is not None


@pytest.mark.parametrize("folder", ["multigpu-straggler", "multigpu-ddp"])
def test_json_of_a_folder_of_ranks_has_the_typed_shape(capsys, folder):
    job = typed_output(capsys, GENERATED / folder, FolderJob)
    assert len(job["ranks"]) == 2
    assert all(set(row) == summary_types.RankRow.__required_keys__ for row in job["ranks"])


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_commands_committed_schema_is_the_one_its_types_make_and_the_page_links_it(name):
    assert json.loads((ROOT / "docs" / "generated" / "site" / name).read_text()) == \
        summary_types.json_schema(*SCHEMAS[name]), "profguide build rewrites the schemas"
    assert f"(../generated/site/{name})" in (ROOT / "docs" / "reference" / "explain.md").read_text()


def test_the_committed_schema_is_the_one_the_types_make():
    # A key renamed or retyped in profguide.analysis.summary fails here until `profguide build` rewrites the
    # schema and the reference page's field tables, both under docs/generated/site/.
    generated = ROOT / "docs" / "generated" / "site"
    regenerate = "profguide build rewrites the schema and the field tables"
    assert json.loads((generated / "explain.schema.json").read_text()) == summary_types.json_schema(), regenerate
    assert (generated / "explain-fields.md").read_text() == summary_types.field_tables(), regenerate
    page = (ROOT / "docs" / "reference" / "explain.md").read_text()
    assert '--8<-- "docs/generated/site/explain-fields.md"' in page
    assert "(../generated/site/explain.schema.json)" in page


def test_every_key_of_the_output_is_documented():
    for name, schema in summary_types.json_schema()["$defs"].items():
        assert schema.get("description"), name
        undocumented = [key for key, spec in schema["properties"].items() if not spec.get("description")]
        assert not undocumented, (name, undocumented)


def test_the_schema_version_is_the_one_the_types_accept():
    assert get_args(summary_types.SchemaVersion) == (summary_types.SCHEMA_VERSION,)


def cli_verdicts():
    return set(verdict.VERDICTS)


def test_text_puts_the_verdict_first(capsys):
    code, out, _ = explain(capsys, TRACES / "a100_nccl_2rank_rank0.json.gz")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("a100_nccl_2rank_rank0.json.gz (NVIDIA A100")
    assert lines[1].startswith("Verdict: ")
    assert lines[2].startswith("Decided by: the GPU waiting for the host while the host was running ops")
    assert lines[3].startswith("Trust: ")
    assert "GPU busy" in lines[4] and "idle" in lines[4]
    assert any(line.startswith("Where to look") for line in lines)
    assert "Communication: " in out and "Launch delay (runtime API" in out
    assert ("While the GPU waited for the host (waiting for the host to launch and host blocked in a sync: 77.0% of "
            "the window), the host was, in shares of the window that add up to it: running ops and launching their "
            "kernels 40.5%") in out


def test_the_hosts_shares_say_what_they_split_and_add_up_to_it(capsys):
    """h100_bert_small_inference: 88.1% waiting for the host to launch and 3.9% blocked in a sync; the host's
    activities split the two together (92.1%), which the line names, not the first alone."""
    code, out, _ = explain(capsys, TRACES / "h100_bert_small_inference.json.gz")
    assert code == 0
    (line,) = [line for line in out.splitlines() if line.startswith("While the GPU waited for the host")]
    wait = float(re.search(r": ([\d.]+)% of the window\)", line)[1])
    shares = [float(share) for share in re.findall(r" ([\d.]+)%(?: \(|;|\.$)", line.split("add up to it: ")[1])]
    assert wait == 92.1 and sum(shares) == pytest.approx(wait, abs=0.05 * len(shares) + 0.05)


def test_the_idle_share_by_htas_rule_is_printed_and_in_the_json(capsys):
    path = TRACES / "nccl_128rank_sampled_rank0.json.gz"
    code, out, _ = explain(capsys, path)
    assert code == 0
    summary = summarise.summarise(trace.load(path))
    by_rule = summary["gpu_idle_pct_by_htas_rule"]
    assert f"GPU idle by HolisticTraceAnalysis's rule (its ops, at the trace's own times): {by_rule:.1f}% " in out
    assert by_rule == pytest.approx(summary["gpu_idle_pct"], abs=2)
    code, out, _ = explain(capsys, path, "--json")
    assert json.loads(out)["gpu_idle_pct_by_htas_rule"] == pytest.approx(by_rule)


def test_markdown_has_a_kernel_table(capsys):
    code, out, _ = explain(capsys, TRACES / "a100_alexnet_cuda_sync.json.gz", "--markdown")
    assert code == 0
    assert out.startswith("**a100\\_alexnet\\_cuda\\_sync.json.gz")  # underscores escaped: no emphasis
    assert "| Kernel | Total | Calls | Mean | p50 | p95 | Max |" in out


def test_a_cpu_only_trace_is_split_by_host_activity(capsys):
    code, out, _ = explain(capsys, TRACES / "cpu_only_gloo.json.gz", "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["window"] is None and summary["gpu_idle_pct"] is None
    # Rank 34's main thread records nothing inside its step; two other threads run gloo's all_reduce.
    assert summary["verdict"] == "communication-bound"  # not "python": the other threads are in a collective
    host = summary["host"]
    assert [w["label"] for w in host["windows"]] == ["ProfilerStep#551"]
    assert host["by_activity"]["python"]["us"] == pytest.approx(host["dur_us"])
    assert [t["top"] for t in host["other_threads"]] == ["gloo:all_reduce"] * 2
    assert all(0 < t["busy_us"] <= host["dur_us"] for t in host["other_threads"])


def test_a_cpu_only_report_has_no_empty_headings(capsys):
    for output in ([], ["--markdown"]):
        code, out, _ = explain(capsys, TRACES / "cpu_only_gloo.json.gz", *output)
        assert code == 0
        assert "Top kernels" not in out and "Where to look" not in out
        assert "Host time on thread" in out and "most in gloo:all" in out
    lines = explain(capsys, TRACES / "cpu_only_gloo.json.gz")[1].splitlines()
    assert lines[1].startswith("Verdict: communication-bound.") and lines[-2] == "Evidence:"


def test_markdown_keeps_names_from_turning_into_emphasis(capsys, tmp_path):
    name = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
    path = write(tmp_path, "t.json", doc(event(name="ProfilerStep#1", cat="user_annotation", tid=1, dur=10),
                                         event(name=name, cat="user_annotation", tid=1, dur=8)))
    code, out, _ = explain(capsys, path, "--markdown")
    assert code == 0
    assert "(enumerate(DataLoader)#\\_SingleProcessDataLoaderIter.\\_\\_next\\_\\_)" in out
    assert "__next__" not in out


def test_each_step_of_a_cpu_only_loop_gets_a_line_up_to_a_limit(capsys, tmp_path):
    step_events = [event(name=f"ProfilerStep#{n}", cat="user_annotation", ts=100 * n, dur=100, tid=1)
                   for n in range(12)]
    loading = [event(name="enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", cat="user_annotation",
                     ts=100 * n, dur=70, tid=1) for n in range(12)]
    code, out, _ = explain(capsys, write(tmp_path, "t.json", doc(*step_events, *loading)))
    assert code == 0
    assert out.splitlines()[1].startswith("Verdict: input-bound. Loading the next batch")
    shown = [line for line in out.splitlines() if line.startswith("ProfilerStep#")]
    assert len(shown) == explain_module.HOST_STEPS_SHOWN
    assert shown[0] == "ProfilerStep#0, 100 µs: loading data 70.0%, Python outside ops 30.0%."
    assert "… and 4 more steps (--json has every one)." in out


def test_step_window(capsys):
    code, out, _ = explain(capsys, TRACES / "a100_nccl_2rank_rank0.json.gz", "--json", "--step", "5")
    assert code == 0
    summary = json.loads(out)
    step = next(s for s in summary["steps"] if s["step"] == 5)
    assert summary["window"]["start_us"] == step["start_us"]
    assert summary["window"]["end_us"] >= step["start_us"] + step["dur_us"]
    assert summary["window_definition"].startswith("ProfilerStep#5")
    code, _, err = explain(capsys, TRACES / "a100_nccl_2rank_rank0.json.gz", "--step", "99")
    assert code == 2 and err == "profguide: no ProfilerStep#99 in this trace (steps: 4, 5, 6)\n"


def test_a_folder_of_rank_traces(capsys, tmp_path):
    for name in ("nccl_128rank_sampled_rank0.json.gz", "nccl_128rank_sampled_rank1.json.gz"):
        shutil.copy(TRACES / name, tmp_path / name)
    job = typed_output(capsys, tmp_path, FolderJob)  # GPU ranks: the same keys as the CPU ranks' job
    assert [r["rank"] for r in job["ranks"]] == [0, 1]
    # Each rank's row carries its own trace's confidence, and the text names the ranks it doubts.
    for row in job["ranks"]:
        assert row["trust"] == summarise.summarise(trace.load(tmp_path / row["file"].rpartition("/")[2]))[
            "trust"]["confidence"] == "reduced"
    code, out, _ = explain(capsys, tmp_path)
    assert code == 0 and "\nTrust: reduced on rank 0, rank 1 (each rank's explain gives the reasons).\n" in out


def test_the_jobs_trust_note_names_the_doubted_ranks_up_to_a_limit():
    ranks = [{"rank": number, "file": f"r{number}", "trust": level}
             for number, level in enumerate(["high", "none", "reduced", "reduced", "reduced"])]
    assert explain_module.job_trust_note(ranks, named=2) == (
        "Trust: none on rank 1; reduced on rank 2, rank 3 and 1 more; high on the rest (each rank's explain gives "
        "the reasons).")
    assert explain_module.job_trust_note(ranks[:1]) == ("Trust: high on every rank: each rank's trace passed every "
                                                        "check.")
    assert explain_module.job_trust_note(ranks[2:]).startswith("Trust: reduced on rank 2, rank 3, rank 4 (")


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def event(**fields):
    return {"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "pid": 0, "tid": 7, **fields}


def doc(*events):
    return json.dumps({"traceEvents": list(events)}).encode()


BAD_INPUT = [
    ("truncated.json.gz", gzip.compress(doc(event()))[:-12], "truncated or corrupt gzip data"),
    ("truncated.json", doc(event())[:-5], "not valid JSON (the file ends early: truncated?)"),
    ("words.txt", b"this is not json", "not valid JSON"),
    ("empty.json", b"", "not valid JSON"),
    ("list.json", b"[]", "the trace holds no complete events, at most metadata: nothing a verdict could rest on"),
    ("no-events.json", b'{"schemaVersion": 1}', "no traceEvents list"),
    ("zero-events.json", doc(), "the trace holds no complete events"),
    ("only-negative.json", doc(event(dur=-5)), "no complete events with valid times"),
    ("no-times.json", doc({"ph": "X", "name": "k"}), "no complete events with valid times"),
    ("random.bin", bytes(range(256)) * 64, "binary data, not JSON text: not a torch.profiler trace"),
    ("two-lists.json", doc(event())[:-1] + b', "traceEvents": []}', "holds 2 traceEvents lists"),
]


@pytest.mark.parametrize(("name", "data", "message"), BAD_INPUT, ids=[b[0] for b in BAD_INPUT])
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, name, data, message):
    code, out, err = explain(capsys, write(tmp_path, name, data))
    assert code == 2
    assert out == ""
    assert err.startswith(f"profguide: {tmp_path / name}: ") and message in err
    assert err.count("\n") == 1


def test_a_number_beyond_a_double_gets_a_correct_answer_or_one_line(capsys, tmp_path):
    # msgspec 0.23 refuses 1e999 ("Number out of range"); Python's json reads it as infinity. Either keeps the
    # promise: one line and exit 2, or an answer that skips the event whose time is no number and counts it.
    path = write(tmp_path, "t.json", doc(event(), event(ts=5)).replace(b'"ts": 5', b'"ts": 1e999'))
    code, out, err = explain(capsys, path, "--json")
    if code == 0:
        summary = json.loads(out)
        assert (summary["events"], sum(summary["skipped_events"].values()), err) == (1, 1, "")
    else:
        assert (code, out) == (2, "") and err.startswith(f"profguide: {path}: ") and err.count("\n") == 1


def test_missing_path_and_empty_folder(capsys, tmp_path):
    assert explain(capsys, tmp_path / "absent.json")[2] == f"profguide: {tmp_path / 'absent.json'}: no such file\n"
    code, _, err = explain(capsys, tmp_path)
    assert code == 2 and "no .json or .json.gz trace files in this folder" in err


def test_skipped_events_are_reported_not_hidden(capsys, tmp_path):
    path = write(tmp_path, "t.json", doc(event(), event(ts=10, dur=-1), event(ts="soon")))
    code, out, _ = explain(capsys, path)
    assert code == 0
    assert "Skipped 1 events with a negative duration." in out
    assert "Skipped 1 events without a numeric ts or dur." in out


def test_events_with_odd_field_types_are_coerced_or_skipped(capsys, tmp_path):
    odd = [event(args=[1, 2]), event(name=12, pid=1.5, ts=5), event(name={"no": 1}, ts=9), event(tid=[3], ts=20)]
    code, out, _ = explain(capsys, write(tmp_path, "t.json", doc(*odd)), "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["events"] == 3
    assert summary["skipped_events"] == {"whose name or category is not text": 1}
    assert sorted(k["name"] for k in summary["top_kernels"]) == ["12", "k"]


def test_ids_and_pids_beyond_int64_are_read(capsys, tmp_path):
    path = write(tmp_path, "t.json", doc(event(pid=2**70, args={"correlation": 2**80, "External id": -(2**70)})))
    code, out, _ = explain(capsys, path, "--json")
    assert code == 0
    assert json.loads(out)["top_kernels"][0]["name"] == "k"


def test_hostile_names_are_inert(capsys, tmp_path):
    hostile = '<script>alert(1)</script>\x1b[31m|`\nnext'
    path = write(tmp_path, "t.json", doc(event(name=hostile), event(name="Memcpy " + hostile, cat="gpu_memcpy", ts=5)))
    _, text, _ = explain(capsys, path)
    assert "\x1b" not in text and "<script>alert(1)</script>?[31m|`?next" in text
    _, markdown, _ = explain(capsys, path, "--markdown")
    assert "<script>" not in markdown and "&lt;script&gt;" in markdown
    _, raw, _ = explain(capsys, path, "--json")
    assert json.loads(raw)["top_kernels"][0]["name"] == hostile


JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8),
)
FIELDS = {
    "ph": st.sampled_from(["X", "X", "X", "i", "M", "s", "f", 1, None]),
    "cat": st.sampled_from(["kernel", "cpu_op", "cuda_runtime", "gpu_memcpy", "Kernel", "user_annotation", "?"]),
    "name": st.one_of(st.text(max_size=12), st.sampled_from(["ProfilerStep#1", "ncclKernel", "aten::mm"])),
    "ts": st.one_of(st.floats(min_value=-1e6, max_value=1e6), JSON_SCALARS),
    "dur": st.one_of(st.floats(min_value=-10, max_value=1e4), JSON_SCALARS),
    "pid": JSON_SCALARS,
    "tid": JSON_SCALARS,
    "args": st.one_of(st.none(), st.dictionaries(st.sampled_from(["correlation", "External id", "bytes"]),
                                                 JSON_SCALARS, max_size=3), JSON_SCALARS),
}
EVENTS = st.lists(st.fixed_dictionaries({}, optional=FIELDS), max_size=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=EVENTS, output=st.sampled_from([[], ["--json"], ["--markdown"]]))
def test_any_list_of_events_gets_an_answer_or_one_line(capsys, tmp_path, events, output):
    path = write(tmp_path, "t.json", json.dumps({"traceEvents": events}).encode())
    code, out, err = explain(capsys, path, *output)
    if code == 0:
        assert err == ""
        if output == ["--json"]:
            assert set(msgspec.json.decode(out, type=TraceSummary)) == TraceSummary.__required_keys__
    else:
        assert code == 2 and out == ""
        assert err.startswith("profguide: ") and err.count("\n") == 1


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=64))
def test_any_bytes_get_an_answer_or_one_line(capsys, tmp_path, data):
    code, out, err = explain(capsys, write(tmp_path, "t.json", data))
    if code == 0:  # a few bytes that happen to be a trace get its answer
        assert out and err == ""
    else:
        assert (code, out) == (2, "") and err.startswith("profguide: ") and err.count("\n") == 1


def test_the_reference_page_states_the_thresholds_the_code_uses():
    page = (ROOT / "docs" / "reference" / "explain.md").read_text().replace(
        f'--8<-- "docs/generated/site/{FRAGMENT}"\n', verdict_table())  # the page as the site includes its table
    assert (f"over {verdict.EXPOSED_COMMUNICATION_PCT}% of it on a GPU busy at least "
            f"{verdict.COMPUTE_BOUND_BUSY_PCT}% of it") in page
    assert f"busy at least {verdict.COMPUTE_BOUND_BUSY_PCT}% of the window" in page
    assert f"at least {verdict.SYNC_STARTS_PCT}% of that wait began while the host sat in a synchronisation" in page
    assert f"less than {summarise.HTA_WINDOW_MIN_BUSY_PCT}% of the\nGPU's busy time" in page
    flat = " ".join(page.split())
    assert f"Device set-up takes at least {startup.STARTUP_PCT}% of the window" in flat
    assert f"When that is at least {startup.STARTUP_PCT}% of the window" in flat
    assert (f"a GPU busy at least {verdict.COMPUTE_BOUND_BUSY_PCT}% of the window is `compute-bound`, or "
            f"`communication-bound` where communication that overlaps no computation takes over "
            f"{verdict.EXPOSED_COMMUNICATION_PCT}% of it") in flat
    assert startup.COLD_START_RATIO == 2 and "the first took at least twice the median of the others" in flat
    assert f"any launch call of {startup.SLOW_LAUNCH_US / 1000:g} ms or more" in flat
    for name in verdict.VERDICTS:
        assert f"| `{name}` |" in page
    for name in verdict.HOST_VERDICTS:
        assert f"`{name}`" in page.split("## Traces without GPU work")[1].split("##")[0]
    assert explain_module.HOST_STEPS_SHOWN == 8 and "(the first eight; `--json` has\nevery one)" in page


def test_a_step_of_a_cpu_only_trace_is_split_alone(capsys):
    code, out, _ = explain(capsys, TRACES / "cpu_only_gloo.json.gz", "--json", "--step", "551")
    assert code == 0
    summary = json.loads(out)
    assert summary["verdict"] == "communication-bound" and summary["window"] is None
    assert [w["label"] for w in summary["host"]["windows"]] == ["ProfilerStep#551"]


def test_a_reader_that_stops_early_ends_the_output_quietly(capsys, monkeypatch):
    class ClosedPipe(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def fileno(self):
            return capsys_fd

    import os

    capsys_fd = os.open(os.devnull, os.O_WRONLY)
    monkeypatch.setattr("sys.stdout", ClosedPipe())
    assert cli.main(["explain", str(TRACES / "a100_cuda_event_sync.json.gz"), "--json"]) == 141
    assert capsys.readouterr().err == ""


def test_odd_input_dims_and_types_are_read_without_a_matrix_multiply(capsys, tmp_path):
    def mm(dims, types):
        return [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 2, "pid": 1, "tid": 1,
                 "args": {"Input Dims": dims, "Input type": types, "External id": 3}},
                event(ts=2, args={"External id": 3})]

    for dims, types in (([[1, 2], 3], 5), ([3, [1, 2]], ["float", 2]), ([["a", 2], [2, 3]], ["float", "float"]),
                        ("2x3", None), ([[True, 2], [2, 3]], ["float"])):
        code, out, err = explain(capsys, write(tmp_path, "t.json", doc(*mm(dims, types))), "--json")
        assert code == 0, err
        assert json.loads(out)["gemm"] == []


def test_a_step_with_nothing_recorded_says_so_and_one_step_is_counted_as_one(capsys, tmp_path):
    steps = (event(name="ProfilerStep#1", cat="user_annotation", tid=1, ts=0, dur=100),
             event(name="aten::mm", cat="cpu_op", tid=1, ts=10, dur=50),
             event(name="ProfilerStep#2", cat="user_annotation", tid=1, ts=100, dur=0))
    lines = explain(capsys, write(tmp_path, "t.json", doc(*steps)))[1].splitlines()
    assert "ProfilerStep#2, 0 ns: nothing recorded." in lines
    assert any(line.strip().startswith("Steps: 2 ProfilerSteps (#1..#2)") for line in lines)
    lines = explain(capsys, write(tmp_path, "one.json", doc(*steps[:2])))[1].splitlines()
    assert any(line.strip().startswith("Steps: 1 ProfilerStep (#1),") for line in lines)


def rank_file(folder, rank, wait_us, name=None, start=0.0, world=2):
    """A small CPU rank trace with gloo: a step, an op, and three all-reduces, each of which waits ``wait_us``
    for the last rank to arrive before its 100 µs of exchange."""
    events = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": start, "dur": 2000,
               "pid": 1, "tid": 1},
              {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": start + 10, "dur": 100, "pid": 1, "tid": 1}]
    events += [{"ph": "X", "cat": "user_annotation", "name": "gloo:all_reduce", "ts": start + end - 100 - wait_us,
                "dur": 100 + wait_us, "pid": 1, "tid": 2} for end in (500, 1000, 1500)]
    document = {"traceEvents": events, "distributedInfo": {"backend": "gloo", "rank": rank, "world_size": world}}
    path = folder / (name or f"trace-rank{rank}.json")
    path.write_text(json.dumps(document))
    return path


def test_a_folder_names_the_straggler_in_every_form(capsys, tmp_path):
    rank_file(tmp_path, 0, 300)
    rank_file(tmp_path, 1, 0)
    code, out, _ = explain(capsys, tmp_path)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"{tmp_path.name}: 2 rank traces of a job of 2, gloo"
    assert lines[1].startswith("Job verdict: straggler. Rank 1 is the straggler")
    assert "rank 0 waited 900 µs for it (45.0% of its time)" in out
    # The straggler's time is set beside the others' in the same measure, not beside their Communication column.
    assert "ran lasted 300 µs on it, their durations added one by one, against 1.20 ms on rank 0" in out
    code, out, _ = explain(capsys, tmp_path, "--markdown")
    assert code == 0 and "| Rank | Measured on | Window |" in out and "| rank 1 | main thread |" in out
    code, out, _ = explain(capsys, tmp_path, "--json")
    job = json.loads(out)
    assert code == 0 and job["straggler"] == 1 and job["verdict"] == "straggler"
    assert [(row["rank"], row["wait_us"]) for row in job["ranks"]] == [(0, 900), (1, 0)]


def test_a_recordings_folder_is_read_by_its_trace_files(capsys, tmp_path):
    rank_file(tmp_path, 0, 0)
    rank_file(tmp_path, 1, 0)
    (tmp_path / "meta.json").write_text("{}")
    (tmp_path / "averages-rank0.json").write_text("[]")
    code, out, err = explain(capsys, tmp_path, "--json")
    assert code == 0, err
    assert [row["rank"] for row in json.loads(out)["ranks"]] == [0, 1]


@pytest.mark.parametrize("case", ["same rank", "broken trace", "missing step"])
def test_a_folder_with_bad_rank_traces_is_one_line_and_exit_2(capsys, tmp_path, case):
    rank_file(tmp_path, 0, 0)
    args = []
    if case == "same rank":
        rank_file(tmp_path, 0, 0, name="trace-copy.json")
    elif case == "broken trace":
        (tmp_path / "trace-rank1.json").write_text('{"traceEvents": [')
    else:
        args = ["--step", "9"]
    code, out, err = explain(capsys, tmp_path, *args)
    assert (code, out) == (2, "") and err.startswith("profguide: ") and err.count("\n") == 1
    assert {"same rank": "says it is rank 0, as", "broken trace": "trace-rank1.json: not valid JSON",
            "missing step": "trace-rank0.json: no ProfilerStep#9"}[case] in err


def test_symbolic_link_loops_are_one_line(capsys, tmp_path):
    folder = tmp_path / "ranks"
    folder.mkdir()
    rank_file(folder, 0, 0)
    (folder / "trace-loop.json").symlink_to(folder / "trace-loop.json")
    code, out, err = explain(capsys, folder, "--json")  # not a rank left out unsaid
    assert (code, out) == (2, "") and err == (f"profguide: {folder / 'trace-loop.json'}: Too many levels of "
                                              "symbolic links, named like a trace\n")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    code, out, err = explain(capsys, tmp_path / "loop")
    assert (code, out) == (2, "") and err.count("\n") == 1


def test_128_rank_files_are_read_one_by_one_and_correctly(capsys, tmp_path):
    late = 77
    for rank in range(128):
        rank_file(tmp_path, rank, 0 if rank == late else 200 + rank, start=1e6 * rank, world=128)
    code, out, _ = explain(capsys, tmp_path, "--json")
    job = json.loads(out)
    assert code == 0 and job["world_size"] == 128
    assert [row["rank"] for row in job["ranks"]] == list(range(128))
    assert job["ranks"][job["straggler"]]["rank"] == late and job["shared_collectives"] == 3
    # Each clock is a second apart: the ranks are still matched, each waiting 3 × its own wait.
    assert all(row["wait_us"] == (0 if row["rank"] == late else 3 * (200 + row["rank"])) for row in job["ranks"])
    code, out, _ = explain(capsys, tmp_path)
    assert code == 0 and "more ranks not listed" in out and out.count("\n  rank ") == 16


def test_what_torch_compile_left_is_reported_in_every_form(capsys, tmp_path):
    from tests.analysis.test_compile import broken_step
    from tests.helpers import event

    events = [event("dynamo", -500, 400), event("dynamo_data: compile_id=0/0", -499, 1, kind="annotation"),
              *broken_step(0, 1), *broken_step(100, 2)]
    path = tmp_path / "compiled.json"
    path.write_text(json.dumps({"traceEvents": events}))
    _, out, _ = explain(capsys, path)
    assert "torch.compile: 4 compiled regions, 80.0% of the ProfilerSteps; 4 calls of a compiled graph." in out
    assert "Compiling: 1 compilation (no recompilations)" in out
    assert "graph breaks, or calls between compiled functions): 2 gaps, 40.0 µs in all" in out
    _, markdown, _ = explain(capsys, path, "--markdown")
    assert "- torch.compile: 4 compiled regions" in markdown
    _, step, _ = explain(capsys, path, "--step", 2)
    assert "1 gap, 20.0 µs in all; the longest 20.0 µs, in ProfilerStep#2" in step
    _, raw, _ = explain(capsys, path, "--json")
    found = json.loads(raw)["compile"]
    assert (found["compilations"], found["eager_gap_us"], found["triton_pct"]) == (1, 40, None)


@pytest.mark.parametrize("path", sorted(TRACES.glob("*.json.gz")), ids=lambda p: p.name)
def test_the_op_view_json_places_every_op_with_a_formula_under_its_roof_and_names_the_rest(capsys, path):
    from profguide.analysis.op_view import OpsView

    code, out, err = explain(capsys, path, "--ops", "--json")
    assert code == 0, err
    view = msgspec.json.decode(out, type=OpsView)
    roofline, rows = view["roofline"], view["roofline_ops"]
    if roofline is None:  # no GPU work: nothing judged
        assert not rows and not view["on_gpu"]
        return
    for row in rows:
        host_copy = row["kernel"].startswith("Memcpy") and "DtoD" not in row["kernel"]
        no_peak = row["flops"] > 0 and row["peak_tflops"] is None  # doubles: the table has no FP64
        assert (row["fraction"] is None) == (roofline["peaks_model"] is None or host_copy or no_peak), row
        assert row["fraction"] is None or row["fraction"] <= 1, row
    if roofline["device_us"] > roofline["modelled_us"]:  # GPU work with no formula: named by its launcher
        assert roofline["unmodelled"] and all(unnamed["name"] for unnamed in roofline["unmodelled"])
