"""The types of JSON values as a decoder (``json``, ``msgspec``) returns them, named once for every module that
holds one. Standard library only."""

from typing import TypeAlias

JSON: TypeAlias = dict[str, "JSON"] | list["JSON"] | str | int | float | bool | None
JSONObject: TypeAlias = dict[str, JSON]
