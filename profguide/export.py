"""``profguide export TRACE --parquet DIR``: a trace's tables (``profguide.analysis.tables``) as Parquet files,
one per table (``DIR/<table>.parquet``), written whole or not at all.

pyarrow is an optional dependency (``pip install 'profguide[tables]'``), imported only here, when writing.
The folder is written beside ``DIR`` under a temporary name and renamed into place; a ``DIR`` already there is
replaced only when it is empty or holds nothing but an earlier export's tables.
"""

import os
import shutil
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from profguide.analysis.tables import SCHEMA, Table, trace_tables
from profguide.errors import OutputError
from profguide.text import shown
from profguide.trace.model import Trace

TABLE_FILES = frozenset(f"{table}.parquet" for table in SCHEMA)


def check_folder(folder: Path, inputs: Iterable[Path] = ()) -> None:
    """A one-line OutputError unless ``folder`` may take an export: a new path, an empty folder, or an earlier
    export (nothing but its tables); never the trace itself or a file."""
    for source in inputs:
        if folder.resolve() == Path(source).resolve():
            raise OutputError(f"{shown(folder)}: is the input {shown(source)}; choose a folder to write")
    try:
        status = os.stat(folder)
    except FileNotFoundError:
        return
    except OSError as error:
        raise OutputError(f"{shown(folder)}: {error.strerror or error}") from None
    if not stat.S_ISDIR(status.st_mode):
        raise OutputError(f"{shown(folder)}: is a file, not a folder; choose a folder to write the tables in")
    others = sorted(set(os.listdir(folder)) - TABLE_FILES)
    if others:
        raise OutputError(f"{shown(folder)}: holds {shown(others[0])}, not only an earlier export's tables; "
                          "choose a new or empty folder")


def write_tables(tables: dict[str, Table], folder: Path) -> None:
    """Write each table as ``folder/<table>.parquet`` through a temporary folder beside it, renamed into place."""
    import pyarrow as pa  # the optional dependency: the command checks it is there before loading the trace
    import pyarrow.parquet as pq

    # Text columns repeat a few distinct values (names, kinds, lanes): stored as dictionaries, they are read back
    # as dictionaries too (pyarrow keeps the Arrow schema in the file), each distinct value decoded once.
    types = {"string": pa.dictionary(pa.int32(), pa.string()), "int64": pa.int64(), "float64": pa.float64()}
    parent = folder.absolute().parent
    try:
        temporary = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".tmp", dir=parent))
    except OSError as error:
        raise OutputError(f"{shown(folder)}: {error.strerror or error}") from None
    try:
        for name, (_, columns) in SCHEMA.items():
            schema = pa.schema([(column, types[kind]) for column, (kind, _) in columns.items()])
            arrays = [pa.array(tables[name][column], type=pa.string(), from_pandas=True).dictionary_encode()
                      if kind == "string" else pa.array(tables[name][column], type=types[kind], from_pandas=True)
                      for column, (kind, _) in columns.items()]
            pq.write_table(pa.Table.from_arrays(arrays, schema=schema), temporary / f"{name}.parquet")
        os.chmod(temporary, 0o777 & ~current_umask())
        if folder.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".old", dir=parent))
            os.replace(folder, old / folder.name)
            os.replace(temporary, folder)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(temporary, folder)
    except BaseException as error:
        shutil.rmtree(temporary, ignore_errors=True)
        if isinstance(error, OSError):  # a full disk, a quota, a folder one may not write in: one line
            raise OutputError(f"{shown(folder)}: {error.strerror or error}") from None
        raise


def current_umask() -> int:
    """The process's umask (read by setting it and back)."""
    umask = os.umask(0)
    os.umask(umask)
    return umask


def export_parquet(trace: Trace, folder: Path) -> dict[str, int]:
    """Write ``trace``'s tables into ``folder``; each table's row count."""
    tables = trace_tables(trace)
    write_tables(tables, folder)
    return {name: len(next(iter(columns.values()))) for name, columns in tables.items()}
