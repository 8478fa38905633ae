"""WiSAgent: seat an agent that speaks the original WiS platform's HTTP protocol.

The protocol is the one of the PyPI package `spy-agent-build-sdk` (module
`agent_build_sdk`, v0.0.29): an agent subclasses `BasicAgent`, implements
`perceive(req)` and `interact(req) -> AgentResp`, and `EndpointServer(agent).app`
(FastAPI, served with uvicorn) exposes five POST routes, each taking an `AgentReq`
JSON body `{message, name, status, word, round}` (all optional) and answering
`{success, result, errMsg}`:

    /agent/init          clears the agent's memory; result = its model name
    /agent/perceive      agent.perceive(req); any exception -> success=false, errMsg
    /agent/interact      agent.interact(req) returned as is; an exception -> HTTP 500
    /agent/getModelName  result = model name
    /agent/checkHealth   success=true

How this adapter maps a Who-is-the-Spy match onto it (per match *and* seat; every
call of `speak`/`vote` first catches the server up on what the seat has not yet
perceived, in history order):

    first call      init, perceive {status:start, message:<seat>},
                    perceive {status:distribution, word:<the seat's word>}
    round_start     perceive {status:round, round:n, message:<host text>}  (no name)
    statement       perceive {status:round, round:n, name:<speaker>, message:<text>}
                    (the seat's own statements are not echoed back)
    vote            perceive {status:vote, round:n, name:<voter>, message:<target>}
                    (the seat's own vote and abstentions are not sent: the reference
                    does `req.name + ': ' + req.message`, i.e. it expects a name there)
    vote_result     perceive {status:vote_result, round:n, name:X, message:X};
                    nobody out: {status:vote_result, round:n, message:""} (no name) —
                    reference agents test `req.name` and print `req.message`
    foul + elimination for a foul
                    perceive {status:vote_result, name:X, message:X} for the
                    elimination (the protocol's only "player X is out" message);
                    the foul notice itself is not sent
    start, end      not sent (start is the setup above; the protocol's `result`
                    status is not sent: agents keep no state between matches)
    speak           interact {status:round, round:n}             -> result = statement
    vote            interact {status:vote, round:n, message:"A,B,C"} (obs.options,
                    i.e. the other live players) -> result = one name

History items are sent at most once (an item whose perceive failed is not resent);
the setup is redone until it has fully succeeded (init clears the server's memory,
so it is idempotent). A perceive with success=false, an interact without a string
result, an HTTP error status, or an unreadable body raise `AgentError`, which the
runner turns into a foul (statement) or an abstention (vote).

One reference server is one player in one game: its `SimpleMemory.memories` is a
class attribute shared by the whole process and `init`/`start` clear it, and the
protocol carries no match id. This adapter keeps its own state per (match, seat)
and is safe in concurrent matches, but a given server should sit in one seat of
one match at a time.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from sdk import Agent, AgentError, MatchMemory, Observation
from sdk.egress import ACCEPT_ENCODING, EgressPolicy, pinned, read_bounded
from sdk.errors import AgentErrorKind
from sdk.remote import resolve_src

from .events import KINDS, Elimination, RoundStart, Statement, Vote, VoteResult

ROUTES = ("init", "perceive", "interact", "getModelName", "checkHealth")
STATUS_START = "start"
STATUS_DISTRIBUTION = "distribution"
STATUS_ROUND = "round"
STATUS_VOTE = "vote"
STATUS_VOTE_RESULT = "vote_result"


@dataclass
class _SeatState:
    """Protocol state of one seat in one match."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    ready: bool = False  # init + start + distribution all succeeded
    sent: int = 0  # history items already handled (perceived or deliberately skipped)


def _vote_target(who: str, text: str, seats: list[str]) -> str | None:
    """The target of a spy `vote` history item ('P1 votes for P3.'), None for abstentions."""
    prefix = f"{who} votes for "
    if text.startswith(prefix):
        target = text[len(prefix):].rstrip(".").strip()
        if not seats or target in seats:
            return target or None
    return None


def _voted_out(text: str, seats: list[str]) -> str | None:
    """The eliminated seat from a `vote_result` text ('P3 is voted out with 2 vote(s).')."""
    for seat in sorted(seats, key=len, reverse=True):
        if text.startswith(f"{seat} is voted out"):
            return seat
    return None


