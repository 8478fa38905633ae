"""The game catalogue: each game brings its rules, settings and seat names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from .base import Event, Game, Outcome, Request
from .spy import SpyGame, SpySettings


@dataclass(frozen=True)
class GameSpec:
    id: str
    title: str
    game_class: type[Game]
    settings_class: type[BaseModel]
    default_players: int

    def seat_names(self, n: int) -> list[str]:
        return [f"P{i}" for i in range(1, n + 1)]

    def make(self, n_seats: int, seed: int, settings: dict[str, Any] | None = None) -> Game:
        values = {**(settings or {})}
        values.setdefault("players", n_seats)
        parsed = self.settings_class.model_validate(values)
        return self.game_class(self.seat_names(n_seats), seed, parsed)


GAMES: dict[str, GameSpec] = {
    "spy": GameSpec("spy", SpyGame.title, SpyGame, SpySettings, 6),
}


def get_game(game_id: str) -> GameSpec:
    try:
        return GAMES[game_id]
    except KeyError:
        raise ValueError(f"unknown game {game_id!r}; known: {', '.join(GAMES)}") from None


__all__ = ["GAMES", "Event", "Game", "GameSpec", "Outcome", "Request", "get_game"]
