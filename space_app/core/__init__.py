"""The kernel, which loads no game: the game protocol (`Game`, requests, outcomes, seat
views), events, the game contract (`GameSpec`), per-seat records and the registry. Games
(`space_app.games.<id>`) build on it; the store, runner, standings and verify import it and
never a game."""

from __future__ import annotations

from .events import SPECTATORS, Event
from .game import Game, Outcome, Request
from .records import AgentTotals, SeatRecord, Tally, tallies_of_match, totals_from
from .registry import GAMES, UnknownGame, get_game, register
from .spec import (
    GameSpec,
    GameSpecError,
    HouseAgent,
    MetricColumn,
    Panel,
    QuizSet,
    ReplayView,
    ResultsPage,
    ResultsSection,
    Study,
)

__all__ = ["GAMES", "SPECTATORS", "AgentTotals", "Event", "Game", "GameSpec", "GameSpecError", "HouseAgent",
           "MetricColumn", "Outcome", "Panel", "QuizSet", "ReplayView", "Request", "ResultsPage", "ResultsSection",
           "SeatRecord", "Study", "Tally", "UnknownGame", "get_game", "register", "tallies_of_match", "totals_from"]