class WiSAgent(Agent):
    """Arena-side proxy for an agent served with the WiS protocol (spy only).

    base_url: the server's base URL (the routes are `{base_url}/agent/...`), or a
    Space id. timeout: seconds for calls outside a turn (`info`, the health check); one
    `speak`/`vote` (all its POSTs together) lasts the observation's own limit, which
    `timeout` never shortens. transport: an httpx transport (tests).
    """

    description = "An agent speaking the original WiS platform's HTTP protocol."
    games: tuple[str, ...] = ("spy",)

    def __init__(self, base_url: str, timeout: float = 10.0, name: str | None = None, *,
                 max_reply_bytes: int = 64_000, max_matches: int = 1024,
                 transport: httpx.BaseTransport | None = None, egress: EgressPolicy | None = None) -> None:
        self.base_url = resolve_src(base_url).rstrip("/")
        super().__init__(name or f"wis:{self.base_url}")
        self.timeout = timeout
        self.max_reply_bytes = max_reply_bytes
        self.egress = egress or EgressPolicy()
        self.egress.check_url(self.base_url)
        headers = {"Content-Type": "application/json", "Accept-Encoding": ACCEPT_ENCODING}
        self._headers = headers
        self._transport = transport
        self._http: httpx.Client | None = None
        self._memory = MatchMemory(max_matches=max_matches)  # match_id -> {seat: _SeatState}
        self._lock = threading.Lock()

    # -- transport ------------------------------------------------------------
    def _post(self, route: str, body: dict[str, Any], deadline: float) -> dict[str, Any]:
        """POST one protocol call; returns the decoded `{success, result, errMsg}`."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AgentError("timeout", f"out of time before /agent/{route}", agent=self.name)
        payload = {k: v for k, v in body.items() if v is not None}
        target = self.egress.target(f"{self.base_url}/agent/{route}")
        try:
            with self._client().stream("POST", target.url, json=payload, **pinned(target),
                                       timeout=httpx.Timeout(remaining)) as response:
                data = read_bounded(response, self.max_reply_bytes, deadline, self.name)
                status = response.status_code
        except httpx.TimeoutException as exc:
            raise AgentError("timeout", f"/agent/{route}: no reply in time", agent=self.name) from exc
        except httpx.HTTPError as exc:
            raise AgentError("unreachable", f"/agent/{route}: {type(exc).__name__}: {exc}",
                             agent=self.name) from exc
        text = data.decode("utf-8", "replace")
        if status != 200:
            kind: AgentErrorKind
            if status in (401, 403, 422):
                kind = "refused"
            elif status in (404, 502, 503, 504):
                kind = "unreachable"
            else:
                kind = "agent_failed"
            raise AgentError(kind, f"/agent/{route}: HTTP {status}: {text[:200]}", agent=self.name)
        try:
            decoded = json.loads(text)
        except ValueError as exc:
            raise AgentError("bad_reply", f"/agent/{route}: not JSON: {text[:120]!r}",
                             agent=self.name) from exc
        except RecursionError as exc:  # the reply's shape, not the agent's code failing: a bad reply
            raise AgentError("bad_reply", f"/agent/{route}: reply nested too deeply to read "
                             f"({len(text)} characters starting {text[:40]!r})", agent=self.name) from exc
        if not isinstance(decoded, dict) or not isinstance(decoded.get("success"), bool):
            raise AgentError("bad_reply", f"/agent/{route}: not a {{success, result, errMsg}} "
                             f"object: {text[:120]!r}", agent=self.name)
        if not decoded["success"]:
            raise AgentError("agent_failed", f"/agent/{route}: success=false: "
                             f"{str(decoded.get('errMsg') or 'no errMsg')[:300]}", agent=self.name)
        return decoded

    # -- per-match state ------------------------------------------------------
    def _state(self, match_id: str, seat: str) -> _SeatState:
        with self._lock:
            seats = self._memory.get(match_id)
            state = seats.get(seat)
            if state is None:
                state = seats[seat] = _SeatState()
            return state

    def _perceive(self, body: dict[str, Any], deadline: float) -> None:
        self._post("perceive", body, deadline)

    def _catch_up(self, obs: Observation, state: _SeatState, deadline: float) -> None:
        if not state.ready:
            word = obs.private.facts.get("word")
            if not isinstance(word, str) or not word:
                raise AgentError("refused", "the observation carries no word for the seat",
                                 agent=self.name)
            self._post("init", {}, deadline)
            self._perceive({"status": STATUS_START, "message": obs.you}, deadline)
            self._perceive({"status": STATUS_DISTRIBUTION, "word": word}, deadline)
            state.ready = True
        history = obs.history
        state.sent = min(state.sent, len(history))
        while state.sent < len(history):
            i = state.sent
            body = self._map_item(obs, i)
            state.sent = i + 1  # at most once, even if the perceive below fails
            if body is not None:
                self._perceive(body, deadline)

    @staticmethod
    def _map_item(obs: Observation, i: int) -> dict[str, Any] | None:
        """The perceive body for history item i, or None when it is not sent."""
        e = KINDS.from_history(obs.history[i])
        if isinstance(e, RoundStart):
            return {"status": STATUS_ROUND, "round": e.round, "message": e.text}
        if isinstance(e, Statement):
            if e.actor == obs.you:
                return None
            return {"status": STATUS_ROUND, "round": e.round, "name": e.actor, "message": e.text}
        if isinstance(e, Vote):
            # the structured target first: the line itself is in the game's language
            target = e.target if "target" in e.model_fields_set else _vote_target(e.actor, e.text, obs.seats)
            if e.actor == obs.you or target is None:
                return None
            return {"status": STATUS_VOTE, "round": e.round, "name": e.actor, "message": target}
        if isinstance(e, VoteResult):
            nxt = KINDS.from_history(obs.history[i + 1]) if i + 1 < len(obs.history) else None
            if isinstance(nxt, Elimination) and nxt.round == e.round:
                out: str | None = nxt.actor
            else:
                out = e.eliminated if "eliminated" in e.model_fields_set else _voted_out(e.text, obs.seats)
            if out:
                return {"status": STATUS_VOTE_RESULT, "round": e.round, "name": out, "message": out}
            return {"status": STATUS_VOTE_RESULT, "round": e.round, "message": ""}
        if isinstance(e, Elimination):
            prev = KINDS.from_history(obs.history[i - 1]) if i > 0 else None
            if isinstance(prev, VoteResult) and prev.round == e.round:
                return None  # already told by the vote_result
            return {"status": STATUS_VOTE_RESULT, "round": e.round, "name": e.actor, "message": e.actor}
        return None  # start, foul, end, anything else

    # -- the verbs -----------------------------------------------------------
    def _turn(self, obs: Observation, interact: dict[str, Any]) -> str:
        if obs.game != "spy":
            raise AgentError("refused", f"a WiS agent only plays spy, not {obs.game}", agent=self.name)
        deadline = time.monotonic() + obs.limits.seconds  # the turn's own limit, never shortened
        state = self._state(obs.match_id, obs.you)
        if not state.lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise AgentError("timeout", "the previous call for this seat is still running",
                             agent=self.name)
        try:
            self._catch_up(obs, state, deadline)
            reply = self._post("interact", interact, deadline)
        finally:
            state.lock.release()
        result = reply.get("result")
        if not isinstance(result, str):
            raise AgentError("bad_reply", f"/agent/interact: no result "
                             f"({str(reply.get('errMsg') or 'no errMsg')[:200]})", agent=self.name)
        return result

    def speak(self, obs: Observation) -> str:
        return self._turn(obs, {"status": STATUS_ROUND, "round": obs.round})

    def vote(self, obs: Observation) -> str:
        return self._turn(obs, {"status": STATUS_VOTE, "round": obs.round,
                                "message": ",".join(obs.options)})

    def answer(self, obs: Observation) -> str:
        raise AgentError("refused", "the WiS protocol has no 'answer' verb", agent=self.name)

    # -- info, lifecycle -------------------------------------------------------
    def info(self) -> dict[str, Any]:
        """Base info plus the server's model name; raises AgentError if the server
        does not answer getModelName and checkHealth as a WiS agent."""
        deadline = time.monotonic() + self.timeout
        model = self._post("getModelName", {}, deadline).get("result")
        self._post("checkHealth", {}, deadline)
        return {**super().info(), "protocol": "wis", "base_url": self.base_url,
                "model_name": model if isinstance(model, str) else None, "healthy": True}

    def _client(self) -> httpx.Client:
        # opened on first use, and again after close() (an evicted agent still answers)
        with self._lock:
            if self._http is None or self._http.is_closed:
                self._http = httpx.Client(headers=self._headers, follow_redirects=False,
                                          transport=self._transport, limits=httpx.Limits(max_connections=64))
            return self._http

    def close(self) -> None:
        with self._lock:
            client, self._http = self._http, None
        if client is not None:
            client.close()
