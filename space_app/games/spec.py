"""GameSpec: everything generic code (API, service, catalogue, CLI, UI) needs to know
about a game, declared as data by the game's folder. Generic code asks `get_game(id)`
for it and never imports a game module."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from sdk import Agent

from .base import Game

MatchRecord = dict[str, Any]  # a stored match as `Store.get_match` returns it
Leaderboard = Callable[[Iterable[MatchRecord], int], list[dict[str, Any]]]


class Tournaments(Protocol):
    """What a study needs of the arena that runs it (the service's `Arena` is one); a game
    never imports the service."""

    store: Any

    async def tournament(self, game: str, specs: Sequence[str], games: int, seed: int = 0,
                         concurrency: int = 8, settings: dict[str, Any] | None = None, tag: str = "",
                         players: int | None = None, role_specs: dict[str, str] | None = None,
                         progress: Callable[[Any], None] | None = None) -> list[Any]: ...


@dataclass(frozen=True)
class MetricColumn:
    """One leaderboard column: its key in the game's rows, a short label, what it means."""

    key: str
    label: str
    meaning: str
    percent: bool = False  # shown ×100


@dataclass(frozen=True)
class HouseAgent:
    """An agent that ships with the game and needs no key (`house:<name>`)."""

    description: str
    build: Callable[[], Agent]
    random_fill: bool = True  # cheap enough to fill an empty seat


@dataclass(frozen=True)
class Study:
    """A headless experiment over matches of this game (e.g. attack/defence)."""

    title: str
    describe: str
    columns: tuple[str, ...]
    run: Callable[..., Awaitable[list[dict[str, Any]]]]  # run(arena, base=..., games=..., seed=..., ...)
    chart: Callable[[Any], Any] | None = None  # store -> DataFrame(bar, condition, value) of the newest run
    chart_order: tuple[str, ...] = ()  # the bars in the order they are drawn


@dataclass(frozen=True)
class ReplayView:
    """The game's own replay panels; the transcript and stepper are generic."""

    rounds: Callable[[list[dict[str, Any]], int | None], Any]  # (events, upto) -> DataFrame
    votes: Callable[[list[dict[str, Any]], int | None], Any]  # (events, upto) -> DataFrame
    result_columns: tuple[tuple[str, str], ...] = (("role", "roles"),)  # (label, key of result)


@dataclass(frozen=True)
class GameSpec:
    id: str
    title: str
    game_class: type[Game]
    settings_class: type[BaseModel]
    min_players: int
    max_players: int
    default_players: int
    roles: tuple[str, ...]  # the roles/sides a seat can have, for per-role columns and plots
    leaderboard: Leaderboard  # finished matches -> one row per agent (the game's metrics)
    metric_columns: tuple[MetricColumn, ...]
    ranking_note: str  # how the leaderboard is ordered, shown above it
    view: ReplayView
    # one finished match -> one flat record per seat (for export; keys the same for every seat)
    seat_records: Callable[[MatchRecord], list[dict[str, Any]]] | None = None
    # matches -> rows {agent, game (n-th played), ranking_score} for the "score over games" plot
    history: Callable[[Iterable[MatchRecord]], list[dict[str, Any]]] | None = None
    rules_doc: Path | None = None
    house_agents: Mapping[str, HouseAgent] = field(default_factory=dict)
    wrappers: Mapping[str, Callable[[Agent], Agent]] = field(default_factory=dict)  # "+name" seat suffixes
    studies: Mapping[str, Study] = field(default_factory=dict)
    demo_agents: tuple[str, ...] = ()  # played against each other on an empty store
    setting_files: Mapping[str, Callable[[Path], Any]] = field(default_factory=dict)  # key -> file loader
    # CLI shorthands for one setting: key -> (help, text -> value), e.g. spy's --pair tea/coffee
    setting_shorthands: Mapping[str, tuple[str, Callable[[str], Any]]] = field(default_factory=dict)
    seat_namer: Callable[[int], list[str]] | None = None
    # bump when a rule change makes a seed and the same replies give other events: `verify`
    # then tells an old record from a tampered one
    rules_version: int = 1
    # why a stored match cannot be replayed (e.g. it drew from data not kept with it), or None
    replay_note: Callable[[MatchRecord], str | None] | None = None

    def seat_names(self, n: int) -> list[str]:
        return self.seat_namer(n) if self.seat_namer else [f"P{i}" for i in range(1, n + 1)]

    def make(self, n_seats: int, seed: int, settings: dict[str, Any] | None = None) -> Game:
        values = {**(settings or {})}
        values.setdefault("players", n_seats)
        parsed = self.settings_class.model_validate(values)
        return self.game_class(self.seat_names(n_seats), seed, parsed)


class GameSpecError(ValueError):
    """A game registered without what generic code needs."""


def check_spec(spec: GameSpec) -> None:
    """Refuse an incomplete spec at registration, naming the part that is missing."""
    if not spec.id or not spec.id.isidentifier():
        raise GameSpecError(f"game spec {spec.id!r}: id must be a short identifier, e.g. 'avalon'")
    where = f"game spec {spec.id!r}"
    if not spec.title:
        raise GameSpecError(f"{where}: title is missing")
    if not (isinstance(spec.game_class, type) and issubclass(spec.game_class, Game)):
        raise GameSpecError(f"{where}: game_class must be a Game subclass")
    if not (isinstance(spec.settings_class, type) and issubclass(spec.settings_class, BaseModel)):
        raise GameSpecError(f"{where}: settings_class must be a pydantic model")
    if not 1 <= spec.min_players <= spec.default_players <= spec.max_players:
        raise GameSpecError(f"{where}: players must satisfy 1 <= min_players <= default_players <= max_players")
    if not spec.roles:
        raise GameSpecError(f"{where}: roles are missing")
    if not callable(spec.leaderboard):
        raise GameSpecError(f"{where}: leaderboard (the game's metrics) is missing")
    if not spec.metric_columns or spec.metric_columns[0].key != "agent":
        raise GameSpecError(f"{where}: metric_columns must start with the 'agent' column")
    if not isinstance(spec.view, ReplayView):
        raise GameSpecError(f"{where}: view (its replay panels) is missing")
    for name in spec.house_agents:
        if not name.startswith("house:"):
            raise GameSpecError(f"{where}: house agent {name!r} must be named house:<name>")
    for name in spec.demo_agents:
        if name not in spec.house_agents:
            raise GameSpecError(f"{where}: demo agent {name!r} is not one of its house agents")
    names = spec.seat_names(spec.default_players)
    if len(names) != spec.default_players or len(set(names)) != len(names):
        raise GameSpecError(f"{where}: seat names must be {spec.default_players} distinct names")


__all__ = ["GameSpec", "GameSpecError", "HouseAgent", "MetricColumn", "ReplayView", "Study", "Tournaments",
           "check_spec"]
