"""The match runner: drives any game against any agents and records everything.

Simultaneous requests are called concurrently; each call's time limit is enforced
by cancelling the await (a hung agent never holds the match); replies are bounded;
timeouts, AgentErrors and unreadable votes become the rule's outcome through
`Outcome.status`. Every call is recorded as a spectator-only `call` event with its
latency, tokens, outcome and, when the agent says so, `truncated` (a model reply stopped at
its token limit) and its model calls (the messages an `LLMAgent` built and the raw replies).
An agent that declared `vision` is sent its observation's
pictures as data URLs (`images.inline_images`); the game and its events keep the
references. A seat whose calls keep failing the same way is no longer called, and a vision
seat whose model refuses pictures is sent captions (`seat_health`); either change is
recorded as a `SeatDegraded` event. Many matches run concurrently on one event loop.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from sdk.agent import Agent
from sdk.errors import AgentError
from sdk.observation import Observation

from .core.events import Call, Error, SeatDegraded
from .core.game import SPECTATORS, Event, Game, Outcome, Request
from .core.replies import outcome_text
from .images import game_resolver, inline_images
from .model_calls import bounded_model_calls
from .seat_health import DEFAULT_FAILING_AFTER, SeatHealth, refused_images

MAX_RECORDED_REPLY = 2000  # characters of the raw reply kept in the call record
MAX_NOTES = 8000  # characters of an agent's private notes (as JSON) kept and handed to the game
MAX_TOKENS = 10**9  # a reported token count is the agent's word: stored within 0..MAX_TOKENS
MIN_REASK_SECONDS = 1.0  # a turn refused for its pictures is asked again with captions if this much is left
# new events, with their seq; an async sink (one that writes off the event loop) is awaited
EventSink = Callable[[list[tuple[int, Event]]], None | Awaitable[None]]


@dataclass
class SeatAgent:
    """Who sits in a seat: the agent object plus how the store knows it."""

    agent: Agent
    agent_id: str
    name: str = ""
    seconds: float | None = None  # this seat's own time limit (e.g. a person), else the game's

    def __post_init__(self) -> None:
        self.name = self.name or getattr(self.agent, "name", self.agent_id)


@dataclass
class MatchOutcome:
    match_id: str
    status: str  # finished | error
    result: dict[str, Any]
    events: list[Event] = field(default_factory=list)
    error: str = ""


def new_match_id() -> str:
    return uuid.uuid4().hex[:12]


def bounded_notes(notes: Any) -> dict[str, Any] | None:
    """An agent's private notes as JSON data, or None when absent, not a dict, not JSON or too
    long (an agent cannot make the record or the game carry more than MAX_NOTES characters)."""
    if not isinstance(notes, dict) or not notes:
        return None
    try:
        text = json.dumps(notes, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):  # nested past the encoder's depth: dropped, like too long
        return None
    return json.loads(text) if len(text) <= MAX_NOTES else None


def bounded_tokens(reported: Any) -> tuple[int | None, str | None]:
    """A reported token count as stored, and what was reported when it had to be changed.
    Counts are summed into leaderboards and SQLite integers (at most 2^63 - 1), so 10^30 or a
    negative count is clamped to 0..MAX_TOKENS and the call record says so."""
    if reported is None:
        return None, None
    if not isinstance(reported, int) or isinstance(reported, bool):
        return None, f"not a whole number ({type(reported).__name__})"
    if 0 <= reported <= MAX_TOKENS:
        return reported, None
    shown = str(reported) if reported.bit_length() <= 256 else f"a {reported.bit_length()}-bit number"
    return min(max(reported, 0), MAX_TOKENS), shown[:80]


def sees_images(agent: Agent) -> bool:
    """Whether the agent declared `vision` (a remote agent: in the `info` its `prepare` read)."""
    return getattr(agent, "vision", False) is True


async def shown_to(agent: Agent, obs: Observation, captions: bool = False) -> Observation:
    """The observation as `agent` is sent it: with the game's image references it holds
    turned into data URLs when the agent reads images (and its model has not refused them:
    `captions`), else as the game built it."""
    to_url = game_resolver(obs.game) if sees_images(agent) and not captions else None
    if to_url is None:
        return obs
    # reading and encoding a file the first time is blocking work: off the event loop
    return await asyncio.to_thread(inline_images, obs, to_url)


async def call_agent(agent: Agent, request: Request, seconds: float | None = None, *,
                     captions: bool = False, budget: float | None = None) -> tuple[Outcome, Call]:
    """One request -> (the outcome the game sees, the call record).
    `captions`: pictures stay references (the seat's model refused images). `budget`: less
    time than the turn's, when part of the turn is already spent (a re-ask)."""
    obs = request.observation
    if seconds is not None:
        obs = obs.model_copy(update={"limits": obs.limits.model_copy(update={"seconds": seconds})})
    if budget is not None and budget < obs.limits.seconds:
        obs = obs.model_copy(update={"limits": obs.limits.model_copy(update={"seconds": budget})})
    obs = await shown_to(agent, obs, captions)
    limit = obs.limits.seconds
    started = time.perf_counter()
    raw: Any = None
    usage = None
    notes: dict[str, Any] | None = None
    truncated = False
    model_calls: Any = None
    status, detail = "ok", ""
    try:
        reply = await asyncio.wait_for(agent.aact(obs), timeout=limit)
        raw, usage = reply.text, reply.usage
        notes = bounded_notes((reply.meta or {}).get("notes"))
        truncated = (reply.meta or {}).get("truncated") is True
        model_calls = (reply.meta or {}).get("model_calls")
        if not isinstance(raw, str):
            status, detail = "error", f"bad_reply: reply is {type(raw).__name__}, not text"
    except TimeoutError:
        status, detail = "timeout", f"no reply within {limit:g} s"
    except AgentError as exc:
        status = "timeout" if exc.kind == "timeout" else "error"
        detail = f"{exc.kind}: {exc.message}"[:500]
    except Exception as exc:  # an agent's bug is its own foul, never the match's end
        status, detail = "error", f"agent_failed: {type(exc).__name__}: {exc}"[:500]
    latency_ms = (time.perf_counter() - started) * 1000

    text: str | None = None
    if status == "ok":
        assert isinstance(raw, str)
        text, status, detail = outcome_text(raw, obs)
    prompt_tokens, prompt_reported = bounded_tokens(usage.prompt_tokens if usage else None)
    completion_tokens, completion_reported = bounded_tokens(usage.completion_tokens if usage else None)
    data: dict[str, Any] = {
        "verb": obs.verb, "phase": obs.phase, "status": status, "detail": detail,
        "latency_ms": round(latency_ms, 2),
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "reply": raw[:MAX_RECORDED_REPLY] if isinstance(raw, str) else None,
        "parsed": text if obs.verb != "speak" else None,
    }
    if isinstance(raw, str) and len(raw) > MAX_RECORDED_REPLY and text is not None:
        data["given"] = text  # the record's reply is cut: keep what the game got, for `verify`
    clamped = {key: shown for key, shown in (("prompt_tokens", prompt_reported),
                                              ("completion_tokens", completion_reported)) if shown}
    if clamped:
        data["tokens_clamped"] = clamped  # what the agent reported, beside the bounded counts above
    if notes is not None and status == "ok":
        data["notes"] = notes
    if truncated:
        data["truncated"] = True  # a model reply of the turn stopped at its token limit
    if seconds is not None:
        data["seconds"] = seconds  # the seat's own limit, for `verify` to hand the game again
    if captions and sees_images(agent):
        data["captions"] = True
    kept, cut_note = bounded_model_calls(model_calls)
    if kept:
        data["model_calls"] = kept  # what the agent's model was sent and said, for the replay
    if cut_note:
        data["model_calls_note"] = cut_note
    record = Call(actor=request.seat, round=obs.round, visible_to=SPECTATORS, text=detail or status, **data)
    return Outcome(seat=request.seat, text=text, status=status, detail=detail,
                   notes=notes if status == "ok" else None, seconds=seconds), record


def skipped_call(request: Request, why: str, seconds: float | None = None) -> tuple[Outcome, Call]:
    """A turn of a seat marked failing: the rule's outcome for a failed call, without calling it."""
    obs = request.observation
    detail = f"failing: not called, after {why}"
    record = Call(actor=request.seat, round=obs.round, visible_to=SPECTATORS, text=detail, verb=obs.verb,
                  phase=obs.phase, status="error", detail=detail, latency_ms=0.0, skipped=True,
                  **({"seconds": seconds} if seconds is not None else {}))
    return Outcome(seat=request.seat, text=None, status="error", detail=detail, seconds=seconds), record


async def take_turn(seat: SeatAgent, request: Request, health: SeatHealth) -> tuple[Outcome, Call, list[Event]]:
    """One seat's turn as its health allows: skipped when it is failing; asked again with
    captions when its model refuses pictures. Returns the `SeatDegraded` events it caused."""
    if health.failing:
        return (*skipped_call(request, health.failing, seat.seconds), [])
    notices: list[Event] = []
    outcome, record = await call_agent(seat.agent, request, seat.seconds, captions=bool(health.captions))
    if not health.captions and sees_images(seat.agent) and refused_images(record):
        health.captions = record.detail[:500]
        notices.append(SeatDegraded(actor=request.seat, seat=request.seat, state="captions", round=record.round,
                                    visible_to=SPECTATORS, reason=health.captions,
                                    text=f"{request.seat}'s model refused pictures: it is sent their captions "
                                         "for the rest of the match"))
        spent = (record.latency_ms or 0.0) / 1000
        left = (seat.seconds or request.observation.limits.seconds) - spent
        if left >= MIN_REASK_SECONDS:
            outcome, again = await call_agent(seat.agent, request, seat.seconds, captions=True, budget=left)
            record = again.model_copy(update={"images_refused": health.captions,
                                              "latency_ms": round((again.latency_ms or 0.0) + spent * 1000, 2)})
    if health.note(record):
        notices.append(SeatDegraded(actor=request.seat, seat=request.seat, state="failing", round=record.round,
                                    visible_to=SPECTATORS, reason=f"{health.failing}; the last: {record.detail}"[:500],
                                    after=health.streak,
                                    text=f"{request.seat} is marked failing and is no longer called: "
                                         f"{health.failing}"))
    return outcome, record, notices


async def play(game: Game, seats: dict[str, SeatAgent], sink: EventSink | None = None,
               failing_after: int = DEFAULT_FAILING_AFTER, resume_at: int | None = None) -> MatchOutcome:
    """Drive `game` to its end. `sink` gets each step's new events as they happen.
    `failing_after`: failures alike in a row that stop a seat being called (0: never).
    `resume_at`: the game was brought to its state by replaying a record (a branch) whose
    events are stored with seqs below this; the events the game holds already are not sent
    again, new ones are numbered from here, and the outcome's events are the new ones only."""
    missing = set(game.seats) - set(seats)
    if missing:
        raise ValueError(f"no agent for seat(s) {sorted(missing)}")
    # an agent that asks to be called every turn (a person) is never marked failing
    health = {seat: SeatHealth(0 if getattr(agent.agent, "always_called", False) is True else failing_after)
              for seat, agent in seats.items()}
    log: list[Event] = []
    emitted = 0 if resume_at is None else len(game.events)
    first_seq = resume_at or 0

    async def flush(extra: list[Event]) -> None:
        nonlocal emitted
        new = extra + game.events[emitted:]
        emitted = len(game.events)
        items = []
        for event in new:
            log.append(event)
            items.append((first_seq + len(log) - 1, event))
        if sink is not None and items:
            written = sink(items)
            if inspect.isawaitable(written):
                await written

    await flush([])
    try:
        while not game.over:
            requests = game.pending()
            if not requests:
                raise RuntimeError(f"{game.id}: not over but nothing pending")
            results = await asyncio.gather(*(take_turn(seats[r.seat], r, health[r.seat]) for r in requests))
            records: list[Event] = [record for _, record, _ in results]
            notices = [notice for _, _, turn_notices in results for notice in turn_notices]
            game.submit([outcome for outcome, _, _ in results])
            await flush(records + notices)
    except Exception as exc:  # a bug in a game must not lose what was recorded
        error = Error(text=f"{type(exc).__name__}: {exc}", visible_to=SPECTATORS)
        await flush([error])
        return MatchOutcome(game.match_id, "error", {}, log, error=error.text)
    return MatchOutcome(game.match_id, "finished", game.result(), log)
