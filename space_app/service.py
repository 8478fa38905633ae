"""The arena's one way to run matches: build the game, resolve seats, drive it with
the runner, write every step to the store. The CLI, the UI and the API all use it.
Its writes run off the event loop (`off_loop`)."""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from cachetools import TTLCache

from sdk.agent import LOCAL_AGENT_THREADS

from .admission import match_slot
from .agents.catalogue import AgentCatalogue, base_of, split_spec
from .batch import PLAYED_ELSEWHERE, planned, run_planned
from .config import failing_after_setting
from .core import get_game
from .core.events import Call, Event
from .engines import Engine, Tracker
from .event_writer import EventWriter
from .match_plan import MatchPlan
from .off_loop import off_loop
from .runner import MatchOutcome, SeatAgent, new_match_id, play
from .safe_text import clean_name
from .seat_versions import version_of
from .seating import TournamentOutcomes, count_seating, schedule
from .standings import keep
from .store import Store

log = logging.getLogger(__name__)
LiveCallback = Callable[[list[tuple[int, Event]]], None]
NAME_SECONDS = 30.0  # how long a seat name read from the store is reused


class Arena:
    """match_seconds: a hard bound on one match's wall time; past it the match ends as
    'aborted' with what was played so far recorded (None: no bound, e.g. the CLI).
    failing_after: calls failing alike in a row that stop a seat being called for the rest
    of its match (None: ARENA_FAILING_AFTER, default 3; 0: never)."""

    def __init__(self, store: Store, catalogue: AgentCatalogue | None = None,
                 match_seconds: float | None = None, engine: Engine | None = None,
                 failing_after: int | None = None) -> None:
        self.store = store
        if failing_after is not None and failing_after < 0:
            raise ValueError(f"failing_after must be 0 or more, got {failing_after}")
        self.failing_after = failing_after_setting() if failing_after is None else failing_after
        self.engine = engine  # where batches (tournaments, studies) run; None: in process
        self.catalogue = catalogue or AgentCatalogue(store)
        self.match_seconds = match_seconds
        self.on_finished: list[Callable[[str], None]] = []  # called with the id of each ended match
        # a match's end and its rating are one step: matches ending at once on the store's
        # threads are rated in the order they are marked finished, the order `catch_up` replays
        self._ending = threading.Lock()
        # seat names by agent spec: a store read on the loop for every seat of every match is
        # too many for a tournament; a rename shows in new matches within NAME_SECONDS
        self._names: TTLCache[str, str] = TTLCache(maxsize=1024, ttl=NAME_SECONDS)

    def _display_name(self, spec: str) -> str:
        name = self._names.get(spec)
        if name is None:
            name = self._names[spec] = self._stored_name(spec)
        return name

    def _stored_name(self, spec: str) -> str:
        base, wrapped = split_spec(spec)
        row = self.store.get_agent(base)
        suffix = "".join("+" + w for w in wrapped)
        # a name is shown to everyone: one clean line (an ad-hoc spec is whatever the caller typed)
        return clean_name((row["name"] + suffix) if row else spec, 120)

    async def run(self, plan: MatchPlan, on_events: LiveCallback | None = None,
                  extra_agents: dict[str, SeatAgent] | None = None, end: bool = True) -> MatchOutcome:
        """Run one match to its end; events are stored as each step happens.
        `extra_agents` seats agents that are not in the catalogue (e.g. a human) by seat.
        A match of an admitted batch (a visitor's comparison or study) first waits for a
        slot of that visitor's (`admission.match_slot`); it is created only once it has one.
        `end=False`: marking it ended and rating it are left to the caller (`end_match`: a
        batch ends its matches in plan order, so their standings follow the plan)."""
        async with match_slot():
            return await self._run(plan, on_events, extra_agents, end)

    async def _run(self, plan: MatchPlan, on_events: LiveCallback | None,
                   extra_agents: dict[str, SeatAgent] | None, end: bool = True) -> MatchOutcome:
        spec = get_game(plan.game)
        game = spec.make(len(plan.seats), plan.seed, plan.settings)
        game.match_id = plan.match_id or new_match_id()
        seat_specs = list(plan.seats)
        if plan.role_specs:
            roles = game.seat_roles()
            seat_specs = [plan.role_specs.get(roles.get(seat, ""), s)
                          for seat, s in zip(game.seats, seat_specs, strict=True)]
        seat_agents: dict[str, SeatAgent] = {}
        for seat, agent_spec in zip(game.seats, seat_specs, strict=True):
            if extra_agents and seat in extra_agents:
                seat_agents[seat] = extra_agents[seat]
            else:
                self.catalogue.check_plays(agent_spec, plan.game)
                seat_agents[seat] = SeatAgent(self.catalogue.resolve(agent_spec), agent_spec,
                                              self._display_name(agent_spec))
        create = functools.partial(
            self.store.claim_match if plan.planned else self.store.create_match,
            game.match_id, plan.game, plan.seed,
            [{"seat": s, "agent_id": a.agent_id, "agent_name": a.name} for s, a in seat_agents.items()],
            settings=game.settings.model_dump(mode="json"), tag=plan.tag, owner=plan.owner,
            rules=str(spec.rules.rules_version))
        claimed = await off_loop(create)
        # a planned match leased by another process: a worker that died on another machine
        # (its lease lapses within a lease's life: then it is played here) or one playing it
        # now (it may finish meanwhile: then it is kept); wait for either, not for ever
        leases = self.store.leases.settings
        waited = 0.0
        while claimed == "leased" and waited < 2 * leases.seconds:
            await asyncio.sleep(leases.heartbeat)
            waited += leases.heartbeat
            claimed = await off_loop(create)
        if claimed == "finished":  # a retried planned match that did end: kept as it is
            stored = await off_loop(self.store.get_match, game.match_id, with_events=False)
            return MatchOutcome(game.match_id, "finished", (stored or {}).get("result") or {})
        if claimed == "leased":
            return MatchOutcome(game.match_id, "error", {}, error=PLAYED_ELSEWHERE)

        async def write(items: list[tuple[int, Event]]) -> None:
            await off_loop(self.store.append_events, game.match_id, items)

        writer = EventWriter(write)

        async def sink(items: list[tuple[int, Event]]) -> None:
            await writer.add(items)
            if on_events is not None:
                on_events(items)

        async def end_early(why: str) -> None:
            await writer.close()  # what was played stays recorded
            await off_loop(self.store.finish_match, game.match_id, "aborted", None, why)

        try:
            # waking agents counts against the match's time: a Space that never wakes
            # cannot hold a slot longer than the bound
            outcome = await asyncio.wait_for(self._prepare_and_play(game, seat_agents, sink),
                                             timeout=self.match_seconds)
            await writer.close()
        except TimeoutError:
            why = f"the match ran past this arena's limit of {self.match_seconds:g} s"
            await end_early(why)
            return MatchOutcome(game.match_id, "aborted", {}, error=why)
        except asyncio.CancelledError:
            # the writes must happen even though this task is being cancelled
            await asyncio.shield(end_early("cancelled before its end"))
            raise
        except BaseException:
            # an unexpected failure: the match stays as it was left, but nobody renews its lease
            await asyncio.shield(off_loop(self.store.leases.release, game.match_id))
            raise
        if end:
            await off_loop(self._finish, game.match_id, outcome, seat_agents)
        else:
            # played, left running for its batch to mark ended: its lease stays (this process's
            # heartbeat renews it, or the batch's driver takes it over) until it is marked
            await off_loop(self._note_calls, outcome, seat_agents)
        return outcome

    def _finish(self, match_id: str, outcome: MatchOutcome, seat_agents: dict[str, SeatAgent]) -> None:
        """The end of a match, on the store's threads: its status, its standings, the listeners."""
        self.end_match(match_id, outcome)
        self._note_calls(outcome, seat_agents)

    def end_match(self, match_id: str, outcome: MatchOutcome, *, if_running: bool = False) -> None:
        """Mark a played match ended and rate it if it finished, then tell the listeners.
        `if_running`: only a match still marked running (a batch's, which its workers leave
        running), so a match ended before is never ended twice."""
        with self._ending:
            ended = self.store.finish_match(match_id, outcome.status, outcome.result or None, outcome.error or None,
                                            if_running=if_running)
            if outcome.status == "finished":
                keep(self.store, match_id)  # per-seat records, totals and ratings, once
        if not ended:
            return
        for listener in list(self.on_finished):
            try:
                listener(match_id)
            except Exception:  # noqa: BLE001 - a listener never breaks a match
                log.exception("on_finished listener %r failed for %s", listener, match_id)

    async def _prepare_and_play(self, game: Any, seat_agents: dict[str, SeatAgent],
                                sink: Callable[[list[tuple[int, Event]]], None]) -> MatchOutcome:
        by_agent = await self._prepare(seat_agents)
        versions = {seat: v for seat, s in seat_agents.items() if (v := by_agent.get(id(s.agent)))}
        await off_loop(self.store.set_seat_versions, game.match_id, versions)
        return await play(game, seat_agents, sink, self.failing_after)

    async def _prepare(self, seat_agents: dict[str, SeatAgent]) -> dict[int, dict[str, str]]:
        """Let each agent load its model or wake its Space before the clock starts.
        A failure here is not fatal: the agent's turns will show what goes wrong.
        Returns each agent's version by `id(agent)`, read after its prepare (a remote agent's
        `info` was just read again, so a redeployed Space's new version is the one recorded),
        on the worker thread: an outside protocol's `info` may be a network call."""
        loop = asyncio.get_running_loop()
        unique = {id(s.agent): s.agent for s in seat_agents.values()}.values()
        versions: dict[int, dict[str, str]] = {}

        def prepared(agent: Any) -> None:
            try:
                agent.prepare()
            finally:
                versions[id(agent)] = version_of(agent)

        async def one(agent: Any) -> None:
            try:
                await loop.run_in_executor(LOCAL_AGENT_THREADS, prepared, agent)
            except Exception as exc:  # noqa: BLE001 - reported through the match itself
                log.warning("preparing %s failed: %s", getattr(agent, "name", agent), exc)

        await asyncio.gather(*(one(a) for a in unique))
        return versions

    def _note_calls(self, outcome: MatchOutcome, seat_agents: dict[str, SeatAgent]) -> None:
        calls: Counter[str] = Counter()
        fails: Counter[str] = Counter()
        for e in outcome.events:
            if isinstance(e, Call) and not e.skipped:  # a skipped turn made no call
                agent_id = base_of(seat_agents[e.actor].agent_id)
                calls[agent_id] += 1
                if e.status in ("timeout", "error"):
                    fails[agent_id] += 1
        self.store.note_agent_calls({agent_id: (n, fails[agent_id]) for agent_id, n in calls.items()})

    def run_sync(self, plan: MatchPlan) -> MatchOutcome:
        return self.run_in_own_loop(self.run(plan))

    def run_in_own_loop(self, coro: Any) -> Any:
        """asyncio.run for callers that own their loop (CLI, warm-up): remote agents'
        connections of that loop are closed before it ends."""
        async def wrapped() -> Any:
            try:
                return await coro
            finally:
                await self.catalogue.aclose_sessions()

        return asyncio.run(wrapped())

    def check_seats(self, game: str, specs: Iterable[str]) -> None:
        """Each agent spec resolves and plays `game`; the first that does not is refused
        (`UnknownAgent`, naming it) before anything is run or stored."""
        for agent_spec in dict.fromkeys(specs):
            self.catalogue.resolve(agent_spec)
            self.catalogue.check_plays(agent_spec, game)

    def default_seats(self, game: str, players: int | None = None,
                      settings: dict[str, Any] | None = None) -> list[str]:
        """A game's own line-up for a seat list nobody gave: its demo house agents turned over
        the table (spy: house:heuristic, house:random, ...), else its first random-fill one."""
        spec = get_game(game)
        lineup = list(spec.house.demo) or [name for name, house in spec.house.agents.items() if house.random_fill][:1]
        if not lineup:
            raise ValueError(f"{game!r} has no house agents: give the seats (--seats)")
        n = players or spec.facts.players_by_default(settings)
        return [lineup[i % len(lineup)] for i in range(n)]

    async def tournament(self, game: str, specs: Sequence[str], games: int, seed: int = 0,
                         concurrency: int = 8, settings: dict[str, Any] | None = None,
                         tag: str = "", players: int | None = None,
                         role_specs: dict[str, str] | None = None,
                         progress: Callable[[MatchOutcome], None] | None = None,
                         tracker: Tracker | None = None,
                         deals: Sequence[dict[str, Any]] | None = None) -> TournamentOutcomes:
        """`games` matches with balanced seating (`seating.schedule`): each deal (a seed) is
        played once per rotation of `specs` over the seats, so over a block of len(specs)
        matches every agent sits in every seat, hence takes every dealt role, exactly once.
        Returns the outcomes (a list) with `.seating`: agent × role and agent × seat counts.
        Each match's id comes from the plan (`batch`): the same tournament run again plays only
        what did not finish, and its standings are rated in the schedule's order, on this
        arena's engine (in process, `concurrency` at once, unless it has one).
        `deals` (whole settings, one per fixed deal, as `space_app.deals` reads a deals file):
        the schedule's k-th deal plays the k-th of them (taken in turn) instead of its seed's."""
        spec = get_game(game)
        counts = {int(d["players"]) for d in deals or () if "players" in d}
        if len(counts) > 1:
            raise ValueError(f"the deals are for different player counts ({', '.join(map(str, sorted(counts)))}); "
                             "a tournament plays one table size")
        if players and counts and players not in counts:
            raise ValueError(f"the deals are for {counts.pop()} players, not the {players} asked for")
        # the deals' count, else the settings' (a murder-mystery script's characters), else the game's
        n = players or (counts.pop() if counts else spec.facts.players_by_default(settings))
        # an unknown spec fails here, before any match is created (not half-way through,
        # leaving the matches already started as 'running' records)
        self.check_seats(game, [*specs, *(role_specs or {}).values()])
        slots = schedule(list(specs), n, games, seed)

        def settings_of(deal: int) -> dict[str, Any] | None:
            return {**(settings or {}), **deals[deal % len(deals)], "players": n} if deals else settings

        deal_of = {slot.seed: slot.deal for slot in slots}
        seating = count_seating(slots, lambda s: spec.deal_roles(n, s, settings_of(deal_of[s])), spec.facts.roles,
                                spec.facts.seat_names(n, {**(settings_of(0) or {}), "players": n}), role_specs,
                                block=len(specs))
        plans = [planned(MatchPlan(game, slot.seats, seed=slot.seed, settings=settings_of(slot.deal), tag=tag,
                                   role_specs=role_specs), ("tournament", slot.deal, slot.rotation))
                 for slot in slots]
        outcomes = await run_planned(self, plans, engine=self.engine, concurrency=concurrency,
                                     progress=progress, tracker=tracker)
        return TournamentOutcomes(outcomes, seating)
