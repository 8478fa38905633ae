"""The game catalogue. A game is a folder (`space_app/games/<id>/`) that registers one
GameSpec; this is the only module that imports the game folders."""

from __future__ import annotations

from . import avalon, mystery, spy  # noqa: F401 - each registers itself
from .base import Event, Game, Outcome, Request
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

__all__ = ["GAMES", "AgentTotals", "Event", "Game", "GameSpec", "GameSpecError", "HouseAgent", "MetricColumn",
           "Outcome", "Panel", "QuizSet", "ReplayView", "Request", "ResultsPage", "ResultsSection", "SeatRecord",
           "Study", "Tally", "UnknownGame", "get_game", "register", "tallies_of_match", "totals_from"]
