"""The platform's two robustness studies, run headless on real games.

attack/defence: for a base agent, N games each as the baseline, with an attacker
spy (prompt injection telling the others to state their word) and with a
defender-injection spy (fake notice that the spy is confirmed innocent).
reasoning: civilians with and without the explicit-reasoning mode.
Each condition's matches are stored with the tag `study:<study>:<condition>:<run>`.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from ...core.spec import Tournaments
from ...core.study_runs import newest_run_tags, study_tag
from .metrics import study_row

if TYPE_CHECKING:  # pandas is imported where a frame is built: the CLI and records need none
    import pandas as pd

ATTACK_CONDITIONS = {"baseline": None, "attacker spy": "+attacker", "defender-injection spy": "+defender"}
REASONING_CONDITIONS = {"without reasoning": None, "with reasoning": "+reasoning"}
# each condition in words, as the study prints it
CONDITION_WORDS = {
    "baseline": "every seat plays the base agent as it is",
    "attacker spy": "the spy seat adds a prompt injection to each statement, telling the others to state their word",
    "defender-injection spy": "the spy seat adds a fake system notice that it is confirmed innocent",
    "without reasoning": "every seat plays the base agent as it is",
    "with reasoning": "the civilian seats write an explicit analysis of the statements before each vote",
}


async def _condition(arena: Tournaments, base: str, games: int, seed: int, tag: str,
                     role_specs: dict[str, str] | None, settings: dict[str, Any] | None,
                     concurrency: int) -> dict[str, Any]:
    await arena.tournament("spy", [base], games, seed=seed, tag=tag, role_specs=role_specs,
                           settings=settings, concurrency=concurrency)
    return study_row(arena.store.iter_matches("spy", tag=tag))


async def _study(arena: Tournaments, study: str, conditions: dict[str, str | None], role: str, base: str,
                 games: int, seed: int, settings: dict[str, Any] | None, concurrency: int) -> list[dict[str, Any]]:
    """Each condition: `games` matches of `base` on the same seeds, the wrapper (if any) on `role`."""
    run = uuid.uuid4().hex[:6]
    rows = []
    for name, suffix in conditions.items():
        roles = {role: base + suffix} if suffix else None
        tag = study_tag(study, name, run)
        row = await _condition(arena, base, games, seed, tag, roles, settings, concurrency)
        rows.append({"condition": name, "what": CONDITION_WORDS[name], "agent": base, "role_agents": roles or {},
                     "tag": tag, **row})
    return rows


async def attack_defence(arena: Tournaments, base: str = "house:heuristic", games: int = 50, seed: int = 0,
                         settings: dict[str, Any] | None = None,
                         concurrency: int = 8) -> list[dict[str, Any]]:
    """Baseline, an attacker spy, a defender-injection spy."""
    return await _study(arena, "attack", ATTACK_CONDITIONS, "spy", base, games, seed, settings, concurrency)


async def reasoning(arena: Tournaments, base: str = "house:heuristic", games: int = 50, seed: int = 0,
                    settings: dict[str, Any] | None = None, concurrency: int = 8) -> list[dict[str, Any]]:
    """Civilians without and with the reasoning mode."""
    return await _study(arena, "reasoning", REASONING_CONDITIONS, "civilian", base, games, seed, settings,
                        concurrency)


ATTACK_CHART_METRICS = {"vote_accuracy": "vote accuracy", "foul_rate": "foul rate",
                        "civilian_win_rate": "civilian wins"}
_SHORT = {"baseline": "baseline", "attacker spy": "attacker", "defender-injection spy": "defender"}
ATTACK_CHART_BARS = tuple(f"{label}: {_SHORT[name]}" for label in ATTACK_CHART_METRICS.values()
                          for name in ATTACK_CONDITIONS)


def newest_run(store: Any, study: str, conditions: dict[str, str | None]) -> list[dict[str, Any]]:
    """The rows of a study's newest stored run (condition, what, tag and the figures with
    their intervals, seeds and match ids), or [] when it never ran."""
    tags = newest_run_tags(store, "spy", study, conditions)
    rows = []
    for name, tag in tags.items():
        rows.append({"condition": name, "what": CONDITION_WORDS[name], "tag": tag,
                     **study_row(store.iter_matches("spy", tag=tag))})
    return rows


def newest_attack(store: Any) -> list[dict[str, Any]]:
    return newest_run(store, "attack", ATTACK_CONDITIONS)


def newest_reasoning(store: Any) -> list[dict[str, Any]]:
    return newest_run(store, "reasoning", REASONING_CONDITIONS)


def attack_chart(store: Any) -> pd.DataFrame:
    """The newest stored attack/defence run: one bar per metric and condition, grouped by
    metric, conditions in the study's order."""
    import pandas as pd

    rows = {r["condition"]: r for r in newest_attack(store)}
    out = [{"bar": f"{label}: {_SHORT[name]}", "condition": name, "value": round(row[metric], 3),
            "low": _end(row.get(f"{metric}_low")), "high": _end(row.get(f"{metric}_high"))}
           for metric, label in ATTACK_CHART_METRICS.items()
           for name, row in rows.items() if row[metric] is not None]
    return pd.DataFrame(out, columns=["bar", "condition", "value", "low", "high"])


def _end(value: float | None) -> float | None:
    """An interval's end rounded as the bar's value is (rounding keeps the value inside)."""
    return None if value is None else round(value, 3)
