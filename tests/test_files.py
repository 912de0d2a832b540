"""profguide.files: a file is replaced whole, and only a regular file that is not an input."""

import os
import stat

import pytest

from profguide.errors import OutputError, TraceError
from profguide.files import check_target, is_folder, replace_file


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


@pytest.mark.parametrize(("mode", "message"), [(0o444, "is read-only; not replacing it"),
                                               (0o555, "is read-only; not replacing it")])
def test_a_read_only_file_is_refused_as_a_redirect_would_refuse_it(tmp_path, mode, message):
    target = tmp_path / "out.svg"
    target.write_text("old")
    target.chmod(mode)
    with pytest.raises(OutputError) as raised:
        replace_file(target, "new")
    assert str(raised.value) == f"{target}: {message}"
    assert target.read_text() == "old" and stat.S_IMODE(target.stat().st_mode) == mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.svg"]


@pytest.mark.parametrize("links", [1, 2])
def test_a_file_with_other_hard_links_is_refused(tmp_path, links):
    target = tmp_path / "out.svg"
    target.write_text("old")
    for index in range(links):
        os.link(target, tmp_path / f"link{index}.svg")
    with pytest.raises(OutputError) as raised:
        check_target(target)
    others = "1 other hard link" if links == 1 else "2 other hard links"
    assert str(raised.value) == f"{target}: has {others}, from which a new file would be separated; not replacing it"
    with pytest.raises(OutputError):
        replace_file(target, "new")
    assert all(p.read_text() == "old" for p in tmp_path.iterdir()) and target.stat().st_nlink == links + 1


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755])
def test_a_replaced_file_keeps_its_permission_bits(tmp_path, mode):
    target = tmp_path / "out.svg"
    target.write_text("old")
    target.chmod(mode)
    replace_file(target, "new")
    assert target.read_text() == "new" and stat.S_IMODE(target.stat().st_mode) == mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.svg"]


def test_an_empty_name_is_called_empty(tmp_path):
    with pytest.raises(OutputError, match="^the file name is empty"):
        check_target("")


def test_a_name_longer_than_the_system_allows_is_one_line(tmp_path):
    long = tmp_path / ("a" * (os.pathconf(tmp_path, "PC_NAME_MAX") + 1))
    with pytest.raises(TraceError, match="File name too long$"):
        is_folder(long)
    with pytest.raises(TraceError, match="File name too long$"):
        is_folder(long / "x")
    with pytest.raises(OutputError, match="File name too long$"):
        check_target(long)
    assert is_folder(tmp_path) and not is_folder(tmp_path / "absent") and not is_folder(tmp_path / "absent" / "x")
