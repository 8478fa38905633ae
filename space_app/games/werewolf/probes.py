"""Werewolf's belief probes: each day, before the vote, every living seat is asked the
probability that each other seat (living or not) is a werewolf; their sum is the number of
werewolves dealt (public), less one for a werewolf asking."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...core.game import Request
from ...core.probes import ProbeQuestion, ProbeRules, ask_text
from .phrases import PROBES
from .roles import WEREWOLF
from .rules import WerewolfGame


def moment(game: WerewolfGame, requests: list[Request]) -> str | None:
    return f"day {game.day}" if game.phase == "day_vote" and requests else None


def questions(game: WerewolfGame, seat: str, when: str) -> list[ProbeQuestion]:
    language = game.settings.language
    candidates = [s for s in game.seats if s != seat]
    count = len(game.wolves) - (seat in game.wolves)
    asked = PROBES.say(language, "wolf", moment=PROBES.say(language, "moment", n=game.day))
    return [ProbeQuestion("wolf", ask_text(asked, "each", candidates, count, language), candidates, "each", count)]


def truth(result: Mapping[str, Any]) -> Mapping[str, Iterable[str]]:
    return {"wolf": [seat for seat, role in (result.get("roles") or {}).items() if role == WEREWOLF]}


PROBE_RULES = ProbeRules(moment=moment, questions=questions, truth=truth, asked=lambda game: list(game.alive))

__all__ = ["PROBE_RULES"]
