"""profguide.files: a file is replaced whole, and only a regular file that is not an input."""

import os
import stat

import pytest

from profguide.errors import OutputError
from profguide.files import check_target, replace_file


def test_a_new_or_regular_file_is_written_whole_with_ordinary_permissions(tmp_path):
    target = tmp_path / "out.svg"
    replace_file(target, "first")
    replace_file(target, "second")
    assert target.read_text() == "second"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.svg"]


@pytest.mark.parametrize("kind", ["link", "fifo", "folder", "input", "device", "root", "missing folder"])
def test_what_is_never_replaced(tmp_path, kind):
    source = tmp_path / "trace.json"
    source.write_text("{}")
    target = {
        "link": tmp_path / "link.svg",
        "fifo": tmp_path / "fifo",
        "folder": tmp_path,
        "input": source,
        "device": "/dev/null",
        "root": "/",
        "missing folder": tmp_path / "absent" / "x.svg",
    }[kind]
    if kind == "link":
        target.symlink_to(tmp_path / "elsewhere.svg")
    if kind == "fifo":
        os.mkfifo(target)
    with pytest.raises(OutputError) as raised:
        check_target(target, [source])
    assert "\n" not in str(raised.value)
    assert source.read_text() == "{}"


def test_a_failed_write_leaves_nothing_behind(tmp_path, monkeypatch):
    target = tmp_path / "out.svg"
    target.write_text("old")

    def broken_replace(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OutputError) as raised:
        replace_file(target, "new")
    assert str(raised.value) == f"{target}: No space left on device"  # the reader's to fix: one line, no traceback
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.svg"]


def test_a_bug_in_writing_is_not_taken_for_the_reader_s_mistake(tmp_path, monkeypatch):
    def buggy_replace(*_):
        raise TypeError("a bug")

    monkeypatch.setattr(os, "replace", buggy_replace)
    with pytest.raises(TypeError):
        replace_file(tmp_path / "out.svg", "new")
    assert list(tmp_path.iterdir()) == []
