"""``profguide diff``: text, JSON that decodes as its documented shape, Markdown, and one-line usage errors."""

import io
import sys

import msgspec
import pytest

from profguide import cli
from profguide.analysis.diff import JobDiff, TraceDiff
from tests.helpers import ROOT, TRACES

BEFORE = ROOT / "docs" / "generated" / "reading-input-workers-0" / "trace.json.gz"
AFTER = ROOT / "docs" / "generated" / "reading-input-workers-2" / "trace.json.gz"


def test_text_gives_both_verdicts_and_the_sentence(capsys):
    assert cli.main(["diff", str(BEFORE), str(AFTER)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(": input-bound.") and lines[1].endswith(": host-compute-bound.")
    assert lines[2].startswith("The time spent loading data fell: ")
    assert any(line.startswith("Step time (the median ProfilerStep): ") for line in lines)


def test_json_decodes_as_a_trace_diff(capsys):
    assert cli.main(["diff", str(BEFORE), str(AFTER), "--json"]) == 0
    found = msgspec.json.decode(capsys.readouterr().out, type=TraceDiff)
    assert found["verdict_changed"] and found["before"]["verdict"] == "input-bound"


def test_markdown_is_a_fragment_with_a_table(capsys):
    assert cli.main(["diff", str(BEFORE), str(AFTER), "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("The time spent loading data fell: ")
    assert "| step time (the median ProfilerStep) |" in out


def test_folders_give_the_job_and_json_decodes_as_a_job_diff(capsys, tmp_path):
    for side in ("a", "b"):
        (tmp_path / side).mkdir()
        for rank in (0, 1):
            (tmp_path / side / f"rank{rank}_trace.json.gz").write_bytes(
                (TRACES / f"nccl_128rank_sampled_rank{rank}.json.gz").read_bytes())
    assert cli.main(["diff", str(tmp_path / "a"), str(tmp_path / "b"), "--json", "--jobs", "1"]) == 0
    found = msgspec.json.decode(capsys.readouterr().out, type=JobDiff)
    assert [row["rank"] for row in found["ranks"]] == [0, 1]
    assert cli.main(["diff", str(tmp_path / "a"), str(tmp_path / "b"), "--jobs", "1"]) == 0
    assert capsys.readouterr().out.startswith("Before: ")


@pytest.mark.parametrize("sides", [("folder", "file"), ("-", "-"), ("missing", "file")])
def test_usage_errors_are_one_line_and_exit_2(capsys, tmp_path, sides):
    paths = {"folder": str(tmp_path), "file": str(BEFORE), "-": "-", "missing": str(tmp_path / "no.json")}
    assert cli.main(["diff", *(paths[side] for side in sides)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("profguide: ") and err.count("\n") == 1


def test_standard_input_is_one_side(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(AFTER.read_bytes())))
    assert cli.main(["diff", str(BEFORE), "-", "--json"]) == 0
    found = msgspec.json.decode(capsys.readouterr().out, type=TraceDiff)
    assert (found["before"]["verdict"], found["after"]["verdict"]) == ("input-bound", "host-compute-bound")
    assert found["after"]["file"] == "<stdin>"


def test_every_column_of_the_markdown_tables_has_a_heading(capsys):
    # A phone reads each cell under its column's heading (the site's reflowed tables): none may be blank.
    assert cli.main(["diff", str(BEFORE), str(AFTER), "--markdown"]) == 0
    tables = [block.splitlines() for block in capsys.readouterr().out.split("\n\n") if block.startswith("| ")]
    assert len(tables) >= 2
    for table in tables[1:]:  # the first names each row's measure in its first cell
        assert all(heading.strip() for heading in table[0].strip("|").split("|")), table[0]
