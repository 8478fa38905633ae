"""The arena's services as a game's own CLI commands receive them (`core.spec.ArenaServices`):
the CLI hands this object to a command, so a game's command can play matches and run suites
without the game importing the service, the store or the suite runner."""

from __future__ import annotations

from typing import Any

from .service import Arena, MatchPlan
from .store import Store
from .suites import open_suite
from .suites.run import first_n, run_suite


class CliServices:
    """`ArenaServices` for commands run from `python -m space_app`."""

    def arena(self, db: str) -> Arena:
        return Arena(Store(db))

    def match_plan(self, game: str, seats: list[str], seed: int, settings: dict[str, Any], *, tag: str = "",
                   role_specs: dict[str, str] | None = None) -> MatchPlan:
        return MatchPlan(game, seats, seed, settings, tag=tag, role_specs=role_specs)

    def open_suite(self, suite_id: str) -> Any:
        return open_suite(suite_id)

    def first_n(self, items: list[Any], n: int) -> list[Any]:
        return first_n(items, n)

    async def run_suite(self, store: Any, suite: Any, agent: Any, agent_id: str, **options: Any) -> Any:
        return await run_suite(store, suite, agent, agent_id, **options)


__all__ = ["CliServices"]
