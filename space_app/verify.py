"""Replay a stored match through its game and check that every event is the one on
record. Games are pure: the seed and the replies stored in the match's `call` events
give the same events again, so anyone holding a record can check it.

A replay says a record is consistent, not who wrote it: forged replies replay as consistently
as real ones. So each verdict comes with the record's authenticity, from where the store got
it: played here, restored from the records dataset with its signature verified, or adopted
unsigned by the operator's leave (see `signed_records`).

The stored event list is, step by step: the call records of that step's requests (in
request order), then the events the game emitted on receiving their outcomes. Replaying
consumes the call records as replies and compares everything else.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, Literal

from .core import Event, Outcome, Request, UnknownGame, get_game
from .core.events import GENERIC, Call, Error, SeatDegraded
from .core.replies import outcome_text

Verdict = Literal["identical", "differs", "older_rules", "skipped"]
COMPARED = ("kind", "actor", "text", "round", "visible_to", "data")
# a match's `origin` in the store -> what it says about who wrote the record
AUTHENTICITY = {
    "here": "written here",
    "dataset": "restored from the records dataset, signature verified",
    "adopted": "restored from the records dataset unsigned, adopted by the operator",
    "": "origin not recorded (stored before origins were kept)",
}


def authenticity(origin: str | None) -> str:
    if origin is None:
        return ""
    return AUTHENTICITY.get(origin, f"unknown origin {origin!r}")


@dataclass(frozen=True)
class Verification:
    match_id: str
    game: str
    verdict: Verdict
    detail: str = ""
    first_difference: int | None = None  # seq of the first event that differs
    authenticity: str = ""  # who wrote the record, as far as this store knows ('' not asked)

    @property
    def ok(self) -> bool:
        return self.verdict == "identical"

    def line(self) -> str:
        where = f" at event {self.first_difference}" if self.first_difference is not None else ""
        return (f"{self.match_id} ({self.game}): {self.verdict}{where}" + (f": {self.detail}" if self.detail else "")
                + (f"; {self.authenticity}" if self.authenticity else ""))


class _Mismatch(Exception):
    """Where and how a replay first differs from the record."""

    def __init__(self, seq: int | None, detail: str) -> None:
        super().__init__(detail)
        self.seq = seq
        self.detail = detail


ReplayMismatch = _Mismatch  # for readers of `replay` outside this module


def _plain(event: Event) -> dict[str, Any]:
    # through JSON, as the store keeps it (tuples become lists)
    stored = event.to_dict()
    return json.loads(json.dumps({k: stored[k] for k in COMPARED}, default=str))


def _call(row: dict[str, Any], request: Request) -> Call:
    """The stored row that must be `request`'s call record, read as one."""
    call = GENERIC.parse(row)
    if not isinstance(call, Call) or call.actor != request.seat:
        raise _Mismatch(row.get("seq"), f"expected {request.seat}'s reply, found a {row.get('kind')} event "
                                        f"by {row.get('actor')}" + (" that does not read as a call record"
                                                                    if GENERIC.model_of(str(row.get("kind"))) is Call
                                                                    else ""))
    return call


def _outcome(request: Request, call: Call) -> Outcome:
    if call.status == "ok":
        if call.given is not None:
            return Outcome(request.seat, call.given, "ok", call.detail, call.notes)
        if call.reply is None:
            raise _Mismatch(call.seq, "a call marked ok carries no reply")
        text, replayed_status, detail = outcome_text(call.reply, request.observation)
        return Outcome(request.seat, text, replayed_status, detail,  # type: ignore[arg-type]
                       call.notes if replayed_status == "ok" else None)
    if call.status in ("timeout", "error", "unparseable"):
        return Outcome(request.seat, None, call.status, call.detail, seconds=call.seconds)  # type: ignore[arg-type]
    raise _Mismatch(call.seq, f"a call record with an unknown status {call.status!r}")


def _describe(stored: dict[str, Any], replayed: dict[str, Any]) -> str:
    keys = [k for k in COMPARED if stored.get(k) != replayed.get(k)]
    key = keys[0] if keys else "kind"
    return (f"{stored.get('kind')} event: {key} is {json.dumps(stored.get(key))[:120]} on record, "
            f"{json.dumps(replayed.get(key))[:120]} on replay")


