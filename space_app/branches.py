"""Counterfactual branches: a stored match replayed up to a step, then played on with another
agent in one seat, stored as a match linked to its parent.

- A step is what the replay numbers: the Watch tab's step slider counts the spectator's
  events (every stored event but the runner's call records), from 1. Step K is the K-th.
- The branch point: every request the game made before step K's event is answered with the
  parent's recorded reply (no agent is called); from the first request after it, the seats
  are called: the chosen agent in the chosen seat, the parent's own agents, called again,
  everywhere else. The game is built from the parent's seed and settings, so its own
  randomness runs exactly as in the parent up to the branch point.
- The shared prefix: the parent's stored events before the first live call (step K and the
  rest of its step included) are copied into the branch unchanged, seq for seq; `verify`
  checks them byte for byte against the parent (`check_prefix`).
- Samples: house agents draw from generators seeded by what their seat has seen
  (`core.seeding`), so replaying the same state would give the same continuation every time.
  Each branch runs its house agents under a salt of its own (parent, step, seat, sample
  number), so samples differ and each can be played again. Both arms of a study share the
  salt of a sample number. Agents with randomness of their own (a model sampling at a
  temperature, a remote agent) are called as they are.
- A seat's health (marked failing after repeated failures) starts afresh at the branch point.
- A branch study plays N branches with the agent asked for and N with the parent's agent in
  that seat, from the same state, and reports the difference of the seat's win rates with a
  95% Newcombe (hybrid Wilson score) interval; the two arms are taken as independent samples.

Branch matches are tagged `study:branch:<parent>:<step>:<seat>`, so leaderboards leave them out.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from sdk.agent import LOCAL_AGENT_THREADS, Agent, Reply
from sdk.observation import Observation

from .agents.catalogue import base_of
from .core import Game, get_game
from .core.events import Call, Event, SeatDegraded
from .core.seeding import salted
from .off_loop import off_loop
from .runner import SeatAgent, new_match_id, play
from .seat_versions import version_of
from .service import Arena
from .standings import derive
from .stats import Difference, rate_difference, wilson
from .verify import ReplayMismatch, recorded_outcome

Arm = Literal["agent", "original"]
COMPARED = ("seq", "kind", "actor", "round", "visible_to", "text", "data")
INTERVAL = "95% Newcombe interval of a difference of two rates (hybrid Wilson score)"
CALL = Call.kind_name()


class BranchError(ValueError):
    """A branch that cannot be made (the message names why)."""


def branch_tag(parent_id: str, from_step: int, seat: str) -> str:
    return f"study:branch:{parent_id}:{from_step}:{seat}"[:100]


@dataclass(frozen=True)
class BranchPoint:
    """Where a branch leaves its parent: step K's event and the first request after it."""

    from_step: int
    steps: int  # the parent's steps
    step_seq: int  # seq of step K's event
    live_seq: int  # seq of the first call answered live; every event below it is the parent's


