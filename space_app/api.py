"""The arena's API: one class whose methods back both the UI and the named
`gradio_client` endpoints (register_agent, list_agents, run_match, get_match,
list_matches, leaderboard, head_to_head, accounting, run_benchmark, compare). Inputs are validated
here; errors are `ApiError` with a message meant for people."""

from __future__ import annotations

import asyncio
import functools
import json
import math
import random
import re
import threading
import time
from collections.abc import Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import urlsplit, urlunsplit

from anyio import to_thread
from pydantic import BaseModel, Field, ValidationError, field_validator

from sdk import AgentError, Observation
from sdk.agent import LOCAL_AGENT_THREADS
from sdk.remote import resolve_src

from .accounting import MEANING as ACCOUNTING_MEANING
from .accounting import accounting
from .admission import MatchSlots
from .agents.catalogue import (
    AgentCatalogue,
    UnknownAgent,
    base_of,
    house_agents,
    house_games,
    is_ad_hoc,
    plays,
)
from .compare import MEASURES
from .compare import compare as duplicate
from .config import ArenaConfig
from .core import GAMES, ResultsPage, ResultsScope, Study, get_game
from .core.events import GENERIC
from .core.game import Request
from .core.transcript import seen_by
from .export import snapshot
from .head_to_head import head_to_head
from .images import outside_images
from .leaderboard import board
from .loop_lag import LoopLag
from .refusal import Refusal
from .registry import RegistrationError, register_agent
from .runner import call_agent, new_match_id
from .sequential import StopRule
from .service import Arena, LiveCallback, MatchPlan
from .sources import VISITOR, describe, kind_of, label, parse_kinds
from .standings import catch_up
from .store import Store
from .suites import SUITES, Suite, open_suite
from .suites.quiz import HUMAN_PREFIX, PEOPLE, next_question, person_id, pooled, record_answer
from .suites.run import run_suite, score
from .timeouts import explain_timeout

if TYPE_CHECKING:
    from .sync import RecordSync

MAX_SEATS = max(spec.facts.max_players for spec in GAMES.values())  # the largest table of any game
RANDOM_FILL = "(random fill)"
MAX_LIST = 500
MAX_BRANCHES_SHOWN = 50  # branches a replay lists, each with where it diverges (a study may make hundreds)
MAX_SUITE_LIMIT = 1000  # questions one benchmark call may ask
MAX_COMPARE_DEALS = 200  # deals one comparison may play (twice each)
MAX_SPEC = 300  # characters of one seat's agent spec
MAX_SETTINGS = 100_000  # characters of the settings as JSON (room for ~1,500 word pairs)
MAX_DEPTH = 8  # nesting of the settings (word pairs need 3)
SEED_LIMIT = 2**63  # a seed is stored as a signed 64-bit integer
_INLINE_PNG = re.compile(r"data:image/png;base64,[A-Za-z0-9+/]+={0,2}")  # nothing but image bytes
_WHOLE = re.compile(r"[+-]?[0-9]{1,18}")  # ASCII digits only: int() also reads '²' and '٣'


class ApiError(Refusal):
    """A request the arena refuses, with the reason (and, for those a page shows, its words: see
    `space_app.refusal`)."""


def whole_number(value: Any, name: str, low: int, high: int, clamp: bool = True) -> int:
    """A numeric parameter as given by any client (a number or its text), kept within
    low..high (`clamp=False`: refused outside it); anything else is refused naming the
    parameter and what it accepts."""
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
        number = int(value.strip())
    if number is None:
        shown = repr(value)[:40] if isinstance(value, str) else type(value).__name__
        raise ApiError(f"{name} must be a whole number from {low} to {high}, not {shown}")
    if not clamp and not low <= number <= high:
        raise ApiError(f"{name} must be a whole number from {low} to {high}, not {number}")
    return max(low, min(number, high))


def _depth(value: Any, limit: int) -> int:
    """Nesting depth of JSON-like data, counting no further than `limit` + 1."""
    if limit < 0 or not isinstance(value, (dict, list)):
        return 0
    items = value.values() if isinstance(value, dict) else value
    return 1 + max((_depth(v, limit - 1) for v in items), default=0)


class MatchRequest(BaseModel):
    game: str = Field(default="spy", max_length=40)
    seats: list[Annotated[str, Field(max_length=MAX_SPEC)]] = Field(default_factory=list,
                                                                  max_length=MAX_SEATS)
    seed: int | None = Field(default=None, ge=0, lt=SEED_LIMIT)
    settings: dict[str, Any] = Field(default_factory=dict)

    @field_validator("settings")
    @classmethod
    def _bounded(cls, value: dict[str, Any]) -> dict[str, Any]:
        if _depth(value, MAX_DEPTH) > MAX_DEPTH:
            raise ValueError(f"settings are nested deeper than {MAX_DEPTH} levels")
        if len(json.dumps(value, default=str)) > MAX_SETTINGS:
            raise ValueError(f"settings are larger than {MAX_SETTINGS} characters as JSON")
        return value


