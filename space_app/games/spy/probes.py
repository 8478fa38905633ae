"""Who is the Spy's belief probes: in each round, once the statements are made and before the
vote, every surviving seat is asked the probability that each other survivor is the spy."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...core.game import Request
from ...core.probes import ProbeQuestion, ProbeRules, ask_text
from .phrases import PROBES
from .rules import SPY, SpyGame


def moment(game: SpyGame, requests: list[Request]) -> str | None:
    return f"round {game.round}" if game.phase == "vote" and requests else None


def questions(game: SpyGame, seat: str, when: str) -> list[ProbeQuestion]:
    language = game.settings.language
    candidates = [s for s in game.alive if s != seat]
    asked = PROBES.say(language, "spy", moment=PROBES.say(language, "moment", n=game.round))
    return [ProbeQuestion("spy", ask_text(asked, "one", candidates, 1, language), candidates, "one")]


def truth(result: Mapping[str, Any]) -> Mapping[str, Iterable[str]]:
    return {"spy": [seat for seat, role in (result.get("roles") or {}).items() if role == SPY]}


PROBE_RULES = ProbeRules(moment=moment, questions=questions, truth=truth, asked=lambda game: list(game.alive))

__all__ = ["PROBE_RULES"]