def replay(match: dict[str, Any], seen: Callable[[Call, Request], None] | None = None) -> None:
    """Raise `_Mismatch` at the first difference; return when the record is consistent.
    `seen` is handed each stored call record with the request the game made for it (the
    observation that seat was sent), as the replay reaches it."""
    spec = get_game(match["game"])
    seats = [s["seat"] for s in match["seats"]]
    game = spec.make(len(seats), int(match["seed"]), match.get("settings") or {})
    if game.seats != seats:
        raise _Mismatch(None, f"seats {seats} on record, {game.seats} from the game")
    game.match_id = match["id"]
    # the runner's own notes on a seat (`SeatDegraded`) are no part of what the game emits
    stored = sorted((e for e in match["events"] if e.get("kind") != SeatDegraded.kind_name()),
                    key=lambda e: e["seq"])
    pos = 0
    emitted = 0

    def compare_new() -> None:
        nonlocal pos, emitted
        for event in game.events[emitted:]:
            replayed = _plain(event)
            if pos >= len(stored):
                raise _Mismatch(None, f"the replay goes on ({replayed['kind']} event) where the record ends")
            record = stored[pos]
            if {k: record.get(k) for k in COMPARED} != replayed:
                raise _Mismatch(record["seq"], _describe(record, replayed))
            pos += 1
        emitted = len(game.events)

    compare_new()
    while not game.over:
        requests = game.pending()
        calls = stored[pos:pos + len(requests)]
        if not calls and pos == len(stored):
            if match["status"] in ("aborted", "error"):
                return  # it stopped here; everything up to here is identical
            raise _Mismatch(None, "the record ends while the game still asks for moves")
        typed = [_call(row, request) for request, row in zip(requests, calls, strict=False)]
        if len(calls) < len(requests):
            if match["status"] in ("aborted", "error"):
                return
            raise _Mismatch(None, "the record ends in the middle of a step")
        if seen is not None:
            for request, call in zip(requests, typed, strict=True):
                seen(call, request)
        outcomes = [_outcome(r, c) for r, c in zip(requests, typed, strict=True)]
        pos += len(requests)
        game.submit(outcomes)
        compare_new()
    rest = [e for e in GENERIC.parse_all(stored[pos:]) if not isinstance(e, Error)]
    if rest:
        raise _Mismatch(rest[0].seq, f"the record has a {rest[0].kind} event after the game's end")
    if match["status"] == "finished":
        replayed_result = json.loads(json.dumps(game.result(), default=str))
        if match.get("result") != replayed_result:
            raise _Mismatch(None, "the stored result differs from the replayed one")


def recorded_outcome(row: dict[str, Any], request: Request) -> tuple[Call, Outcome]:
    """The stored call record `row` read as `request`'s reply: the record and the outcome the
    game got (a branch replays its parent's prefix with these); `ReplayMismatch` when it is not."""
    call = _call(row, request)
    return call, _outcome(request, call)


def verify_match(match: dict[str, Any], origin: str | None = None) -> Verification:
    """Replay `match`; with its `origin` (from `Store.match_origins`), say who wrote it too."""
    result = _replayed(match)
    return replace(result, authenticity=authenticity(origin)) if origin is not None else result


def _replayed(match: dict[str, Any]) -> Verification:
    match_id, game_id = str(match.get("id")), str(match.get("game"))
    if match.get("status") == "running":
        return Verification(match_id, game_id, "skipped", "still running")
    try:
        spec = get_game(game_id)
    except UnknownGame as exc:
        return Verification(match_id, game_id, "skipped", str(exc))
    note = spec.rules.replay_note(match) if spec.rules.replay_note else None
    if note:
        return Verification(match_id, game_id, "skipped", f"cannot be replayed: {note}")
    if match.get("status") in ("aborted", "error") and not match.get("events"):
        # stopped (e.g. a kill -9) before its first event was written: nothing to replay, nothing wrong
        return Verification(match_id, game_id, "skipped", f"{match.get('status')}, empty")
    recorded = str(match.get("rules") or "")
    try:
        replay(match)
    except _Mismatch as exc:
        if recorded != str(spec.rules.rules_version):
            played = f"rules version {recorded}" if recorded else "a version that did not record its rules"
            return Verification(match_id, game_id, "older_rules",
                                f"played under {played}; this arena has version {spec.rules.rules_version} "
                                f"({exc.detail})", exc.seq)
        return Verification(match_id, game_id, "differs", exc.detail, exc.seq)
    except (ValueError, KeyError, TypeError) as exc:  # a record too damaged to replay at all
        return Verification(match_id, game_id, "differs", f"unreadable record: {type(exc).__name__}: {exc}")
    partial = "up to where it stopped" if match.get("status") in ("aborted", "error") else ""
    return Verification(match_id, game_id, "identical", partial)


def verify_many(matches: Iterable[dict[str, Any]], origins: dict[str, str] | None = None) -> Iterator[Verification]:
    for match in matches:
        yield verify_match(match, None if origins is None else origins.get(str(match.get("id")), ""))


__all__ = ["AUTHENTICITY", "ReplayMismatch", "Verification", "authenticity", "recorded_outcome", "replay",
           "verify_many", "verify_match"]