def _without_userinfo(src: str) -> str:
    """A URL as listed publicly: credentials in it (refused at registration today, but
    possibly stored by an older version) are never shown."""
    parts = urlsplit(src or "")
    if parts.username is None and parts.password is None:
        return src
    return urlunsplit((parts.scheme, "***@" + parts.netloc.rsplit("@", 1)[1], parts.path, parts.query,
                       parts.fragment))


@dataclass
class LiveMatch:
    """A match being played: who started it, and how to stop it."""

    owner: str
    task: asyncio.Future
    loop: asyncio.AbstractEventLoop


def results_scope(sources: str | Iterable[str] = "default") -> ResultsScope:
    """The leaderboard's filter as a results page takes it."""
    try:
        kinds = parse_kinds(sources)
    except ValueError as exc:
        raise ApiError(str(exc)) from exc
    return ResultsScope(keep=lambda tag: kind_of(tag) in kinds, describe=describe(kinds), label=label(kinds))


def while_running(match: dict[str, Any]) -> dict[str, Any]:
    """What anyone may see of a running match: its public events only (no call records, no
    secrets), without its result, seed or settings."""
    match["events"] = [e for e in match["events"] if e["visible_to"] is None]
    # the seed replays the secret draws and the settings may name them (a fixed word
    # pair): both wait for the end, like the result
    match.update(result=None, seed=None, settings={})
    return match


def board_kinds(game: str, sources: str | Iterable[str], tag: str | None) -> frozenset[str] | None:
    """The sources a board of `game` counts (None: those of `tag`), or a clear refusal."""
    if game not in GAMES:
        raise ApiError(f"unknown game {game!r}")
    try:
        return parse_kinds(sources) if sources or tag is None else None
    except ValueError as exc:
        raise ApiError(str(exc)) from exc


