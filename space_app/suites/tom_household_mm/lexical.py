"""The word-overlap baseline (`house:overlap`) on the suite under each input condition, run
in process on exactly what a text-only agent is shown: the acceptance figure that neither half
gives the answer away by its words."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from ...stats import Rate
from ..baselines import OverlapAgent
from ..conditions import CONDITIONS, conditioned_item
from ..items import SuiteItem
from ..registry import TOM_RULES
from ..run import observation
from .episode import TYPES


@dataclass(frozen=True)
class ConditionScore:
    condition: str
    by_type: dict[str, Rate]
    all: Rate


def _answer(agent: OverlapAgent, item: SuiteItem) -> str:
    reply = agent.answer(observation(item, "tom", 30.0, TOM_RULES))
    return asyncio.run(reply) if asyncio.iscoroutine(reply) else reply


def overlap_by_condition(items: list[dict[str, Any]], conditions: tuple[str, ...] = CONDITIONS
                         ) -> list[ConditionScore]:
    agent = OverlapAgent()
    parsed = [SuiteItem.model_validate(i) for i in items]
    out = []
    for condition in conditions:
        right: dict[str, list[int]] = {t: [] for t in TYPES}
        for item in parsed:
            shown = conditioned_item(item, condition, vision=False)
            if shown is not None:
                right[item.types[0]].append(int(_answer(agent, shown) == item.answer))
        every = [r for rs in right.values() for r in rs]
        out.append(ConditionScore(condition, {t: Rate(sum(rs), len(rs)) for t, rs in right.items()},
                                  Rate(sum(every), len(every))))
    return out


__all__ = ["ConditionScore", "overlap_by_condition"]
