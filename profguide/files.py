"""Writing a file the safe way: whole or not at all, and never over something that is not a regular file.

Standard library only.
"""

import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from profguide.errors import OutputError, TraceError
from profguide.text import shown


def is_folder(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a folder (through links); False where nothing is there. A path the system cannot
    look up at all (a name longer than it allows, a folder on the way one may not search) is a one-line
    TraceError: ``Path.is_dir`` raises those as they are."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as error:
        raise TraceError(f"{shown(path)}: {error.strerror or error}") from None


def check_target(path: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]] = ()) -> os.stat_result | None:
    """A one-line OutputError unless ``path`` is a place for a new file or an existing regular one that may be
    replaced; the existing file's status, or None for a new one.

    A symbolic link, a device, a FIFO, a folder, one of ``inputs`` (the files
    being read), a read-only file (a shell's redirect would refuse it too) or
    a file with other hard links (the new one would be separated from them)
    is never replaced.
    """
    if not os.fspath(path):
        raise OutputError("the file name is empty: name the file to write")
    path = Path(path)
    if str(path) in (".", os.sep):
        raise OutputError(f"{shown(path)}: not a file name")
    try:
        status: os.stat_result | None = os.lstat(path)
    except FileNotFoundError:
        status = None
    except OSError as error:  # a name longer than the system allows, a folder one may not search
        raise OutputError(f"{shown(path)}: {error.strerror or error}") from None
    if status is not None and stat.S_ISLNK(status.st_mode):
        raise OutputError(f"{shown(path)}: is a symbolic link; not replacing it")
    if not is_folder(path.parent):
        raise OutputError(f"{shown(path.parent)}: no such folder")
    if status is None:
        return None
    if stat.S_ISDIR(status.st_mode):
        raise OutputError(f"{shown(path)}: is a folder")
    if not stat.S_ISREG(status.st_mode):
        raise OutputError(f"{shown(path)}: is not a regular file (a device or a FIFO?); not replacing it")
    for source in inputs:
        if os.path.samefile(path, source):
            raise OutputError(f"{shown(path)}: is the input {shown(source)}; choose another file to write")
    # By its permission bits as well as by access(2): root may write anything, yet a redirect of root's
    # would keep a file marked read-only.
    if not status.st_mode & 0o222 or not os.access(path, os.W_OK):
        raise OutputError(f"{shown(path)}: is read-only; not replacing it")
    if status.st_nlink > 1:
        others = status.st_nlink - 1
        raise OutputError(f"{shown(path)}: has {others} other hard link{'s' if others > 1 else ''}, from which "
                          "a new file would be separated; not replacing it")
    return status


def replace_file(path: str | os.PathLike[str], text: str, inputs: Iterable[str | os.PathLike[str]] = ()) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it, renamed into place, with the permission
    bits of the file it replaces; nothing is left behind on failure."""
    path = Path(path)
    replaced = check_target(path, inputs)
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as error:
        raise OutputError(f"{shown(path)}: {error.strerror or error}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            os.fchmod(stream.fileno(), new_file_mode() if replaced is None else stat.S_IMODE(replaced.st_mode))
            stream.write(text)
        os.replace(temporary, path)
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError):  # a full disk, a quota: the reader's to fix, in one line
            raise OutputError(f"{shown(path)}: {error.strerror or error}") from None
        raise


def new_file_mode() -> int:
    """The permission bits an ordinary new file gets (0666 less the umask), not mkstemp's 0600."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
