"""Avalon's belief probes: after each quest's result, every seat is asked the probability that
each other seat is evil (their sum is the number of evil players, public, less one for an evil
seat asking), then who among the others is Merlin."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...core.game import Request
from ...core.phrasebook import Phrasebook
from ...core.probes import ProbeQuestion, ProbeRules, ask_text
from .rules import EVIL, MERLIN, AvalonGame

PROBES = Phrasebook({
    "en": {"evil": "Belief check (after quest {n}): who do you think is evil?",
           "merlin": "Belief check (after quest {n}): who do you think is Merlin?"},
    "zh": {"evil": "信念调查（第{n}次任务后）：你认为谁是邪恶方？",
           "merlin": "信念调查（第{n}次任务后）：你认为谁是梅林？"},
})


def moment(game: AvalonGame, requests: list[Request]) -> str | None:
    return f"after quest {len(game.quests)}" if game.quests and requests else None


def questions(game: AvalonGame, seat: str, when: str) -> list[ProbeQuestion]:
    language = game.settings.language
    candidates = [s for s in game.seats if s != seat]
    evil = [s for s in game.seats if game.sides[s] == EVIL]
    count = len(evil) - (seat in evil)
    n = len(game.quests)
    return [ProbeQuestion("evil", ask_text(PROBES.say(language, "evil", n=n), "each", candidates, count, language),
                          candidates, "each", count),
            ProbeQuestion("merlin", ask_text(PROBES.say(language, "merlin", n=n), "one", candidates, 1, language),
                          candidates, "one")]


def truth(result: Mapping[str, Any]) -> Mapping[str, Iterable[str]]:
    return {"evil": [seat for seat, side in (result.get("sides") or {}).items() if side == EVIL],
            "merlin": [seat for seat, role in (result.get("roles") or {}).items() if role == MERLIN]}


PROBE_RULES = ProbeRules(moment=moment, questions=questions, truth=truth)

__all__ = ["PROBE_RULES", "PROBES"]