class ArenaAPI:
    def __init__(self, config: ArenaConfig, store: Store | None = None,
                 sync: RecordSync | None = None) -> None:
        self.config = config
        self.store = store or Store(config.db)
        self.sync = sync  # copies registry changes (and, via arena.on_finished, matches) to a dataset
        self.egress = config.egress_policy()
        self.arena = Arena(self.store, AgentCatalogue(self.store, config.remote_timeout, egress=self.egress,
                                                      max_cached=config.agent_cache_size),
                           match_seconds=config.max_match_seconds, failing_after=config.failing_after)
        # the caps, counted over every replica's leases on this database (space_app.admission)
        self.slots = MatchSlots(self.store.leases, config.max_matches_total, config.max_matches_per_visitor,
                                refuse=ApiError)
        self._live: dict[str, LiveMatch] = {}
        self._lock = threading.Lock()
        self.store.leases.on_cancel.append(self._cancel_here)
        self.store.leases.start()  # renews this replica's leases, reaps those of replicas that died
        self.loop_lag = LoopLag()  # started with the server (ui.app.launch_kwargs)
        # matches restored from a dataset or stored by an older version get their records now
        catch_up(self.store)

    # -- admission control ------------------------------------------------------
    def admit(self, visitor: str, key: str | None = None) -> AbstractAsyncContextManager[None]:
        """One match (or one agent call) for `visitor`, now, or refused with the reason; `key`:
        the match's id (its lease's key)."""
        return self.slots.now(visitor, key)

    def admit_batch(self, visitor: str) -> AbstractAsyncContextManager[None]:
        """A call that plays several matches (a comparison, a study, a benchmark's questions):
        admitted now or refused, then each of its matches waits for a slot of `visitor`'s, so
        the visitor never has more matches running than their cap (see `space_app.admission`)."""
        return self.slots.batch(visitor)

    # -- agents ------------------------------------------------------------------
    def register_agent(self, src: str, name: str = "", secret: str = "", description: str = "",
                       kind: str = "remote", owner: str = "") -> dict[str, Any]:
        try:
            reg = register_agent(self.store, src, name=name, secret=secret, owner=owner,
                                 description=description, kind=kind, egress=self.egress,
                                 timeout=self.config.remote_timeout)
        except RegistrationError as exc:
            raise ApiError(str(exc)) from exc
        self.arena.catalogue.forget(reg.agent_id)  # the next match uses the new secret at once
        if self.sync is not None:
            self.sync.record_agent(reg.agent_id)
        return {"agent_id": reg.agent_id, "name": reg.name, "info": reg.info}

    def remove_agent(self, agent_id: str, owner: str) -> str:
        row = self.store.get_agent(agent_id)
        if row is None or not row["active"]:
            raise ApiError(f"no agent {agent_id!r}")
        if not self.owner_or_operator(row, owner):
            raise ApiError("only the owner can remove this agent")
        self.store.deactivate_agent(agent_id)
        self.arena.catalogue.forget(agent_id)
        if self.sync is not None:
            self.sync.record_agent(agent_id)
        return f"removed {agent_id}"

    # -- who may act for a registered agent --------------------------------------------
    def owner_or_operator(self, row: dict[str, Any], user: str | None) -> bool:
        """The ownership rule: a registered agent is removed, benchmarked and tried by the user
        who registered it, or by one of this arena's operators (editing is registering the same
        source again, which only its owner's sign-in reaches)."""
        return bool(user) and (user == row["owner"] or user in self.config.operators)

    def check_owner(self, spec: str, visitor: str, doing: str, instead: str) -> None:
        """Refuse `doing` on a registered agent unless `visitor` owns it or operates the arena.
        House agents and `remote:`/`wis:` URLs (which carry no stored secret) are anyone's to use
        under the seat rules; off a Space (and in-process, visitor 'api') the caller runs the
        arena, so is its operator."""
        base = base_of(spec)
        if is_ad_hoc(base) or base in house_agents() or visitor == "api" or not self.config.on_space:
            return
        row = self.store.get_agent(base)
        if row is None or not row["active"]:
            return  # not a registered agent: resolving it says what is wrong
        user = visitor.removeprefix("user:") if visitor.startswith("user:") else None
        if self.owner_or_operator(row, user):
            return
        who = "sign in with Hugging Face as its owner" if user is None else "you are not its owner"
        raise ApiError(f"only the owner of {base!r} ({row['owner']}) or this arena's operator can {doing} "
                       f"it ({who}); {instead}")

    def list_agents(self) -> list[dict[str, Any]]:
        house = [{"id": name, "name": name, "kind": "house", "owner": "arena", "description": agent.description,
                  "games": list(house_games(name)), "last_seen": None, "failures": 0, "calls": 0,
                  "has_secret": False}
                 for name, agent in house_agents().items()]
        registered = [{**{k: v for k, v in a.items() if k != "info"}, "src": _without_userinfo(a["src"]),
                       "needs_secret": bool((a.get("info") or {}).get("needs_secret"))}
                      for a in self.store.list_agents()]
        return house + registered

    def agent_ids(self, agent: str) -> list[str]:
        """The ids `agent` may mean: itself, and every listed agent with that name (any case),
        so a filter takes the name a replay shows as well as the id."""
        named = [a["id"] for a in self.list_agents() if str(a["name"]).lower() == agent.lower()]
        return list(dict.fromkeys([agent, *named]))

    def seat_choices(self, game: str | None = None) -> list[str]:
        """Agent ids that can take a seat (in `game`: only agents that declare it)."""
        return [a["id"] for a in self.list_agents() if game is None or plays(a.get("games") or [], game)]

    # -- matches -----------------------------------------------------------------
    def plan(self, request: dict[str, Any] | MatchRequest, owner: str = "",
             signed_in: bool = True, tag: str = VISITOR) -> MatchPlan:
        """Validate a match request and fill its seats. `signed_in`: whether the caller is a
        signed-in user (on a Space only they may seat an agent by URL); `tag`: the match's
        source (`visitor`, or `human` when a person takes a seat)."""
        try:
            req = request if isinstance(request, MatchRequest) else MatchRequest.model_validate(request)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(map(str, first["loc"])) or "request"
            raise ApiError(f"invalid match request: {where}: {first['msg']}") from exc
        if req.game not in GAMES:
            raise ApiError(f"unknown game {req.game!r}; known: {', '.join(GAMES)}")
        spec = get_game(req.game)
        n = int(req.settings.get("players", spec.facts.default_players))
        if len(req.seats) > n:
            raise ApiError(f"{req.game} has {n} seats, got {len(req.seats)} agents", "too_many_seats",
                           game=req.game, seats=n, agents=len(req.seats))
        seed = req.seed if req.seed is not None else random.randrange(2**31)
        # random fill: empty seats (or missing ones at the end) get one of the game's fast house agents
        rng = random.Random(seed)
        house = [name for name, agent in spec.house.agents.items() if agent.random_fill]
        given = [s.strip() for s in req.seats] + [""] * (n - len(req.seats))
        seats = [s if s and s != RANDOM_FILL else rng.choice(house) for s in given]
        for s in seats:
            if is_ad_hoc(s):
                self._check_ad_hoc(s, signed_in)
            try:
                self.arena.catalogue.resolve(s)
                self.arena.catalogue.check_plays(s, req.game)
            except UnknownAgent as exc:
                raise ApiError.carrying(exc) from exc
        seconds = req.settings.get("seconds")
        if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) \
                and not 0 < seconds <= self.config.max_turn_seconds:
            raise ApiError(f"invalid settings: seconds: must be more than 0 and at most "
                           f"{self.config.max_turn_seconds:g} (this arena's turn limit)", "turn_seconds",
                           limit=f"{self.config.max_turn_seconds:g}")
        try:
            spec.rules.settings_class.model_validate({**req.settings, "players": n})
            # the first turn's observations carry the per-turn limits: a setting that
            # makes them invalid is refused now, not found out as an error match
            spec.make(n, seed, {**req.settings, "players": n}).pending()
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(map(str, first["loc"])) or "settings"
            raise ApiError(f"invalid settings: {where}: {first['msg']}") from exc
        except ValueError as exc:
            raise ApiError(f"invalid settings: {exc}") from exc
        return MatchPlan(req.game, seats, seed, {**req.settings, "players": n}, owner=owner,
                         match_id=new_match_id(), tag=tag)

    def _check_ad_hoc(self, spec: str, signed_in: bool) -> None:
        """`remote:`/`wis:` seats name a URL the arena will call: on a Space only for a
        signed-in caller, and only a URL the egress policy allows."""
        if self.config.on_space and not signed_in:
            raise ApiError(f"{base_of(spec)!r}: seating an agent by URL needs sign-in here; "
                           "register the agent in the Agents tab, or sign in with Hugging Face", "url_sign_in",
                           agent=base_of(spec))
        base = base_of(spec)
        src = base.split(":", 1)[1]
        try:
            self.egress.target(resolve_src(src) if base.startswith("remote:") else src)
        except (ValueError, AgentError) as exc:
            raise ApiError(f"{base!r} cannot be seated: {getattr(exc, 'message', exc)}") from exc

    async def run_match(self, request: dict[str, Any], visitor: str = "api",
                        on_events: LiveCallback | None = None, extra_agents: dict | None = None,
                        plan: MatchPlan | None = None, signed_in: bool = True) -> dict[str, Any]:
        # checking a seat by URL resolves its name: on a worker thread, never on the event loop
        plan = plan or await to_thread.run_sync(functools.partial(self.plan, request, owner=visitor,
                                                                  signed_in=signed_in))
        # the slot's lease is keyed by the match's id: a cancel asked on another replica finds it
        async with self.admit(visitor, plan.match_id):
            task = asyncio.ensure_future(self.arena.run(plan, on_events=on_events, extra_agents=extra_agents))
            with self._lock:
                self._live[plan.match_id] = LiveMatch(visitor, task, asyncio.get_running_loop())
            try:
                outcome = await task
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if current is not None and current.cancelling():  # the caller itself was cancelled
                    raise
                return {"match_id": plan.match_id, "status": "aborted", "result": {},
                        "error": "cancelled by its owner"}
            finally:
                with self._lock:
                    self._live.pop(plan.match_id, None)
            # leaving `admit` gives the lease back (an ended match dropped it already)
        return {"match_id": outcome.match_id, "status": outcome.status, "result": outcome.result,
                "error": outcome.error}

    def cancel_match(self, match_id: str, visitor: str) -> str:
        """Stop a running match started by `visitor`; what was played stays recorded."""
        match_id = (match_id or "").strip()
        with self._lock:
            live = self._live.get(match_id)
        if live is None:
            # played by another replica on this database: its heartbeat sees the request
            asked = self.store.leases.request_cancel(match_id[:40], visitor) if match_id else "none"
            if asked == "none":
                raise ApiError(f"no running match {match_id[:40]!r} here", "no_running_match", match=match_id[:40])
            if asked == "not_yours":
                raise ApiError("only whoever started a match can cancel it", "not_your_match")
            return f"cancelling {match_id}"
        if live.owner != visitor:
            raise ApiError("only whoever started a match can cancel it", "not_your_match")
        live.loop.call_soon_threadsafe(live.task.cancel)
        return f"cancelling {match_id}"

    def _cancel_here(self, match_id: str) -> None:
        """A cancel asked on another replica, for a match this one plays (the lease heartbeat)."""
        with self._lock:
            live = self._live.get(match_id)
        if live is not None:
            live.loop.call_soon_threadsafe(live.task.cancel)

    def get_match(self, match_id: str, seat: str = "") -> dict[str, Any]:
        """A recorded match. While it runs, everyone sees only its public events: no
        roles, no words, no seed or settings, no seat's private view, no call records."""
        match_id = (match_id or "").strip()
        if not match_id or len(match_id) > 40 or not match_id.isalnum():
            raise ApiError(f"match not found: {match_id[:40]!r}")
        match = self.store.get_match(match_id)
        if match is None:
            raise ApiError(f"match not found: {match_id!r}")
        if match["status"] == "running":
            if seat:
                raise ApiError("a seat's view is shown once the match has ended; while it runs "
                               "only the public events are")
            return while_running(match)
        if seat:
            if seat not in [s["seat"] for s in match["seats"]]:
                raise ApiError(f"no seat {seat!r} in this match")
            # the stored rows themselves are returned, those the seat was shown
            match["events"] = [row for row in match["events"] if seen_by(GENERIC.parse(row), seat)]
        return match

    def branch_links(self, match_id: str) -> dict[str, Any]:
        """A match's counterfactual branches for its replay (`branches`): the match it was
        branched from ({'parent', 'from_step', 'seat', 'agent'}, None when it is no branch) and
        the branches made from it (the first MAX_BRANCHES_SHOWN; `more`: how many are left out),
        each with the step where its transcript first differs."""
        from .branches import diverges_at

        match_id = (match_id or "").strip()
        if not match_id or len(match_id) > 40 or not match_id.isalnum():
            raise ApiError(f"match not found: {match_id[:40]!r}")
        link = self.store.branch_of(match_id)
        parent = None if link is None else {k: link[k] for k in ("from_step", "seat", "arm", "sample")} | {
            "parent": link["parent_id"], "agent": link["agent_id"]}
        rows = self.store.branches_of(match_id)
        match = self.store.get_match(match_id) if rows else None
        children = []
        # each shown branch is read whole (to find where it diverges): a long study shows its first ones
        for row in rows[:MAX_BRANCHES_SHOWN]:
            branch = self.store.get_match(row["match_id"]) if match is not None else None
            shown = branch is not None and branch["status"] != "running"
            children.append({"id": row["match_id"], "from_step": row["from_step"], "seat": row["seat"],
                             "agent": row["agent_id"], "arm": row["arm"], "sample": row["sample"],
                             "status": row["status"],
                             "winner": ((branch or {}).get("result") or {}).get("winner") if shown else None,
                             "diverges_at": diverges_at(match, branch) if shown else None})
        return {"branched_from": parent, "branches": children, "more": max(0, len(rows) - MAX_BRANCHES_SHOWN)}

    def list_matches(self, game: str = "", agent: str = "", status: str = "", since_days: float = 0,
                     limit: int | str = 50) -> list[dict[str, Any]]:
        count = whole_number(limit, "limit", 1, MAX_LIST)
        since = time.time() - since_days * 86400 if since_days and since_days > 0 else None
        agent = agent.strip()
        rows = self.store.list_matches(game=game or None, agent_ids=self.agent_ids(agent) if agent else (),
                                       agent_name=agent or None, status=status or None,
                                       since=since, limit=count)
        out = []
        for m in rows:
            result = m.get("result") or {}
            out.append({"id": m["id"], "game": m["game"], "status": m["status"], "tag": m["tag"],
                        "source": kind_of(m["tag"]),
                        "created_at": m["created_at"], "winner": result.get("winner"),
                        "seats": [f"{s['seat']}={s['agent_name']}" for s in m["seats"]]})
        return out

    async def try_agent(self, agent: str, observation: dict[str, Any] | str, visitor: str = "api",
                        signed_in: bool = True) -> dict[str, Any]:
        """Send one observation to an agent the way a match does (same time limit, bounds and
        parsing) and return its raw reply beside what the arena reads from it; a timeout is
        explained (`explanation`: time used, the limit, what was still pending). Nothing is stored."""
        try:
            obs = (Observation.model_validate_json(observation) if isinstance(observation, str)
                   else Observation.model_validate(observation))
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in exc.errors()[:5])
            raise ApiError(f"invalid observation: {problems}") from exc
        outside = outside_images(obs)
        if outside:
            where, url = outside[0]
            raise ApiError(f"invalid observation: {where}: {url[:80]!r} is an outside image URL; only this "
                           "arena's image references (e.g. mystery/<script>/<file>) and data: URLs are sent "
                           f"to agents ({len(outside)} refused)")
        spec = str(agent or "").strip()
        if not spec:
            raise ApiError("choose an agent")
        if is_ad_hoc(spec):
            await to_thread.run_sync(self._check_ad_hoc, spec, signed_in)
        # a registered agent is called with its owner's secret: trying it is the owner's
        self.check_owner(spec, visitor, "try", "it is called with its owner's secret: try a house agent, or "
                         "your own agent by URL (remote:<URL>)")
        async with self.admit(visitor):
            try:
                seated = self.arena.catalogue.resolve(spec)
            except UnknownAgent as exc:
                raise ApiError(str(exc)) from exc
            # the observation's own limit, as in a match, within this arena's turn limit
            seconds = min(obs.limits.seconds, self.config.max_turn_seconds)
            outcome, record = await call_agent(seated, Request(obs.you, obs), seconds=seconds)
        got = {"agent": spec, "verb": obs.verb, "status": record.status, "detail": record.detail,
               "reply": record.reply, "read_as": outcome.text, "latency_ms": record.latency_ms,
               "seconds": seconds, "truncated": bool(record.truncated)}
        if record.status == "timeout":
            got["explanation"] = explain_timeout(record, seated, seconds, obs.limits.seconds,
                                                 self.config.max_turn_seconds)
        return got

    # -- question suites ---------------------------------------------------------------
    async def run_benchmark(self, suite: str, agent: str, limit: int | str = 0, visitor: str = "api",
                            signed_in: bool = True, fresh: bool = False,
                            concurrency: int | str = 1) -> dict[str, Any]:
        """Run an agent's `answer` over a shipped suite (a fixed sample of `limit` questions; 0: all)
        and return its scores. Answers are kept: a second call resumes (asking again the questions
        whose call failed for infrastructure reasons), a cut run keeps its part; `fresh` forgets the
        agent's previous answers to the suite first. `concurrency`: questions asked at once (1 by
        default, for a local or one-slot model; at most the visitor's match slots), reported in the
        result beside each failed question's reason. A registered agent is its owner's to benchmark."""
        if suite not in SUITES:
            raise ApiError(f"unknown suite {suite!r}; known: {', '.join(SUITES)}")
        opened = open_suite(suite)
        agent = str(agent or "").strip()
        if not agent:
            raise ApiError("name the agent to benchmark (e.g. house:guess)")
        count = whole_number(limit, "limit", 0, MAX_SUITE_LIMIT, clamp=False)
        at_once = whole_number(concurrency, "concurrency", 1, max(1, self.config.max_matches_per_visitor),
                               clamp=False)
        if not isinstance(fresh, bool):
            raise ApiError(f"fresh must be true or false, not {type(fresh).__name__}")
        if is_ad_hoc(agent):
            await to_thread.run_sync(self._check_ad_hoc, agent, signed_in)
        self.check_owner(agent, visitor, "run a benchmark on",
                         "its published results are open to everyone (benchmark_results)")
        try:
            resolved = self.arena.catalogue.resolve(agent)
            self.arena.catalogue.check_plays(agent, opened.game)
        except UnknownAgent as exc:
            raise ApiError(str(exc)) from exc
        seconds = min(60.0, self.config.max_turn_seconds)
        async with self.admit_batch(visitor):
            await self._wake(agent, resolved)
            try:
                scores = await asyncio.wait_for(
                    run_suite(self.store, opened, resolved, agent, limit=count or None, seconds=seconds,
                              fresh=fresh, concurrency=at_once),
                    timeout=self.config.max_match_seconds)
            except TimeoutError:
                raise ApiError(f"the run passed this arena's limit of {self.config.max_match_seconds:g} s; "
                               "the answers so far are kept: run it again to go on") from None
        return scores.to_dict()

    async def _wake(self, spec: str, agent: Any) -> None:
        """Wake the agent (a sleeping Space, a model to load) before any question is asked, as
        a match does; one that cannot be reached is refused and nothing is recorded."""
        loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(loop.run_in_executor(LOCAL_AGENT_THREADS, agent.prepare),
                                   timeout=self.config.max_match_seconds)
        except Exception as exc:  # noqa: BLE001 - every way of not waking is the same refusal
            why = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
            raise ApiError(f"{spec!r} could not be reached before the benchmark ({str(why)[:200]}); nothing "
                           "was recorded: run it again once the agent is up") from None

    # -- duplicate comparisons ---------------------------------------------------------
    async def compare(self, a: str, b: str, game: str = "spy", deals: int | str = 50,
                      opponents: list[str] | str | None = None, seed: int | str = 0, players: int | str = 0,
                      measure: str = "win", visitor: str = "api", signed_in: bool = True,
                      until_separated: bool = False, until_interval: float | str = 0,
                      look_every: int | str = 20) -> dict[str, Any]:
        """Duplicate mode (`space_app.compare`): every deal played twice, A and B swapped into
        the same seat against the same opponents; the paired difference with its 95% bootstrap
        interval and an exact sign test. The matches are stored with the returned `tag`.
        `until_separated` / `until_interval` (a half-width; 0: none) make `deals` a budget and
        stop at the first look (every `look_every` deals) where the answer is known
        (`space_app.sequential`); the account is under `sequential`."""
        if game not in GAMES:
            raise ApiError(f"unknown game {game!r}; known: {', '.join(GAMES)}")
        if measure not in MEASURES:
            raise ApiError(f"measure must be one of {', '.join(MEASURES)}")
        deals = whole_number(deals, "deals", 1, MAX_COMPARE_DEALS, clamp=False)
        seed = whole_number(seed, "seed", 0, SEED_LIMIT - 1, clamp=False)
        players = whole_number(players, "players", 0, MAX_SEATS, clamp=False)
        stop = self._stop_rule(until_separated, until_interval, look_every)
        if isinstance(opponents, str):
            opponents = opponents.split(",")
        others = [str(o).strip() for o in opponents or [] if str(o).strip()]
        if len(others) > MAX_SEATS:
            raise ApiError(f"at most {MAX_SEATS} opponents")
        specs = [str(a or "").strip(), str(b or "").strip()]
        if not all(specs):
            raise ApiError("name the two agents to compare, e.g. house:heuristic and house:random")
        for agent in {*specs, *others}:
            if len(agent) > MAX_SPEC:
                raise ApiError(f"an agent spec is longer than {MAX_SPEC} characters")
            if is_ad_hoc(agent):
                await to_thread.run_sync(self._check_ad_hoc, agent, signed_in)
        # one slot of the visitor's per match: never more at once than their cap
        async with self.admit_batch(visitor):
            try:
                result = await asyncio.wait_for(
                    duplicate(self.arena, specs[0], specs[1], game, int(deals), opponents=others or None,
                            seed=int(seed), players=int(players) or None, measure=measure,
                            concurrency=self.config.max_matches_per_visitor, stop=stop,
                            prices=self.config.prices),
                    timeout=self.config.max_match_seconds)
            except TimeoutError:
                raise ApiError(f"the comparison passed this arena's limit of {self.config.max_match_seconds:g} s; "
                               "ask for fewer deals") from None
            except ValueError as exc:  # an unknown agent, one that does not play the game, bad players
                raise ApiError(str(exc)) from exc
        return result.to_dict()

    @staticmethod
    def _stop_rule(separated: object, half_width: float | str, every: int | str) -> StopRule | None:
        """A comparison's stopping rule as any client sends it, or None for a fixed size."""
        if not isinstance(separated, bool):
            raise ApiError(f"until_separated must be true or false, not {type(separated).__name__}")
        try:
            width = float(half_width or 0)
        except (TypeError, ValueError):
            raise ApiError(f"until_interval must be a number (a half-width, 0 for none), not {half_width!r}") from None
        if not math.isfinite(width) or width < 0:
            raise ApiError(f"until_interval must be 0 (none) or a half-width above 0, not {half_width!r}")
        if not separated and not width:
            return None
        try:
            return StopRule(separated=separated, half_width=width or None,
                            every=whole_number(every, "look_every", 2, MAX_COMPARE_DEALS, clamp=False))
        except ValueError as exc:
            raise ApiError(str(exc)) from exc

    def benchmark_results(self, suite: str) -> list[dict[str, Any]]:
        """Every agent's scores on a suite, from its stored answers (best first); everyone who
        took the quiz in the browser is one `people` row, with how many people."""
        opened = self._suite(suite)
        items = {item.id: item.tags for item in opened.loaded.items}
        by_agent: dict[str, list[dict[str, Any]]] = {}
        people = set()
        for row in self.store.answers(suite):
            if row["item_id"] in items:
                by_agent.setdefault(row["agent_id"], []).append(row)
                if row["agent_id"].startswith(HUMAN_PREFIX):
                    people.add(row["agent_id"])
        retry = {agent: len(ids & items.keys()) for agent, ids in self.store.to_retry(suite).items()}
        for agent in retry:
            by_agent.setdefault(agent, [])  # an agent with questions to retry and none answered yet
        out = [{**score(suite, agent, rows, items, retry.get(agent, 0)).to_dict(),
                "people": len(people) if agent == PEOPLE else None}
               for agent, rows in pooled(by_agent).items()]
        return sorted(out, key=lambda r: (-(r["accuracy"] or 0.0), r["agent"]))

    def _suite(self, suite: str) -> Suite:
        if suite not in SUITES:
            raise ApiError(f"unknown suite {suite!r}; known: {', '.join(SUITES)}")
        return open_suite(suite)

    def quiz_question(self, suite: str, visitor: str) -> dict[str, Any]:
        """The next question of a suite for a person (a fixed random order, skipping theirs)."""
        opened = self._suite(suite)
        person = person_id(visitor)
        item = next_question(self.store, opened, person)
        done = len(self.store.answered(opened.id, person))
        if item is None:
            return {"item_id": None, "answered": done}
        # keyframes stored inline (PNG data URLs) are shown with the question; other references are not
        pictures = [i for i in item.images if _INLINE_PNG.fullmatch(i)]
        return {"item_id": item.id, "context": item.context, "question": item.question,
                "options": dict(item.options), "types": list(item.types), "answered": done, "images": pictures}

    def quiz_answer(self, suite: str, item_id: str, label: str, seconds: float, visitor: str) -> dict[str, Any]:
        """A person's answer, stored as their `human:` agent's; says whether it was right."""
        opened = self._suite(suite)
        try:
            return record_answer(self.store, opened, person_id(visitor), str(item_id), str(label or ""),
                                 max(0.0, float(seconds or 0.0)))
        except ValueError as exc:
            raise ApiError(str(exc)) from exc

    def leaderboard(self, game: str = "spy", min_games: int | str = 0, sources: str | Iterable[str] = "default",
                    tag: str | None = None, void_infra: bool = False, by_version: bool = False,
                    version: str = "") -> list[dict[str, Any]]:
        """One row per agent, read from the stored standings; `min_games` counts matches;
        `sources`: 'default' (visitor, human and tournament matches), 'all' or a comma list
        of kinds (see `space_app.sources`); `tag`: one tag's matches only; `void_infra`: leave
        out matches in which a call could not reach its agent; `by_version`: one row per agent
        and version (model, revision, SDK: `agent_id` and `version` name them); `version`:
        only rows whose version contains that text (implies `by_version`)."""
        kinds = board_kinds(game, sources, tag)
        minimum = whole_number(min_games, "min_games", 0, 1_000_000)
        if not isinstance(version, str) or len(version) > 200:
            raise ApiError("version: give text of at most 200 characters, e.g. 'gpt-4o' or 'rev 3f2a9c1'")
        return board(self.store, game, sources=kinds, tag=tag or None, min_matches=minimum,
                     void_infra=bool(void_infra), by_version=bool(by_version), version=version.strip() or None)

    def accounting(self, game: str = "", sources: str | Iterable[str] = "default", agent: str = ""
                   ) -> dict[str, Any]:
        """What each agent used and what went wrong for it (calls, prompt and completion tokens,
        re-asks, unreadable and truncated replies, latency), per game and over every game, with a
        cost estimate from ARENA_PRICES; `game`: one game ('' every game); `sources` as the
        leaderboard's; `agent`: one agent ('' every agent)."""
        if game and game not in GAMES:
            raise ApiError(f"unknown game {game!r}; known: {', '.join(GAMES)}")
        if not isinstance(agent, str) or len(agent) > 200:
            raise ApiError("agent: give an agent id of at most 200 characters, or '' for every agent")
        try:
            kinds = parse_kinds(sources or "default")
        except ValueError as exc:
            raise ApiError(str(exc)) from exc
        rows = accounting(self.store, [game] if game else list(GAMES), self.config.prices, sources=kinds,
                          agents=[agent.strip()] if agent.strip() else None)
        return {"rows": rows, "includes": describe(kinds), "priced_models": sorted(self.config.prices),
                "columns": dict(ACCOUNTING_MEANING)}

    def head_to_head(self, game: str = "spy", sources: str | Iterable[str] = "default", tag: str | None = None,
                     void_infra: bool = False, agents: str | Sequence[str] = "", limit: int | str = 0
                     ) -> dict[str, Any]:
        """Pairwise win rates (with 95% intervals) of agents that sat on opposite teams, over
        the matches the leaderboard with the same filter counts (`head_to_head.DEFINITION`);
        `agents`: a comma list to show (in that order), else every agent, most matches first;
        `limit`: at most that many agents (0: all)."""
        kinds = board_kinds(game, sources, tag)
        names = [a.strip() for a in agents.split(",")] if isinstance(agents, str) else [str(a) for a in agents]
        if len(names) > 200:
            raise ApiError("agents: at most 200 agents")
        return head_to_head(self.store, game, sources=kinds, tag=tag or None, void_infra=bool(void_infra),
                            agents=[a for a in names if a], limit=whole_number(limit, "limit", 0, 200))

    # -- what the interface reads beyond the public endpoints --------------------------
    # (no gradio_client route: the UI's own views, through the API like everything else)
    def leaderboard_snapshot(self, game: str, sources: Iterable[str], min_matches: int = 0,
                             void_infra: bool = False, by_version: bool = False) -> dict[str, Any]:
        """The leaderboard with its filter, match count and versions (the UI's table and downloads);
        `by_version`: one row per agent and version."""
        return snapshot(self.store, game, sources=frozenset(sources), min_matches=max(0, int(min_matches)),
                        void_infra=bool(void_infra), by_version=bool(by_version))

    def seat_records(self, game: str, agents: list[str]) -> list[dict[str, Any]]:
        """The stored per-seat records of these agents in one game, oldest first."""
        return list(self.store.records(game, agents=agents))

    def _study(self, game: str, study: str) -> Study:
        found = get_game(game).extras.studies.get(study)
        if found is None:
            raise ApiError(f"game {game!r} has no study {study!r}")
        return found

    def study_chart(self, game: str, study: str) -> Any:
        """The study's chart of its newest stored run (a DataFrame of bar, condition, value)."""
        found = self._study(game, study)
        return found.chart(self.store) if found.chart is not None else None

    def study_rows(self, game: str, study: str) -> list[dict[str, Any]]:
        """The study's newest stored run, one row per condition."""
        found = self._study(game, study)
        return found.newest(self.store) if found.newest is not None else []

    async def run_study(self, game: str, study: str, base: str, games: int, seed: int,
                        visitor: str = "study") -> list[dict[str, Any]]:
        """Run the study on the arena: admitted like a comparison, each of its matches takes
        one of the visitor's slots."""
        found = self._study(game, study)
        async with self.admit_batch(visitor):
            return await found.run(self.arena, base=base, games=int(games), seed=int(seed))

    def report_sections(self, reports: dict[str, Any]) -> list[Any]:
        """The Results tab's sections of these paper-shaped reports, read from the stored runs."""
        from .reports import results_sections  # loaded when a page is drawn

        return results_sections(self.store, reports)

    def results_page(self, game: str, sources: str | Iterable[str] = "default") -> ResultsPage | None:
        """The game's own results page from the stored runs, or None when it has none. It reads
        the matches of the leaderboard's filter (`sources`, the same default), so the two agree."""
        spec = GAMES.get(game)
        page = spec.presentation.results if spec is not None else None
        return page(self.store, results_scope(sources)) if page is not None else None

