"""Avalon's entries of a deals file (`--deals FILE`), AvalonBench's published presets included.

AvalonBench (github.com/jonathanmli/Avalon-LLM, `data/avalon/*.json`) publishes each preset as
`{"num_players": 5, "quest_leader": 0, "role_names": ["Assassin", "Servant", "Servant",
"Merlin", "Minion"]}`: `role_names[i]` is seat i's role (seat 0 is P1) and `quest_leader` the
seat index of the first leader. Such an entry is read as it is; keys beside those three are
left out and reported. Any other entry is the arena's own deal: `{"players": 5, "roles": [...],
"leader": 0}` (the `deal` setting, with an optional "players").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

AVALONBENCH_KEYS = ("num_players", "quest_leader", "role_names")


def read_deal(entry: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """One entry -> (the settings it fixes, its keys that were not read)."""
    if "role_names" not in entry and "quest_leader" not in entry:
        fixed: dict[str, Any] = {"deal": {k: v for k, v in entry.items() if k != "players"}}
        if "players" in entry:
            fixed["players"] = entry["players"]
        return fixed, []
    missing = [k for k in AVALONBENCH_KEYS if k not in entry]
    if missing:
        raise ValueError(f"an AvalonBench preset needs {', '.join(AVALONBENCH_KEYS)}; missing {', '.join(missing)}")
    names = entry["role_names"]
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError("role_names must be a list of role names, e.g. [\"Merlin\", \"Servant\", ...]")
    for key in ("num_players", "quest_leader"):
        if not isinstance(entry[key], int) or isinstance(entry[key], bool):
            raise ValueError(f"{key} must be a whole number, got {entry[key]!r}")
    fixed = {"players": entry["num_players"], "deal": {"roles": list(names), "leader": entry["quest_leader"]}}
    return fixed, [k for k in entry if k not in AVALONBENCH_KEYS]


__all__ = ["AVALONBENCH_KEYS", "read_deal"]
