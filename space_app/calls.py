"""Every call inspectable: for each stored call record, what the seat was sent and what came
back. The observation is rebuilt by replaying the match through its game (games are pure, so
the replay asks exactly what the match asked; nothing extra is stored); the messages and raw
replies of the agent's model are those the agent reported (`Call.model_calls`, kept by the
runner for `LLMAgent`s); the rest is the call record itself (status, the reason a reply was
refused, what the arena read, latency, tokens).

Who sees what (`visible_calls`): a seat sees its own calls, during the match and after; a
spectator sees every seat's calls once the match has ended, and none while it runs. A call
record never holds an agent's secret or endpoint: the runner writes only what crossed the
seat's boundary, and the replayed observation is the one that seat was sent."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field

from .core import UnknownGame, get_game
from .core.events import Call, Event
from .model_calls import ModelCall
from .verify import ReplayMismatch, replay

LIVE_NOTE = "call contents are shown once the match has ended"


class CallView(BaseModel):
    """One call as the replay shows it."""

    seq: int | None
    round: int | None
    seat: str
    verb: str | None
    phase: str | None
    status: str
    refused: str = Field(default="", description="why the arena did not take the reply ('' when it did)")
    reply: str | None = Field(default=None, description="the raw reply, as received (cut to the record's bound)")
    read: str | None = Field(default=None, description="what the arena read from it and gave the game")
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    truncated: bool = False
    seconds: float | None = Field(default=None, description="the seat's own time limit, when it had one")
    notes: dict[str, Any] | None = None
    observation: dict[str, Any] | None = Field(default=None, description="what the seat was sent")
    observation_note: str = Field(default="", description="why the observation is missing")
    model_calls: list[ModelCall] = Field(default_factory=list)
    model_calls_note: str = ""


def visible_calls(match: dict[str, Any], events: Iterable[Event], seat: str | None) -> tuple[list[Call], str]:
    """The call records `seat` (None: a spectator) may open, and a note when some are withheld."""
    calls = [e for e in events if isinstance(e, Call)]
    if seat is not None:
        return [c for c in calls if c.actor == seat], ""
    if match.get("status") == "running":
        return [], LIVE_NOTE
    return calls, ""


_OBSERVED: OrderedDict[str, tuple[dict[int, dict[str, Any]], str]] = OrderedDict()
CACHED_MATCHES = 32  # replays kept: stepping through one match replays it once
_CACHE_LOCK = threading.Lock()  # page handlers run on several threads


def observations(match: dict[str, Any]) -> tuple[dict[int, dict[str, Any]], str]:
    """Each call record's observation by its seq, from a replay of the match, and a note saying
    why some are missing (the record does not replay under this arena's rules, or its game is
    gone). The seat's own time limit, when the call record has one, is set as the runner set it."""
    # keyed by the whole record, not its id: a run log opened in one page may hold a record of
    # the same id with other contents, and must not change what another page is shown
    key = hashlib.sha256(json.dumps([match.get(k) for k in ("id", "game", "seed", "settings", "status", "seats",
                                                             "events")],
                                    sort_keys=True, default=str).encode()).hexdigest()
    with _CACHE_LOCK:
        if key in _OBSERVED:
            _OBSERVED.move_to_end(key)
            return _OBSERVED[key]
    found: dict[int, dict[str, Any]] = {}

    def seen(call: Call, request: Any) -> None:
        obs = request.observation
        if call.seconds is not None:
            obs = obs.model_copy(update={"limits": obs.limits.model_copy(update={"seconds": call.seconds})})
        if call.seq is not None:
            found[call.seq] = obs.model_dump(mode="json")

    note = ""
    try:
        spec = get_game(str(match.get("game")))
        why_not = spec.rules.replay_note(match) if spec.rules.replay_note else None
        if why_not:
            note = f"not rebuilt: {why_not}"
        elif match.get("seed") is None:
            note = "not rebuilt: the seed is withheld while the match runs"
        else:
            replay(match, seen)
    except UnknownGame as exc:
        note = f"not rebuilt: {exc}"
    except ReplayMismatch as exc:
        note = f"not rebuilt past where the replay differs from the record: {exc.detail}"
    except (ValueError, KeyError, TypeError) as exc:
        note = f"not rebuilt: unreadable record ({type(exc).__name__})"
    with _CACHE_LOCK:
        _OBSERVED[key] = (found, note)
        while len(_OBSERVED) > CACHED_MATCHES:
            _OBSERVED.popitem(last=False)
    return found, note


def view_of(call: Call, observed: dict[int, dict[str, Any]], note: str) -> CallView:
    """One call record, with its observation when the replay rebuilt it."""
    models = []
    for raw in call.model_calls or []:
        try:
            models.append(ModelCall.model_validate(raw))
        except ValueError:
            continue  # a record written by another version: the rest of the call still shows
    observation = observed.get(call.seq) if call.seq is not None else None
    return CallView(
        seq=call.seq, round=call.round, seat=call.actor, verb=call.verb, phase=call.phase, status=call.status,
        refused=call.detail if call.failed else "", reply=call.reply,
        read=call.given if call.given is not None else (call.parsed if call.parsed is not None else (
            call.reply if call.status == "ok" else None)),
        latency_ms=call.latency_ms, prompt_tokens=call.prompt_tokens, completion_tokens=call.completion_tokens,
        truncated=bool(call.truncated), seconds=call.seconds, notes=call.notes,
        observation=observation, observation_note="" if observation is not None else (note or "not rebuilt"),
        model_calls=models, model_calls_note=call.model_calls_note or (
            "" if models else "the agent reported no model calls (only an LLMAgent's are recorded)"))


def call_views(match: dict[str, Any], events: Iterable[Event], seat: str | None) -> tuple[list[CallView], str]:
    """The calls `seat` (None: a spectator) may open, each with what it was sent; and a note
    when call contents are withheld."""
    calls, note = visible_calls(match, events, seat)
    if not calls:
        return [], note
    observed, why = observations(match)
    return [view_of(c, observed, why) for c in calls], note


__all__ = ["LIVE_NOTE", "CallView", "call_views", "observations", "view_of", "visible_calls"]
