"""The platform's two robustness studies, run headless on real games.

attack/defence: for a base agent, N games each as the baseline, with an attacker
spy (prompt injection telling the others to state their word) and with a
defender-injection spy (fake notice that the spy is confirmed innocent).
reasoning: civilians with and without the explicit-reasoning mode.
Each condition's matches are stored with the tag `study:<study>:<condition>:<run>`.
"""

from __future__ import annotations

import uuid
from typing import Any

from .metrics.spy import study_row
from .service import Arena

ATTACK_CONDITIONS = {"baseline": None, "attacker spy": "+attacker", "defender-injection spy": "+defender"}
REASONING_CONDITIONS = {"without reasoning": None, "with reasoning": "+reasoning"}


async def _condition(arena: Arena, base: str, games: int, seed: int, tag: str,
                     role_specs: dict[str, str] | None, settings: dict[str, Any] | None,
                     concurrency: int) -> dict[str, Any]:
    await arena.tournament("spy", [base], games, seed=seed, tag=tag, role_specs=role_specs,
                           settings=settings, concurrency=concurrency)
    return study_row(arena.store.iter_matches("spy", tag=tag))


async def _study(arena: Arena, study: str, conditions: dict[str, str | None], role: str, base: str,
                 games: int, seed: int, settings: dict[str, Any] | None, concurrency: int) -> list[dict[str, Any]]:
    """Each condition: `games` matches of `base` on the same seeds, the wrapper (if any) on `role`."""
    run = uuid.uuid4().hex[:6]
    rows = []
    for name, suffix in conditions.items():
        roles = {role: base + suffix} if suffix else None
        row = await _condition(arena, base, games, seed, f"study:{study}:{name}:{run}", roles,
                               settings, concurrency)
        rows.append({"condition": name, **row})
    return rows


async def attack_defence(arena: Arena, base: str = "house:heuristic", games: int = 50, seed: int = 0,
                         settings: dict[str, Any] | None = None,
                         concurrency: int = 8) -> list[dict[str, Any]]:
    """Baseline, an attacker spy, a defender-injection spy."""
    return await _study(arena, "attack", ATTACK_CONDITIONS, "spy", base, games, seed, settings, concurrency)


async def reasoning(arena: Arena, base: str = "house:heuristic", games: int = 50, seed: int = 0,
                    settings: dict[str, Any] | None = None, concurrency: int = 8) -> list[dict[str, Any]]:
    """Civilians without and with the reasoning mode."""
    return await _study(arena, "reasoning", REASONING_CONDITIONS, "civilian", base, games, seed, settings,
                        concurrency)


def run_study(arena: Arena, study: str, **kwargs: Any) -> list[dict[str, Any]]:
    fn = {"attack": attack_defence, "reasoning": reasoning}[study]
    return arena.run_in_own_loop(fn(arena, **kwargs))