def _rows(match: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(match.get("events") or [], key=lambda r: r["seq"])


def branch_point(parent: dict[str, Any], from_step: int) -> BranchPoint:
    rows = _rows(parent)
    steps = [r for r in rows if r["kind"] != CALL]
    if not 1 <= from_step <= len(steps):
        raise BranchError(f"--from-step must be between 1 and {len(steps)} (match {parent['id']} has "
                          f"{len(steps)} steps), got {from_step}")
    step_seq = steps[from_step - 1]["seq"]
    live = next((r["seq"] for r in rows if r["kind"] == CALL and r["seq"] > step_seq), None)
    if live is None:
        raise BranchError(f"match {parent['id']} asks no seat for a move after step {from_step}: "
                          "there is nothing to play differently from there")
    return BranchPoint(from_step, len(steps), step_seq, live)


def replay_prefix(parent: dict[str, Any], point: BranchPoint) -> Game:
    """The parent's game, brought to the branch point with its recorded replies."""
    spec = get_game(parent["game"])
    seats = [s["seat"] for s in parent["seats"]]
    game = spec.make(len(seats), int(parent["seed"]), parent.get("settings") or {})
    game.match_id = parent["id"]
    # the runner's notes on a seat are no part of what the game emits (as in `verify.replay`)
    stored = [r for r in _rows(parent) if r["kind"] != SeatDegraded.kind_name()]
    pos = len(game.events)
    while not game.over:
        requests = game.pending()
        calls = stored[pos:pos + len(requests)]
        if len(calls) < len(requests):
            raise BranchError(f"the record of {parent['id']} ends before the branch point")
        if calls[0]["seq"] >= point.live_seq:
            return game
        before = len(game.events)
        game.submit([recorded_outcome(row, request)[1] for request, row in zip(requests, calls, strict=True)])
        pos += len(requests) + len(game.events) - before
    raise BranchError(f"the game of {parent['id']} ends before the branch point")


class SaltedAgent(Agent):
    """A local agent whose every call runs under a branch's salt (`core.seeding.salted`)."""

    def __init__(self, inner: Agent, salt: str) -> None:
        self.inner = inner
        self.salt = salt
        self.name = inner.name
        self.description = inner.description
        self.games = inner.games
        self.vision = inner.vision

    def prepare(self) -> None:
        self.inner.prepare()

    def info(self) -> dict:
        return self.inner.info()

    def act(self, obs: Observation) -> Reply:
        with salted(self.salt):
            return self.inner.act(obs)

    async def aact(self, obs: Observation) -> Reply:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(LOCAL_AGENT_THREADS, self.act, obs)


def with_salt(agent: Agent, salt: str) -> Agent:
    """Local agents (run in a worker thread) take the salt; one that calls out keeps its own
    randomness (its `aact` is its own)."""
    return SaltedAgent(agent, salt) if type(agent).aact is Agent.aact else agent


@dataclass
class BranchRun:
    match_id: str
    arm: Arm
    agent_id: str
    sample: int
    status: str
    won: bool | None  # the seat's side won; None when the branch did not finish


def _seat_won(match: dict[str, Any], seat: str) -> bool | None:
    if match.get("status") != "finished":
        return None
    return next((bool(r.won) for r in derive(match) if r.seat == seat), None)


async def run_branch(arena: Arena, parent: dict[str, Any], point: BranchPoint, seat: str, agent_spec: str,
                     arm: Arm = "agent", sample: int = 0) -> BranchRun:
    """Play one branch of `parent` to its end and store it, linked to its parent."""
    store = arena.store
    spec = get_game(parent["game"])
    game = replay_prefix(parent, point)
    salt = f"{parent['id']}:{point.from_step}:{seat}:{sample}"
    seat_agents: dict[str, SeatAgent] = {}
    for row in parent["seats"]:
        agent_id = agent_spec if row["seat"] == seat else row["agent_id"]
        arena.catalogue.check_plays(agent_id, parent["game"])
        base = arena.catalogue.resolve(agent_id)
        known = row["agent_name"] if agent_id == row["agent_id"] else (store.get_agent(base_of(agent_id)) or {}).get(
            "name", agent_id)
        seat_agents[row["seat"]] = SeatAgent(with_salt(base, salt), agent_id, known)
    match_id = new_match_id()
    prefix = [r for r in _rows(parent) if r["seq"] < point.live_seq]
    await off_loop(store.create_match, match_id, parent["game"], int(parent["seed"]),
                   [{"seat": s, "agent_id": a.agent_id, "agent_name": a.name} for s, a in seat_agents.items()],
                   settings=parent.get("settings") or {}, tag=branch_tag(parent["id"], point.from_step, seat),
                   rules=str(spec.rules.rules_version))
    await off_loop(store.add_branch, {"match_id": match_id, "parent_id": parent["id"], "from_step": point.from_step,
                                      "live_seq": point.live_seq, "seat": seat, "agent_id": agent_spec, "arm": arm,
                                      "sample": sample, "salt": salt})
    await off_loop(store.copy_events, match_id, prefix)
    game.match_id = match_id

    async def sink(items: list[tuple[int, Event]]) -> None:
        await off_loop(store.append_events, match_id, items)

    for agent in {id(a.agent): a.agent for a in seat_agents.values()}.values():
        try:
            await asyncio.to_thread(agent.prepare)
        except Exception:  # noqa: BLE001 - a failing agent shows in its turns, as in any match
            pass
    # each seat's agent version, as any match records it (read after prepare, as `Arena` does)
    versions = {s: v for s, a in seat_agents.items() if (v := await asyncio.to_thread(version_of, a.agent))}
    await off_loop(store.set_seat_versions, match_id, versions)
    outcome = await play(game, seat_agents, sink, arena.failing_after, resume_at=point.live_seq)
    await off_loop(arena.end_match, match_id, outcome)
    stored = await off_loop(store.get_match, match_id)
    return BranchRun(match_id, arm, agent_spec, sample, outcome.status, _seat_won(stored or {}, seat))


@dataclass(frozen=True)
class PrefixCheck:
    """`verify`'s word on a branch's shared prefix: identical to its parent's, or where not."""

    match_id: str
    parent_id: str
    from_step: int
    events: int  # events compared (every one below the first live call)
    ok: bool
    detail: str = ""
    first_difference: int | None = None

    def line(self) -> str:
        head = f"{self.match_id}: branch of {self.parent_id} from step {self.from_step}: "
        if self.ok:
            return head + f"its first {self.events} events (through step {self.from_step}) are the parent's, " \
                          "byte for byte"
        where = f" at event {self.first_difference}" if self.first_difference is not None else ""
        return head + f"the shared prefix differs{where}: {self.detail}"


def _canonical(row: dict[str, Any]) -> str:
    return json.dumps({k: row.get(k) for k in COMPARED}, sort_keys=True, ensure_ascii=False)


def check_prefix(branch: dict[str, Any], link: dict[str, Any], parent: dict[str, Any] | None) -> PrefixCheck:
    """Compare the branch's events below its live seq with its parent's, field by field as stored
    (JSON with sorted keys), and the game, seed, settings and rules the two were played under."""
    def refused(detail: str, seq: int | None = None, events: int = 0) -> PrefixCheck:
        return PrefixCheck(branch["id"], link["parent_id"], link["from_step"], events, False, detail, seq)

    if parent is None:
        return refused("the parent match is not in this store")
    for key in ("game", "seed", "settings", "rules"):
        if branch.get(key) != parent.get(key):
            return refused(f"{key} is {json.dumps(parent.get(key))[:80]} in the parent, "
                           f"{json.dumps(branch.get(key))[:80]} in the branch")
    cut = int(link["live_seq"])
    mine = [r for r in _rows(branch) if r["seq"] < cut]
    theirs = [r for r in _rows(parent) if r["seq"] < cut]
    for a, b in zip(theirs, mine, strict=False):
        if _canonical(a) != _canonical(b):
            field_ = next(k for k in COMPARED if a.get(k) != b.get(k))
            return refused(f"{a['kind']} event: {field_} is {json.dumps(a.get(field_))[:80]} in the parent, "
                           f"{json.dumps(b.get(field_))[:80]} in the branch", a["seq"], len(theirs))
    if len(mine) != len(theirs) or len(theirs) != cut:
        return refused(f"the parent has {len(theirs)} events below seq {cut}, the branch {len(mine)}",
                       None, len(theirs))
    return PrefixCheck(branch["id"], link["parent_id"], link["from_step"], cut, True)


def _step_view(rows: list[dict[str, Any]]) -> list[str]:
    return [json.dumps({k: r.get(k) for k in COMPARED if k != "seq"}, sort_keys=True, ensure_ascii=False)
            for r in rows if r["kind"] != CALL]


def diverges_at(parent: dict[str, Any], branch: dict[str, Any]) -> int | None:
    """The first step (the replay's numbering) where the branch shows something else than its
    parent; None when every step of both is the same."""
    mine, theirs = _step_view(_rows(branch)), _step_view(_rows(parent))
    for i, (a, b) in enumerate(zip(theirs, mine, strict=False)):
        if a != b:
            return i + 1
    return None if len(mine) == len(theirs) else min(len(mine), len(theirs)) + 1


@dataclass
class BranchStudy:
    parent_id: str
    game: str
    point: BranchPoint
    seat: str
    role: str
    agent: str
    original: str
    samples: int
    runs: list[BranchRun] = field(default_factory=list)

    def arm(self, arm: Arm) -> list[BranchRun]:
        return [r for r in self.runs if r.arm == arm and r.won is not None]

    def wins(self, arm: Arm) -> tuple[int, int]:
        played = self.arm(arm)
        return sum(1 for r in played if r.won), len(played)

    @property
    def dropped(self) -> int:
        return sum(1 for r in self.runs if r.won is None)

    def effect(self) -> Difference | None:
        return rate_difference(*self.wins("agent"), *self.wins("original"))


async def branch_study(arena: Arena, parent_id: str, from_step: int, seat: str, agent: str,
                       samples: int | None = None, concurrency: int = 4) -> BranchStudy:
    """Branches of `parent_id` from `from_step` with `agent` in `seat`: one when `samples` is
    None; else `samples` with `agent` and `samples` with the parent's agent in that seat."""
    parent = await off_loop(arena.store.get_match, parent_id)
    if parent is None:
        raise BranchError(f"no match {parent_id!r} in this store")
    if parent["status"] not in ("finished", "aborted", "error"):
        raise BranchError(f"match {parent_id} is {parent['status']}: branch a match that has ended")
    seats = {s["seat"]: s for s in parent["seats"]}
    if seat not in seats:
        raise BranchError(f"match {parent_id} has no seat {seat!r} (its seats: {', '.join(seats)})")
    if samples is not None and samples < 1:
        raise BranchError(f"--samples must be 1 or more, got {samples}")
    arena.check_seats(parent["game"], [agent])
    for row in parent["seats"]:
        if row["seat"] == seat and samples is None:  # one branch: the seat's own agent is not called
            continue
        try:  # the parent's agents are called again: each must still be one this arena can call
            arena.check_seats(parent["game"], [row["agent_id"]])
        except ValueError as exc:
            raise BranchError(f"seat {row['seat']}'s agent {row['agent_id']!r} cannot be called again: {exc}") from None
    point = branch_point(parent, from_step)
    try:
        roles = replay_prefix(parent, point).seat_roles()
    except ReplayMismatch as exc:
        raise BranchError(f"match {parent_id} does not replay under this arena's rules ({exc.detail}): "
                          "run `verify` on it") from None
    original = seats[seat]["agent_id"]
    study = BranchStudy(parent_id, parent["game"], point, seat, roles.get(seat, ""), agent, original, samples or 1)
    plan: Sequence[tuple[Arm, str, int]] = (
        [("agent", agent, 0)] if samples is None
        else [(arm, who, i) for i in range(samples) for arm, who in (("agent", agent), ("original", original))])
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(arm: Arm, who: str, i: int) -> BranchRun:
        async with gate:
            return await run_branch(arena, parent, point, seat, who, arm, i)

    study.runs = list(await asyncio.gather(*(one(*p) for p in plan)))
    return study


def study_lines(study: BranchStudy) -> list[str]:
    """What `branch` prints: the branches, each arm's win rate and, with both arms, the effect."""
    role = f" ({study.role})" if study.role else ""
    point = study.point
    lines = [f"branches of {study.parent_id} ({study.game}) from step {point.from_step} of {point.steps}, "
             f"seat {study.seat}{role}: the parent's replies up to event {point.live_seq - 1}, "
             f"then agents called again"]
    for r in study.runs:
        how = "did not finish" if r.won is None else ("won" if r.won else "lost")
        lines.append(f"  {r.match_id}  {r.arm:8}  sample {r.sample}  {r.agent_id}: {study.seat} {how}")
    arms: list[tuple[Arm, str]] = [("agent", study.agent)]
    if study.runs and any(r.arm == "original" for r in study.runs):
        arms.append(("original", f"{study.original} (the parent's)"))
    for arm, who in arms:
        k, n = study.wins(arm)
        interval = wilson(k, n)
        shown = f" [{interval[0]:.1%}, {interval[1]:.1%}]" if interval else ""
        lines.append(f"{who}: {study.seat} won {k} of {n}" + (f" ({k / n:.1%}, 95% Wilson{shown})" if n else ""))
    effect = study.effect()
    if effect is not None:
        n_agent, n_original = study.wins("agent")[1], study.wins("original")[1]
        lines.append(f"effect of {study.agent} in {study.seat} (vs {study.original}) on {study.seat}'s win rate: "
                     f"{effect.value * 100:+.1f} points, [{effect.low * 100:+.1f}, {effect.high * 100:+.1f}] "
                     f"({INTERVAL}; n = {n_agent} + {n_original})")
    if study.dropped:
        lines.append(f"{study.dropped} branch(es) did not finish and are left out")
    return lines


__all__ = ["INTERVAL", "BranchError", "BranchPoint", "BranchRun", "BranchStudy", "PrefixCheck",
           "SaltedAgent", "branch_point", "branch_study", "branch_tag", "check_prefix", "diverges_at",
           "replay_prefix", "run_branch", "study_lines", "with_salt"]
