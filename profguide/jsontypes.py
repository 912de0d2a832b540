"""The types of JSON values as a decoder (``json``, ``msgspec``) returns them, named once for every module that
holds one, and the checks that narrow one. Standard library only."""

from typing import TypeAlias, TypeGuard

JSON: TypeAlias = dict[str, "JSON"] | list["JSON"] | str | int | float | bool | None
JSONObject: TypeAlias = dict[str, JSON]


def is_int_list(value: JSON) -> TypeGuard[list[int]]:
    """Whether ``value`` is a list of integers (a tensor's dims, as ``Input Dims`` gives them)."""
    return isinstance(value, list) and all(isinstance(n, int) for n in value)
