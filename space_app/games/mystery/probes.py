"""The murder mystery's belief probes: after each discussion round (before the next round's
sharing, and after the last before the closing reasoning), every character is asked the
probability that each other character is the murderer."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...core.game import Request
from ...core.probes import ProbeQuestion, ProbeRules, ask_text
from .phrases import PROBES
from .rules import MURDERER, MysteryGame


def _after(game: MysteryGame) -> int | None:
    """The round just ended when the game is at the start of the next part, else None."""
    step = game.step
    if step.phase == "share" and step.round is not None and step.round > 1:
        return step.round - 1
    if step.phase == "reasoning":
        return game.settings.rounds
    return None


def moment(game: MysteryGame, requests: list[Request]) -> str | None:
    ended = _after(game) if requests else None
    return None if ended is None else f"after round {ended}"


def questions(game: MysteryGame, seat: str, when: str) -> list[ProbeQuestion]:
    language = game.settings.language
    candidates = [s for s in game.seats if s != seat]
    asked = PROBES.say(language, "murderer", moment=PROBES.say(language, "moment", n=_after(game)))
    return [ProbeQuestion("murderer", ask_text(asked, "one", candidates, 1, language), candidates, "one")]


def truth(result: Mapping[str, Any]) -> Mapping[str, Iterable[str]]:
    return {"murderer": [seat for seat, role in (result.get("roles") or {}).items() if role == MURDERER]}


PROBE_RULES = ProbeRules(moment=moment, questions=questions, truth=truth)

__all__ = ["PROBE_RULES"]
