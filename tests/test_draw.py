"""`profguide draw`: a trace, a step or a window of it, as an SVG file."""

from profguide import cli
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
