"""When a committed recording no longer matches the code: its cache key, and the state it is in.

The key covers everything a recording's result depends on: the source of its
snippet module and of every module under ``snippets/`` that it imports,
directly or through others (package ``__init__`` files included), the
function, the parameters, the number of processes and the device it is meant
for. A change to the renderer changes none of them: it only re-renders.

Standard library only: the recorder computes keys on a bare GPU machine.
"""

import ast
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, NotRequired, TypedDict

from profguide.errors import RecordingError
from profguide.jsontypes import JSONObject
from profguide.site.recordings import Recording, runs_compared

# Bump when the way recordings are made changes what they contain (2: one fresh process per recording).
RECORDING_FORMAT = 2
SNIPPETS_PACKAGE = "snippets"
# Where a recording meant for CUDA keeps its CPU run once a GPU run has replaced its CPU stand-in: the folder
# of that name in its own. Claims about the CPU are checked on it (``needs_cpu_run``).
CPU_RUN = "cpu"
# What a committed recording is in, beside its code.
State = Literal["fresh", "stale", "missing", "broken"]


def module_path(root: str | os.PathLike[str], module: str) -> Path | None:
    """The file that defines ``module`` under ``root``, or None when it is not a snippet module."""
    base = Path(root, *module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported_names(source: str, module: str, is_package: bool) -> list[str]:
    """Every module name an import statement in ``source`` could refer to, relative imports resolved."""
    package = module if is_package else module.rpartition(".")[0]
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            names.append(target)
            names += [f"{target}.{alias.name}" for alias in node.names]  # `from pkg import module`
    return names


def enclosing_packages(module: str) -> list[str]:
    """``a.b.c`` → ``a``, ``a.b``: the packages whose ``__init__`` runs when ``module`` is imported."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def snippet_modules(root: str | os.PathLike[str], module: str) -> dict[str, Path]:
    """``module`` and every snippet module it imports, transitively: {name: path}, sorted by name."""
    found: dict[str, Path] = {}
    pending = [module, *enclosing_packages(module)]
    while pending:
        name = pending.pop()
        if name in found or name.split(".")[0] != SNIPPETS_PACKAGE:
            continue
        path = module_path(root, name)
        if path is None:
            continue
        found[name] = path
        imports = imported_names(path.read_text(), name, path.name == "__init__.py")
        pending += [n for target in imports for n in (target, *enclosing_packages(target))]
    return dict(sorted(found.items()))


def cache_key(recording: Recording, root: str | os.PathLike[str]) -> str:
    """Hash of the snippet modules' sources, the function, the parameters, the processes and the device."""
    digest = hashlib.sha256()
    for name, path in snippet_modules(root, recording.module).items():
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    spec: JSONObject = {
        "format": RECORDING_FORMAT,
        "function": recording.function,
        "params": recording.params,
        "cpu_params": recording.cpu_params,
        "ranks": recording.ranks,
        "device": recording.device,
    }
    if recording.tables or recording.memory_timeline:  # absent from older keys, which stay valid
        spec["exports"] = recording.exports()
    digest.update(json.dumps(spec, sort_keys=True).encode())
    return digest.hexdigest()[:16]


# What every meta.json holds, with its type: the renderers read these.
META_FIELDS = {"cache_key": str, "device": str, "device_name": str, "torch": str, "python": str, "recorded_at": str,
               "params": dict}


class Meta(TypedDict):
    """A recording's ``meta.json``: the fields every one holds (``META_FIELDS``, which ``read_meta`` checks), and
    those ``launch.provenance`` writes today (an older recording may lack them)."""

    cache_key: str
    device: str
    device_name: str
    torch: str
    python: str
    recorded_at: str
    params: JSONObject
    recording: NotRequired[str]
    module: NotRequired[str]
    function: NotRequired[str]
    ranks: NotRequired[int]
    intended_device: NotRequired[str]
    cpu_standin: NotRequired[bool]
    cuda: NotRequired[str | None]
    platform: NotRequired[str]
    pids: NotRequired[list[int]]
    files: NotRequired[list[str]]


def read_meta(folder: str | os.PathLike[str]) -> Meta | None:
    """The ``meta.json`` of a recording folder; None when there is none; RecordingError when unreadable."""
    path = Path(folder) / "meta.json"
    if not path.exists():
        return None
    try:
        meta = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise RecordingError(f"{path}: not a readable meta.json ({str(error).splitlines()[0]})") from None
    wrong = [name for name, kind in META_FIELDS.items() if not isinstance(meta, dict) or
             not isinstance(meta.get(name), kind)]
    if wrong:
        raise RecordingError(f"{path}: not a recording's meta.json (no {', '.join(wrong)})")
    checked: Meta = meta
    return checked


def readable_meta(folder: str | os.PathLike[str]) -> Meta | None:
    """``read_meta``, with an unreadable meta.json taken as none: a broken recording may be replaced."""
    try:
        return read_meta(folder)
    except RecordingError:
        return None


def folder_state(recording: Recording, root: str | os.PathLike[str],
                 folder: str | os.PathLike[str]) -> tuple[State, Meta | None]:
    """("fresh" | "stale" | "missing" | "broken", meta or None) for a run of ``recording`` in ``folder``."""
    try:
        meta = read_meta(folder)
    except RecordingError:
        return "broken", None
    if meta is None:
        return "missing", None
    if meta.get("cache_key") != cache_key(recording, root):
        return "stale", meta
    return "fresh", meta


def recording_state(recording: Recording, root: str | os.PathLike[str],
                    generated: str | os.PathLike[str]) -> tuple[State, Meta | None]:
    """("fresh" | "stale" | "missing" | "broken", meta or None) for the committed recording."""
    return folder_state(recording, root, Path(generated) / recording.id)


def needs_cpu_run(recording: Recording, recordings: Sequence[Recording] | None = None) -> bool:
    """Whether ``recording`` must keep its CPU run beside a GPU run: it is meant for CUDA, and a claim about the
    CPU is made of it, or of a recording of ``recordings`` (the guide's) compared with it."""
    if recording.device != "cuda":
        return False
    if recordings is None:
        from profguide.site.catalogue import RECORDINGS

        recordings = RECORDINGS
    return any(claim.device == "cpu" for claim in recording.claims) or any(
        claim.device == "cpu" and recording.id in runs_compared(claim, other)
        for other in recordings for claim in other.claims)


def cpu_run_state(recording: Recording, root: str | os.PathLike[str],
                  generated: str | os.PathLike[str]) -> tuple[State | Literal["not needed"], Meta | None]:
    """The state of the CPU run a recording keeps beside its GPU run (``CPU_RUN``), as ``folder_state`` gives it,
    or "not needed" (with the meta of what the folder holds) while the folder holds a CPU run itself or the
    recording needs none: (state, meta or None)."""
    folder = Path(generated) / recording.id
    meta = readable_meta(folder)
    if not needs_cpu_run(recording) or meta is None or meta.get("device") != "cuda":
        return "not needed", meta
    state, kept = folder_state(recording, root, folder / CPU_RUN)
    if kept is not None and kept.get("device") != "cpu":
        return "broken", kept
    return state, kept
