"""The fusion and when-it-pays pages' recordings: their fragments (the per-step measure their claims use is a row
of tests/site/measures/test_compile.py)."""

import pytest

from profguide.site import fragments
from profguide.site.catalogue import by_id
from profguide.site.data import RecordingData
from profguide.site.parts.torch_compile import fusion, when_it_pays
from tests.helpers import ROOT

GENERATED = ROOT / "docs" / "generated"


def recorded(recording_id):
    """A committed recording: part of the repository, so its absence is a failure, not a reason to skip."""
    assert (GENERATED / recording_id / "meta.json").is_file(), f"{recording_id} is not recorded"
    return RecordingData(by_id(recording_id), GENERATED / recording_id)


def test_fusion_puts_the_eager_run_first_and_lists_every_op_by_name():
    text = fusion.FRAGMENTS["fusion.md"](recorded("compile-fusion-compiled"))["fusion.md"]
    rows = [line for line in text.splitlines() if line.startswith("| The MLP")]
    assert len(rows) == 2 and "eager" in rows[0] and "compiled" in rows[1]
    assert "| <code>aten::gelu</code> |" in text and "| <code>Torch-Compiled Region: 0/0</code> | 0 | 1 |" in text


def test_pays_has_a_row_per_size_with_its_ratio():
    text = when_it_pays.FRAGMENTS["pays.md"](recorded("compile-pays-small"))["pays.md"]
    rows = [line for line in text.splitlines() if line.startswith("| Eager against compiled")]
    assert [("small" in row, "large" in row) for row in rows] == [(True, False), (False, True)]
    for row, run in zip(rows, ("compile-pays-small", "compile-pays-large"), strict=True):
        timed = {step["name"]: step for step in recorded(run).results["configurations"]}
        eager, compiled = timed["eager"], timed["compiled"]
        cells = [cell.strip() for cell in row.split("|")[1:-1]]
        ratio, back = cells[4], cells[7]  # Compiled / eager; steps to win back the first call
        assert ratio == f"{compiled['median_step_us'] / eager['median_step_us']:.2f}"
        # The page: compiling pays only where Compiled / eager is under 1, and only then is the first call's
        # extra time won back, in (its extra time) / (the time each step saves) steps.
        saved = eager["median_step_us"] - compiled["median_step_us"]
        if saved > 0:
            steps = max(compiled["first_call_us"] - eager["first_call_us"], 0) / saved
            assert float(ratio) <= 1 and float(back.replace(",", "")) == pytest.approx(steps, abs=0.5)
        else:
            assert float(ratio) >= 1 and back == "never: the compiled step is not faster"


def test_fragments_refuse_a_recording_without_its_results(tmp_path):
    folder = tmp_path / "compile-pays-small"
    folder.mkdir()
    (folder / "meta.json").write_text((recorded("compile-pays-small").folder / "meta.json").read_text())
    empty = RecordingData(by_id("compile-pays-small"), folder)
    with pytest.raises(fragments.FragmentError):
        when_it_pays.FRAGMENTS["pays.md"](empty)
