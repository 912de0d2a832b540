"""profguide.cli.parse_size: every --max-size is a size or one usage line, never a traceback."""

import pytest

from profguide import cli


@pytest.mark.parametrize(("text", "size"), [("500M", 500 << 20), ("4G", 4 << 30), ("1.5G", 3 << 29), ("2GiB", 2 << 30),
                                            ("64kb", 64 << 10), ("1000", 1000), (" 1T ", 1 << 40)])
def test_sizes_read_with_or_without_a_unit(text, size):
    assert cli.parse_size(text) == size


@pytest.mark.parametrize("text", ["", " ", "B", "iB", "KiB", "G", "x", "-1G", "0", "nan", "inf", "1e20T"])
def test_a_size_without_a_number_is_one_usage_line_and_exit_2(capsys, tmp_path, text):
    with pytest.raises(SystemExit) as exited:
        cli.main(["explain", str(tmp_path / "t.json"), f"--max-size={text}"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "expected a size such as 4G or 500M" in err and "Traceback" not in err
