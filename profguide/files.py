"""Writing a file the safe way: whole or not at all, and never over something that is not a regular file.

Standard library only.
"""

import os
import stat
import tempfile
from pathlib import Path

from profguide.errors import OutputError
from profguide.text import shown


def check_target(path, inputs=()):
    """A one-line OutputError unless ``path`` is a place for a new file or an existing regular one.

    A symbolic link, a device, a FIFO, a folder, or one of ``inputs`` (the
    files being read) is never replaced.
    """
    path = Path(path)
    if not str(path) or str(path) in (".", os.sep):
        raise OutputError(f"{shown(path) or repr('')}: not a file name")
    if path.is_symlink():
        raise OutputError(f"{shown(path)}: is a symbolic link; not replacing it")
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise OutputError(f"{shown(path)}: {error.strerror or error}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise OutputError(f"{shown(path)}: is a folder")
    if mode is not None and not stat.S_ISREG(mode):
        raise OutputError(f"{shown(path)}: is not a regular file (a device or a FIFO?); not replacing it")
    for source in inputs:
        if mode is not None and os.path.samefile(path, source):
            raise OutputError(f"{shown(path)}: is the input {shown(source)}; choose another file to write")
    if not path.parent.is_dir():
        raise OutputError(f"{shown(path.parent)}: no such folder")


def replace_file(path, text, inputs=()):
    """Write ``text`` to ``path`` through a temporary file beside it, renamed into place; nothing is left
    behind on failure."""
    path = Path(path)
    check_target(path, inputs)
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as error:
        raise OutputError(f"{shown(path)}: {error.strerror or error}") from None
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # as an ordinary new file would be, not mkstemp's 0600
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError):  # a full disk, a quota: the reader's to fix, in one line
            raise OutputError(f"{shown(path)}: {error.strerror or error}") from None
        raise
