"""Planned matches, run on an engine and recorded exactly once.

A planned match (a tournament's, a comparison's) has an id derived from its plan: the game,
the tag, the deal and rotation (or A/B side) that placed it, its seed, its seats, settings
and role agents (`plan_id`). So a match run again (a Ray task retried after its worker died,
or the same command run again after the driver died) is recognised by its id:

- played to its end already: kept as it is, not played again (`Store.claim_match`);
- half written (left 'running' by a process that died, or 'aborted'): replaced, in one
  transaction, by the match played again;
- its end and its standings: the workers write each match (events as they happen, so a
  crash leaves a readable partial record) and leave it 'running'; the driver marks the
  matches ended and rates them in plan order, each once (`Arena.end_match`; `standings.keep`
  is idempotent). So the standings of a plan are the same whichever engine ran it, in
  whatever order its matches ended, however often it was interrupted and resumed, and after
  a rebuild (`catch_up` replays matches in the order they were marked ended). A match played
  to its end whose driver died before marking it is played again by the next run;
- until it is marked, a played match keeps its lease (`space_app.leases`): its worker
  renews it, and the driver takes it over as the outcome comes back (`Store.adopt_match`),
  so a worker that dies afterwards does not leave it to be aborted, and no process ever
  judges whether another machine's process is alive.

Ids of matches not played from a plan (a visitor's match, `match`) stay random.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from .engines import Done, Engine, LocalEngine, Tracker
from .match_plan import MatchPlan
from .off_loop import off_loop
from .runner import MatchOutcome
from .store import Store


class Arena(Protocol):
    """What plays planned matches (`service.Arena`): a worker builds its own of the same type
    on the same store, so this module never imports the service that uses it."""

    store: Store
    match_seconds: float | None

    def __init__(self, store: Store, *, match_seconds: float | None = None) -> None: ...

    async def run(self, plan: MatchPlan, *, end: bool = True) -> MatchOutcome: ...

    def end_match(self, match_id: str, outcome: MatchOutcome, *, if_running: bool = False) -> Any: ...

PLAYED_ELSEWHERE = "another live process is playing this match"


def plan_id(plan: MatchPlan, place: Sequence[Any]) -> str:
    """A planned match's id: 12 hex digits (the stored format of every id) of a hash of what
    makes it that match. `place` says where the plan puts it (deal, rotation; deal, side)."""
    key = {"game": plan.game, "tag": plan.tag, "place": list(place), "seed": plan.seed, "seats": plan.seats,
           "settings": plan.settings or {}, "roles": plan.role_specs or {}}
    text = json.dumps(key, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass
class MatchJob:
    """The engine's job for planned matches: a worker plays each plan into the store at `url`.
    In process the driver's own arena plays them (`arena`, never pickled to a cluster)."""

    url: str
    arena_type: type[Arena]  # pickled by reference: a worker imports it
    match_seconds: float | None = None
    arena: Arena | None = field(default=None, compare=False, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        return {"url": self.url, "arena_type": self.arena_type, "match_seconds": self.match_seconds, "arena": None}

    def open(self) -> MatchWorker:
        if self.arena is not None:
            return MatchWorker(self.arena)
        # a worker does not abort other processes' running matches: the driver did at start
        return MatchWorker(self.arena_type(Store(self.url, recover=False), match_seconds=self.match_seconds))


class MatchWorker:
    def __init__(self, arena: Arena) -> None:
        self.arena = arena

    async def run(self, plan: MatchPlan) -> MatchOutcome:
        outcome = await self.arena.run(plan, end=False)
        # the events are in the store: only what the driver needs goes back
        return MatchOutcome(outcome.match_id, outcome.status, outcome.result, error=outcome.error)


async def run_planned(arena: Arena, plans: Sequence[MatchPlan], *, engine: Engine | None = None,
                      concurrency: int = 8, progress: Callable[[MatchOutcome], None] | None = None,
                      tracker: Tracker | None = None) -> list[MatchOutcome]:
    """Play every plan (each must carry its `plan_id`) on `engine` (default: in process,
    `concurrency` at once), skip those already finished, and rate the finished ones in plan
    order. Outcomes in plan order; `progress` gets each as it ends (the skipped ones first);
    `tracker` (a progress bar) each start and end, and how many were skipped."""
    store = arena.store
    ids = [p.match_id for p in plans]
    if len(set(ids)) != len(ids) or not all(ids):
        raise ValueError("planned matches need distinct plan ids")
    states = await off_loop(store.match_states, ids)
    outcomes: list[MatchOutcome | None] = [None] * len(plans)
    todo: list[int] = []
    for i, plan in enumerate(plans):
        if states.get(plan.match_id, ("", 0))[0] == "finished":
            stored = await off_loop(store.get_match, plan.match_id, with_events=False)
            outcomes[i] = MatchOutcome(plan.match_id, "finished", (stored or {}).get("result") or {})
            if progress is not None:
                progress(outcomes[i])
        else:
            todo.append(i)
    if tracker is not None and len(todo) < len(plans):
        tracker.skip(len(plans) - len(todo))
    rated = 0
    rating = asyncio.Lock()

    async def rate_in_order() -> None:
        nonlocal rated
        async with rating:  # one pass at a time: the plan's order is the order of the standings
            while rated < len(plans) and outcomes[rated] is not None:
                done = outcomes[rated]
                if done is not None and done.error != PLAYED_ELSEWHERE:
                    await off_loop(arena.end_match, done.match_id, done, if_running=True)
                rated += 1

    pending_rates: list[asyncio.Task] = []
    await rate_in_order()

    engine = engine or LocalEngine(concurrency)
    # in process the driver played the match itself and holds its lease already
    elsewhere = not isinstance(engine, LocalEngine)

    async def take_over_and_rate(outcome: MatchOutcome) -> None:
        if outcome.error != PLAYED_ELSEWHERE:  # another live process's lease stays its own
            await off_loop(store.adopt_match, outcome.match_id)
        await rate_in_order()

    def ended(done: Done) -> None:
        i = todo[done.index]
        outcome = done.value if done.ok else MatchOutcome(plans[i].match_id, "error", {}, error=done.error)
        outcomes[i] = outcome
        if progress is not None:
            progress(outcome)
        if tracker is not None:
            tracker.end(outcome.status == "finished")
        rate = take_over_and_rate(outcome) if elsewhere and done.ok else rate_in_order()
        pending_rates.append(asyncio.ensure_future(rate))

    await engine.map(MatchJob(store.url, type(arena), arena.match_seconds, arena), [plans[i] for i in todo],
                     on_start=(lambda _: tracker.start()) if tracker is not None else None, on_end=ended)
    await asyncio.gather(*pending_rates)
    await rate_in_order()
    return [o if o is not None else MatchOutcome(plans[i].match_id, "error", {}, error="not run")
            for i, o in enumerate(outcomes)]


def planned(plan: MatchPlan, place: Sequence[Any]) -> MatchPlan:
    """The plan with its derived id."""
    return replace(plan, match_id=plan_id(plan, place), planned=True)
