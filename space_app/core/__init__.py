"""The kernel, which loads no game: the game protocol (`Game`, requests, outcomes, seat views),
events, the game contract (`GameSpec`), per-seat records and the registry. Games
(`space_app.games.<id>`) build on it; the store, runner, standings and verify import it and
never a game.

Its names load on first use (PEP 562), so `from space_app.core.events import Event` (the store)
loads the events module alone, not the game protocol, pydantic models or the SDK."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the names below are, for readers and type checkers
    from .events import SPECTATORS, Event
    from .game import Game, Outcome, Request
    from .records import AgentTotals, SeatRecord, Tally, tallies_of_match, totals_from
    from .registry import GAMES, UnknownGame, get_game, register
    from .spec import (
        AgentKind,
        GameSpec,
        GameSpecError,
        HouseAgent,
        MetricColumn,
        Panel,
        QuizSet,
        ReplayView,
        ResultsPage,
        ResultsScope,
        ResultsSection,
        Study,
    )

_WHERE = {
    "SPECTATORS": "events", "Event": "events",
    "Game": "game", "Outcome": "game", "Request": "game",
    "AgentTotals": "records", "SeatRecord": "records", "Tally": "records", "tallies_of_match": "records",
    "totals_from": "records",
    "GAMES": "registry", "UnknownGame": "registry", "get_game": "registry", "register": "registry",
    "AgentKind": "spec", "GameSpec": "spec", "GameSpecError": "spec", "HouseAgent": "spec", "MetricColumn": "spec",
    "Panel": "spec",
    "QuizSet": "spec", "ReplayView": "spec", "ResultsPage": "spec", "ResultsScope": "spec", "ResultsSection": "spec",
    "Study": "spec",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value  # looked up once
    return value


__all__ = ["GAMES", "SPECTATORS", "AgentKind", "AgentTotals", "Event", "Game", "GameSpec", "GameSpecError",
           "HouseAgent", "MetricColumn", "Outcome", "Panel", "QuizSet", "ReplayView", "Request", "ResultsPage",
           "ResultsScope", "ResultsSection", "SeatRecord", "Study", "Tally", "UnknownGame", "get_game", "register",
           "tallies_of_match", "totals_from"]
assert set(__all__) == set(_WHERE)
