"""The profguide command: clear one-line errors and a non-zero exit on bad requests."""

import shutil

import pytest

from profguide import cli
from profguide.site import launch
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
    assert len(lines) == len(cli.RECORDINGS)
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
