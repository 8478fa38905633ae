"""The murder mystery's entries of a deals file (`--deals FILE`): a character assignment, e.g.
`{"script": "larkspur", "characters": ["Ada", "Basil", ...]}`, the character of each seat in
seat order (the script optional: the match's own otherwise). Checked against the script's cast
when the deal is validated (`catalog.ShippedSettings`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def read_deal(entry: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """One entry -> (the settings it fixes, its keys that were not read)."""
    if "characters" not in entry:
        raise ValueError("a murder-mystery deal names the character of each seat: {\"characters\": [...]}")
    fixed: dict[str, Any] = {"deal": {"characters": entry["characters"]}}
    for key in ("script", "players"):
        if key in entry:
            fixed[key] = entry[key]
    return fixed, [k for k in entry if k not in ("characters", "script", "players")]


__all__ = ["read_deal"]
