"""What a match is to be, before it is played: game, seats, seed, settings and where it is filed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class MatchPlan:
    game: str
    seats: list[str]  # agent specs, in seat order
    seed: int
    settings: dict[str, Any] | None = None
    tag: str = ""
    owner: str = ""
    match_id: str = ""
    role_specs: dict[str, str] | None = None  # e.g. {"spy": "house:heuristic+attacker"}
    # match_id derived from the plan (`batch.plan_id`): a match already finished under it is
    # not played again, a half-written one is replaced
    planned: bool = False


__all__ = ["MatchPlan"]
