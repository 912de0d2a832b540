"""The table of every kernel family in the guide's real traces: what their names decode to, by the code that
``profguide explain`` reads them with (``profguide.analysis.families.kernel_family``), an example of each, and
the traces that hold them."""

from typing import NamedTuple

from profguide.analysis.families import FAMILY_WORDS, Family, kernel_family
from profguide.analysis.kernels import kernel_names
from profguide.text import cell, code, code_cell, markdown_table
from profguide.trace.model import Trace

# How many of a group's tiles a cell lists before it only counts them.
TILES_SHOWN = 3
TRACE_SUFFIX = ".json.gz"


class Group(NamedTuple):
    """The distinct kernel names that decode alike (but for layout, tile and fused ops), and where they are."""

    decoded: Family  # what the names say alike: its layout, tile and fused ops are None (the lists say them)
    names: list[str]
    layouts: list[str]
    tiles: list[str]
    fused: list[str]
    traces: list[str]


def same_kind(decoded: Family) -> Family:
    """A decoding without the fields that vary among a family's names: the key a table row stands for."""
    return decoded._replace(layout=None, tile=None, fused=None)


def family_groups(traces: list[tuple[str, Trace]]) -> list[Group]:
    """The kernels of ``traces`` ([(file name, trace)]) grouped by what their names decode to, in the order of
    the families' words, the group of most names first within a family."""
    found: dict[Family, dict[str, set[str]]] = {}
    for file, trace in traces:
        for name in kernel_names(trace):
            found.setdefault(same_kind(kernel_family(name)), {}).setdefault(name, set()).add(file)
    order = list(FAMILY_WORDS)
    groups = []
    for key, names in found.items():
        decodings = [kernel_family(name) for name in names]
        groups.append(Group(key, sorted(names, key=lambda name: (len(name), name)),
                            sorted({d.layout for d in decodings if d.layout}),
                            sorted({d.tile for d in decodings if d.tile}, key=tile_order),
                            sorted({d.fused for d in decodings if d.fused}),
                            sorted({file for files in names.values() for file in files})))
    return sorted(groups, key=lambda group: (order.index(group.decoded.family), -len(group.names),
                                             group.names[0]))


def tile_order(tile: str) -> tuple[int, ...]:
    """Tiles by their sizes, smallest first (32x128 before 128x64 before 128x128)."""
    return tuple(int(part) for part in tile.split("_")[0].split("x"))


def cores_words(decoded: Family) -> str | None:
    """Tensor (or matrix) cores, where the names say whether."""
    if decoded.tensor_cores is None:
        return None
    return "tensor or matrix cores" if decoded.tensor_cores else "not on tensor cores"


def listed_tiles(tiles: list[str]) -> str:
    """"tile 128x64", "tiles 64x64, 128x128", "tiles 64x64, 128x64, 128x128 … (9 in all)"."""
    shown = ", ".join(tiles[:TILES_SHOWN])
    more = f" … ({len(tiles)} in all)" if len(tiles) > TILES_SHOWN else ""
    return ("tile " if len(tiles) == 1 else "tiles ") + shown + more


def decoded_words(group: Group) -> str:
    """What a group's names say, in the table's words: its library, precision, cores, split-K, backend, kind,
    layouts, tiles and fused ops, each where the names give it; a dash where they give nothing."""
    decoded = group.decoded
    parts = [decoded.library, decoded.precision, cores_words(decoded), "split-K" if decoded.split_k else None,
             f"{decoded.backend} backend" if decoded.backend else None, decoded.kind,
             ("layout " if len(group.layouts) == 1 else "layouts ") + ", ".join(group.layouts) if group.layouts
             else None,
             listed_tiles(group.tiles) if group.tiles else None,
             "fuses " + ", ".join(group.fused) if group.fused else None]
    return cell(" · ".join(part for part in parts if part)) or "—"


def families_table(traces: list[tuple[str, Trace]]) -> str:
    """Markdown: one row for each kind of kernel that the names of ``traces`` ([(file name, trace)]) decode to,
    with an example name (cut short, in full in its tooltip), how many distinct names decode so, and the
    traces that hold them."""
    rows = [(cell(FAMILY_WORDS[group.decoded.family]), decoded_words(group), code_cell(group.names[0]),
             str(len(group.names)), ", ".join(code(file.removesuffix(TRACE_SUFFIX)) for file in group.traces))
            for group in family_groups(traces)]
    table = markdown_table(("Family", "What the names say", "Example", "Names", "In the traces"), rows, "lllrl")
    # pg-reflow: on a phone each row reads as a block of labelled cells (docs/assets/figures.css).
    return f'<div class="pg-reflow" markdown>\n\n{table}\n</div>\n'
