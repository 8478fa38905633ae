"""The human baseline: a person answers questions of a suite in the browser.

Each person is one `human:<key>` agent (the key a hash of who they are: their signed-in
name, else their address), so their answers are stored and scored exactly like an
agent's, and the results table shows every person together as one `people` row with the
number of people and questions behind it. A person is asked the questions of a fixed
random order (seeded by their key), skipping those they have answered.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from ..store import Store
from .items import SuiteItem
from .registry import Suite

HUMAN_PREFIX = "human:"
PEOPLE = "people"


def person_id(visitor: str) -> str:
    return HUMAN_PREFIX + hashlib.sha256(visitor.encode()).hexdigest()[:12]


def next_question(store: Store, suite: Suite, person: str) -> SuiteItem | None:
    answered = store.answered(suite.id, person)
    order = list(suite.loaded.items)
    random.Random(person).shuffle(order)
    return next((item for item in order if item.id not in answered), None)


def record_answer(store: Store, suite: Suite, person: str, item_id: str, label: str,
                  seconds: float) -> dict[str, Any]:
    item = next((i for i in suite.loaded.items if i.id == item_id), None)
    if item is None:
        raise ValueError(f"no question {item_id!r} in {suite.id}")
    parsed = label if label in item.options else None
    store.save_answers(suite.id, person, [{
        "item_id": item.id, "types": list(item.types), "gold": item.answer, "parsed": parsed,
        "correct": int(parsed == item.answer), "status": "ok" if parsed else "unparseable", "detail": "",
        "reply": label, "latency_ms": round(seconds * 1000, 1), "tokens": 0}])
    return {"correct": parsed == item.answer, "answer": item.answer, "answer_text": item.options[item.answer]}


def pooled(rows_by_agent: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """Every person's answers as one `people` entry (agents kept as they are)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for agent, rows in rows_by_agent.items():
        out.setdefault(PEOPLE if agent.startswith(HUMAN_PREFIX) else agent, []).extend(rows)
    return out


__all__ = ["HUMAN_PREFIX", "PEOPLE", "next_question", "person_id", "pooled", "record_answer"]
