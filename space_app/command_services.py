"""The arena's services as a game's own CLI commands receive them (`core.spec.ArenaServices`):
the CLI hands this object to a command, so a game's command can play matches, on the batch
engine it was asked for, and run suites without the game importing the service, the store,
the engines or the suite runner."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from .batch import planned, run_planned
from .engine_options import add_engine_args, closing_engine, open_engine_of
from .engines.progress import BatchBar
from .service import Arena, MatchPlan
from .store import Store
from .suites import open_suite
from .suites.run import first_n, run_suite


class CliServices:
    """`ArenaServices` for commands run from `python -m space_app`."""

    def arena(self, db: str, engine: Any = None) -> Arena:
        return Arena(Store(db), engine=engine)

    def match_plan(self, game: str, seats: list[str], seed: int, settings: dict[str, Any], *, tag: str = "",
                   role_specs: dict[str, str] | None = None, place: Sequence[Any] | None = None) -> MatchPlan:
        plan = MatchPlan(game, seats, seed, settings, tag=tag, role_specs=role_specs)
        return plan if place is None else planned(plan, place)

    def add_engine_args(self, parser: argparse.ArgumentParser, unit: str = "matches") -> None:
        add_engine_args(parser, unit)

    def engine(self, args: argparse.Namespace) -> AbstractContextManager[Any]:
        return closing_engine(open_engine_of(args))

    async def run_planned(self, arena: Arena, plans: Sequence[MatchPlan], *, concurrency: int = 8,
                          tracker: Any = None) -> list[Any]:
        return await run_planned(arena, plans, engine=arena.engine, concurrency=concurrency, tracker=tracker)

    def progress_bar(self, total: int, desc: str, unit: str = "match") -> BatchBar:
        return BatchBar(total, desc, unit)

    def open_suite(self, suite_id: str) -> Any:
        return open_suite(suite_id)

    def first_n(self, items: list[Any], n: int) -> list[Any]:
        return first_n(items, n)

    async def run_suite(self, store: Any, suite: Any, agent: Any, agent_id: str, **options: Any) -> Any:
        return await run_suite(store, suite, agent, agent_id, **options)


__all__ = ["CliServices"]
