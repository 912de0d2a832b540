"""The profguide command: clear one-line errors and a non-zero exit on bad requests."""

import gzip
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

import profguide
from profguide import cli
from profguide.errors import UsageError
from profguide.site import launch
from profguide.site.catalogue import RECORDINGS
from tests.helpers import ROOT, TRACES, run_script


def test_unknown_recording_is_one_line_and_exit_2(capsys):
    assert cli.main(["record", "no-such-recording", "--root", str(ROOT)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("profguide: no recording named 'no-such-recording' (known: basics-matmul-64")
    assert "\n" not in err


def test_cuda_without_a_gpu_is_one_line_and_exit_2(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(launch, "gpu_count", lambda: 0)
    assert cli.main(["record", "basics-matmul-64", "--device", "cuda", "--out", str(tmp_path), "--root",
                     str(ROOT)]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "profguide: basics-matmul-64: CUDA was asked for but torch sees no GPU"
    )
    assert list(tmp_path.iterdir()) == []


def test_record_outside_a_checkout_is_one_line_and_exit_2(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["record", "basics-matmul-64"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("profguide: no checkout of the guide at or above") and err.count("\n") == 1
    assert cli.main(["build", "--root", str(tmp_path)]) == 2
    assert "not a checkout of the guide" in capsys.readouterr().err


def test_record_needs_ids_or_all():
    with pytest.raises(SystemExit) as exited:
        cli.main(["record"])
    assert exited.value.code == 2


def test_list_names_every_recording_with_its_device(capsys):
    assert cli.main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(RECORDINGS)
    assert lines[0].split()[:2] == ["basics-matmul-64", "cuda"]


def test_explain_and_draw_need_no_checkout_and_no_torch(tmp_path):
    # The package alone, as a wheel installs it, with torch made absent: the reader's tool still works.
    shutil.copytree(ROOT / "profguide", tmp_path / "installed" / "profguide",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "installed" / "sitecustomize.py").write_text("import sys\nsys.modules['torch'] = None\n")
    source = TRACES / "a100_alexnet_cuda_sync.json.gz"
    explained = run_script(tmp_path / "installed" / "profguide" / "__main__.py", tmp_path, "explain", source,
                           pythonpath=(tmp_path / "installed",))
    assert explained.returncode == 0, explained.stderr
    assert explained.stdout.splitlines()[1].startswith("Verdict: ")
    drawn = run_script(tmp_path / "installed" / "profguide" / "__main__.py", tmp_path, "draw", source, "--out",
                       tmp_path / "a.svg", pythonpath=(tmp_path / "installed",))
    assert drawn.returncode == 0, drawn.stderr
    assert (tmp_path / "a.svg").read_text().startswith("<svg")


def test_a_folder_of_ranks_needs_no_checkout_and_no_torch(tmp_path):
    # The folder mode of explain and draw, run as a reader runs them, with the package alone and no torch.
    shutil.copytree(ROOT / "profguide", tmp_path / "installed" / "profguide",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "installed" / "sitecustomize.py").write_text("import sys\nsys.modules['torch'] = None\n")
    folder = tmp_path / "ranks"
    folder.mkdir()
    for rank in (0, 1):
        shutil.copy(TRACES / f"nccl_128rank_sampled_rank{rank}.json.gz", folder)
    main = tmp_path / "installed" / "profguide" / "__main__.py"
    explained = run_script(main, tmp_path, "explain", folder, pythonpath=(tmp_path / "installed",))
    assert explained.returncode == 0, explained.stderr
    assert explained.stdout.splitlines()[1].startswith("Job verdict: ")
    drawn = run_script(main, tmp_path, "draw", folder, "--out", tmp_path / "r.svg",
                       pythonpath=(tmp_path / "installed",))
    assert drawn.returncode == 0, drawn.stderr
    assert "2 ranks drawn" in drawn.stdout and (tmp_path / "r.svg").read_text().startswith("<svg")


def test_version_is_the_installed_one_and_the_source_agrees(capsys):
    from importlib.metadata import version

    tomllib = pytest.importorskip("tomllib")
    with pytest.raises(SystemExit) as exited:
        cli.main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"profguide {version('profguide')}\n"
    # The fallback for a checkout run with PYTHONPATH (a bare GPU box) says the same version.
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"] == profguide.__version__


@pytest.mark.parametrize("command", [None, *cli.EXAMPLES])
def test_help_is_plain_text(capsys, command):
    with pytest.raises(SystemExit) as exited:
        cli.main([command, "--help"] if command else ["--help"])
    assert exited.value.code == 0
    text = capsys.readouterr().out
    assert "``" not in text and "::" not in text  # no reStructuredText markup
    if command:
        assert cli.EXAMPLES[command] in text  # the examples, laid out as written


@pytest.mark.parametrize("command", list(cli.EXAMPLES))
def test_every_example_in_the_help_is_a_command_that_parses(command):
    examples = [line.split("profguide ", 1)[1] for line in cli.EXAMPLES[command].splitlines()
                if "profguide " in line and not line.startswith("Recording")]
    assert examples
    for example in examples:
        # The command alone: cut at a pipe or a redirection, and at the two spaces before what it does.
        argv = shlex.split(re.split(r" [|>] |  ", example)[0])
        assert argv[0] == command and cli.parse_args(argv).command == command, example


@pytest.mark.parametrize(("argv", "prog"), [
    ([], "profguide"),
    (["nope"], "profguide"),
    (["explain"], "profguide explain"),
    (["explain", "t.json", "--json", "--markdown"], "profguide explain"),
    (["explain", "t.json", "--max-size", "lots"], "profguide explain"),
    (["draw", "t.json"], "profguide draw"),
    (["draw", "t.json", "--out", "t.svg", "--step", "x"], "profguide draw"),
    (["record", "--all", "--device", "tpu"], "profguide record"),
])
def test_a_usage_error_is_one_line_that_points_to_the_help(capsys, argv, prog):
    with pytest.raises(SystemExit) as exited:
        cli.main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("profguide: ") and err.endswith(f" (try '{prog} --help')\n")


def with_input(monkeypatch, data):
    """Standard input holding ``data`` (bytes), as a pipe gives it."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data))))


def test_explain_reads_standard_input_gzipped_or_not(capsys, monkeypatch):
    source = TRACES / "a100_alexnet_cuda_sync.json.gz"
    assert cli.main(["explain", str(source), "--json"]) == 0
    expected = {**json.loads(capsys.readouterr().out), "file": "<stdin>"}
    for data in (source.read_bytes(), gzip.decompress(source.read_bytes())):
        with_input(monkeypatch, data)
        assert cli.main(["explain", "-", "--json"]) == 0
        assert json.loads(capsys.readouterr().out) == expected
    with_input(monkeypatch, source.read_bytes())
    assert cli.main(["explain", "-"]) == 0
    assert capsys.readouterr().out.startswith("<stdin> (")


@pytest.mark.parametrize(("data", "says"), [
    (b"", "<stdin>: not valid JSON"),
    (b"\x1f\x8b\x08\x00garbage", "<stdin>: truncated or corrupt gzip data"),
    (gzip.compress(b'{"traceEvents": [' + b" " * 4096 + b"]}"), "<stdin>: holds more than 1 KiB of JSON"),
])
def test_bad_standard_input_is_one_line_and_exit_2(capsys, monkeypatch, data, says):
    with_input(monkeypatch, data)
    assert cli.main(["explain", "-", "--max-size", "1K"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"profguide: {says}"), err


def test_a_terminal_on_standard_input_is_one_line_and_exit_2(capsys, monkeypatch):
    leader, follower = os.openpty()
    with os.fdopen(leader, "rb"), open(follower, encoding="utf-8") as terminal:
        monkeypatch.setattr(sys, "stdin", terminal)
        assert cli.main(["explain", "-"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("profguide: standard input is a terminal"), err


def test_draw_reads_standard_input_and_writes_standard_output(capsys, monkeypatch, tmp_path):
    source = TRACES / "a100_alexnet_cuda_sync.json.gz"
    with_input(monkeypatch, source.read_bytes())
    assert cli.main(["draw", "-", "--out", str(tmp_path / "a.svg")]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {tmp_path / 'a.svg'} (")
    with_input(monkeypatch, source.read_bytes())
    monkeypatch.chdir(tmp_path)
    assert cli.main(["draw", "-", "--out", "-"]) == 0
    written = capsys.readouterr()
    assert written.out == (tmp_path / "a.svg").read_text()  # the SVG alone: its report went to stderr
    assert written.err.startswith("wrote standard output (")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.svg"]  # no file named '-'


def test_a_folder_draws_to_standard_output(capsys, tmp_path):
    folder = tmp_path / "ranks"
    folder.mkdir()
    for rank in (0, 1):
        shutil.copy(TRACES / f"nccl_128rank_sampled_rank{rank}.json.gz", folder)
    assert cli.main(["draw", str(folder), "--out", "-"]) == 0
    drawn = capsys.readouterr()
    assert drawn.out.startswith("<svg") and "2 ranks drawn" in drawn.err


def test_only_profguide_errors_become_one_line_a_bug_keeps_its_traceback(capsys, monkeypatch):
    source = str(TRACES / "a100_alexnet_cuda_sync.json.gz")

    def bad_step(_args):
        raise UsageError("no ProfilerStep#9 in this trace (steps: none)")

    monkeypatch.setitem(cli.HANDLERS, "explain", bad_step)
    assert cli.main(["explain", source]) == 2
    assert capsys.readouterr().err == "profguide: no ProfilerStep#9 in this trace (steps: none)\n"
    for bug in (KeyError("ts"), OSError(5, "Input/output error"), ValueError("bad")):
        def buggy(_args, bug=bug):
            raise bug

        monkeypatch.setitem(cli.HANDLERS, "explain", buggy)
        with pytest.raises(type(bug)):
            cli.main(["explain", source])


def test_every_one_line_error_is_a_profguide_error():
    from profguide import errors

    found = [value for value in vars(errors).values() if isinstance(value, type) and issubclass(value, Exception)]
    assert {e.__name__ for e in found} >= {"TraceError", "UsageError", "OutputError", "RecordingError",
                                           "ProjectError"}
    assert all(issubclass(error, errors.ProfguideError) for error in found)


def test_an_unknown_step_or_window_is_a_usage_error_in_one_line(capsys, tmp_path):
    source = str(TRACES / "a100_alexnet_cuda_sync.json.gz")
    assert cli.main(["explain", source, "--step", "999"]) == 2
    assert capsys.readouterr().err.startswith("profguide: no ProfilerStep#999 in this trace")
    assert cli.main(["draw", source, "--out", str(tmp_path / "a.svg"), "--window", "9:1"]) == 2
    assert capsys.readouterr().err == "profguide: --window '9:1': END must come after START\n"


def explain_json(capsys, *argv):
    assert cli.main(["explain", *map(str, argv), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_explain_measures_over_the_window_asked_for_as_perfetto_times_it(capsys):
    source = TRACES / "h100_bert_small_inference.json.gz"
    whole = explain_json(capsys, source)
    summary = explain_json(capsys, source, "--window", "1ms:2500")
    origin = summary["trace_start_us"]
    assert (summary["window"]["start_us"] - origin, summary["window"]["end_us"] - origin) == (1000, 2500)
    assert summary["window_definition"] == "the window asked for, +1 ms to +2.5 ms from the trace's first event"
    assert summary["gpu_busy_pct"] != whole["gpu_busy_pct"]


@pytest.mark.parametrize("command", ["explain", "draw"])
def test_a_window_that_starts_before_the_trace_is_not_taken_for_an_option(capsys, tmp_path, command):
    """argparse takes ``-5:10`` for an option unless it is attached (``--window=-5:10``): both spellings work,
    and the window is cut to the trace's start."""
    source = str(TRACES / "h100_bert_small_inference.json.gz")
    out = ["--json"] if command == "explain" else ["--out", str(tmp_path / "a.svg")]
    assert cli.main([command, source, "--window", "-5:10", *out]) == 0
    if command == "explain":
        summary = json.loads(capsys.readouterr().out)
        assert summary["window"]["start_us"] == summary["trace_start_us"]
    assert cli.window_attached(["explain", "t", "--window", "-5:10", "--step", "-1"]) == \
        ["explain", "t", "--window=-5:10", "--step", "-1"]


@pytest.mark.parametrize(("argv", "says"), [
    (["--window", "2ms:1ms"], "--window '2ms:1ms': END must come after START"),
    (["--window", "5:5"], "--window '5:5': END must come after START"),
    (["--window", ""], "--window '': expected START:END, such as 0:1500 or 12ms:15.5ms"),
    (["--window", "1:2:3"], "--window '1:2:3': expected START:END, such as 0:1500 or 12ms:15.5ms"),
    (["--window", "100s:200s"], "--window '100s:200s': the trace spans 0 to 4.97 ms; nothing is there"),
    (["--window", "0:1", "--ops"], "--window: for one trace's explain, not --ops or a folder of ranks (use --step N)"),
])
def test_a_bad_explain_window_is_one_line_and_exit_2(capsys, argv, says):
    assert cli.main(["explain", str(TRACES / "h100_bert_small_inference.json.gz"), *argv]) == 2
    assert capsys.readouterr().err == f"profguide: {says}\n"


def test_a_window_over_a_folder_of_ranks_is_one_line_and_exit_2(capsys, tmp_path):
    assert cli.main(["explain", str(tmp_path), "--window", "0:1"]) == 2
    assert capsys.readouterr().err.startswith("profguide: --window: for one trace's explain")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full, where every write fails")
@pytest.mark.parametrize("argv", [["explain", "{trace}"], ["explain", "{trace}", "--json"],
                                  ["explain", "{trace}", "--ops"], ["draw", "{trace}", "--out", "-"],
                                  ["diff", "{trace}", "{trace}"], ["list"], ["draw", "{trace}", "--out", "{svg}"]])
def test_a_failed_write_to_standard_output_is_one_line_and_exit_2(capsys, monkeypatch, tmp_path, argv):
    source = TRACES / "a100_alexnet_cuda_sync.json.gz"
    with open("/dev/full", "w", encoding="utf-8") as full:  # a real descriptor, as a redirect gives one
        monkeypatch.setattr(sys, "stdout", full)
        code = cli.main([part.format(trace=source, svg=tmp_path / "a.svg") for part in argv])
        full.flush()  # what the interpreter does at exit: nothing is left to fail
    err = capsys.readouterr().err
    assert code == 2 and err.splitlines()[-1] == "profguide: standard output: No space left on device", err
    assert "Traceback" not in err


def test_a_closed_standard_input_is_named_closed(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)  # what Python sets when the shell closed descriptor 0 (`<&-`)
    assert cli.main(["explain", "-"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("profguide: standard input is closed"), err


def test_an_empty_output_name_is_called_empty(capsys):
    with pytest.raises(SystemExit) as exited:
        cli.main(["draw", str(TRACES / "a100_alexnet_cuda_sync.json.gz"), "--out", ""])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out: the file name is empty" in err, err


NAME_MAX = os.pathconf("/", "PC_NAME_MAX") if hasattr(os, "pathconf") else 255


@pytest.mark.parametrize("argv", [["explain", "{long}"], ["explain", "{long}", "--ops"], ["diff", "{long}", "{trace}"],
                                  ["diff", "-", "{long}"], ["draw", "{long}", "--out", "{svg}"],
                                  ["draw", "{trace}", "--out", "{long}"], ["explain", "{long}/{long}"]])
def test_a_name_longer_than_the_system_allows_is_one_line(capsys, monkeypatch, tmp_path, argv):
    with_input(monkeypatch, b"")
    long = tmp_path / ("a" * (NAME_MAX + 1))
    code = cli.main([part.format(long=long, trace=TRACES / "a100_alexnet_cuda_sync.json.gz", svg=tmp_path / "a.svg")
                     for part in argv])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.endswith("File name too long\n"), err


def test_build_without_the_docs_extra_names_it_in_one_line(tmp_path):
    # markdown (which mkdocs brings) made absent, as where profguide was installed without [docs].
    code = ("import sys; sys.modules['markdown'] = None\n"
            "from profguide import cli\n"
            f"sys.exit(cli.main(['build', '--check', '--root', {str(ROOT)!r}]))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 2, done.stderr
    assert done.stderr == ("profguide: profguide build renders the guide's pages, and markdown is not installed: "
                           "pip install 'profguide[docs]'\n")


def test_explain_with_the_capture_beside_a_replay_names_the_ops_that_captured_it(capsys):
    replay = TRACES / "mi300x_vllm_piecewise_graph_execution.json.gz"
    capture = TRACES / "mi300x_vllm_piecewise_graph_capture.json.gz"
    joined = explain_json(capsys, replay, "--capture", capture)["capture"]
    assert joined["file"] == str(capture) and joined["unmatched_ops"] == 0
    assert explain_json(capsys, replay)["capture"] is None
    assert cli.main(["explain", str(replay), "--capture", str(capture)]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("Replayed GPU time"))
    assert line.split(": ", 1)[1].startswith(joined["by_op"][0]["op"] + " ")


@pytest.mark.parametrize("extra", [["--ops"], []])
def test_capture_is_for_one_replay_trace_only(capsys, tmp_path, extra):
    source = tmp_path if not extra else TRACES / "mi300x_vllm_piecewise_graph_execution.json.gz"
    assert cli.main(["explain", str(source), "--capture", str(tmp_path / "c.json"), *extra]) == 2
    assert capsys.readouterr().err == ("profguide: --capture: for one replay trace's explain, not --ops or a folder "
                                       "of ranks\n")
