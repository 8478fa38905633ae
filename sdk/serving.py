"""Serve any Agent as a Gradio app (a Hugging Face Space) the arena can call.

Endpoints (all `queue=False`, no concurrency limit, so concurrent matches never wait
for each other): `info`, `speak`, `vote`, `answer` (observation JSON -> text) and
`act` (observation JSON -> {"text", "usage"}), which `RemoteAgent` uses. The agent's turn
lasts the observation's `limits.seconds` (the arena's limit for this call), counted from
when the call arrives. Every
endpoint takes the shared secret as its second argument.

Every turn is kept in the agent's own trace (`traces.py`): the Calls tab and the `trace`
endpoint (JSON Lines) show it to whoever holds the secret. With `share_trace` the model calls
of each turn also go back to the arena with the reply, which keeps them with the call record.
"""

from __future__ import annotations

import hmac
import json
import os
import time
from typing import Any

import gradio as gr
from pydantic import ValidationError

from .agent import Agent, Reply
from .errors import AgentError
from .observation import Observation
from .traces import SUMMARY_COLUMNS, TraceBook, plain_calls

EXAMPLE_OBSERVATION: dict[str, Any] = {
    # a made-up game: an agent plays whatever game it is sent, from the rules and reply format
    "game": "example",
    "phase": "describe",
    "verb": "speak",
    "you": "P3",
    "private": {"facts": {"word": "tea"}, "text": "Your secret word is 'tea'."},
    "history": [{"who": "P1", "kind": "statement", "text": "You often have it in the morning.",
                 "round": 1}],
    "instruction": "Describe your word in one statement without saying it.",
    "rules": "Each player describes a secret word without saying it; the others guess who holds a different one.",
    "reply_format": "Reply with your statement only, at most 400 characters.",
    "limits": {"max_chars": 400, "seconds": 10},
    "seats": ["P1", "P2", "P3", "P4", "P5", "P6"],
    "match_id": "demo",
    "round": 1,
}


def _secret_ok(expected: str | None, given: str | None) -> bool:
    if not expected:
        return True
    return hmac.compare_digest(expected.encode(), (given or "").encode())


def _validate(observation: Any, verb: str | None) -> Observation:
    if isinstance(observation, str):
        try:
            observation = json.loads(observation)
        except ValueError as exc:
            raise gr.Error(f"invalid observation: not JSON ({exc})") from exc
    if not isinstance(observation, dict):
        raise gr.Error(f"invalid observation: expected a JSON object, got {type(observation).__name__}")
    try:
        obs = Observation.model_validate(observation)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}"
                             for e in exc.errors()[:8])
        raise gr.Error(f"invalid observation: {problems}") from exc
    if verb is not None and obs.verb != verb:
        raise gr.Error(f"invalid observation: verb is '{obs.verb}' but this endpoint is '{verb}'")
    return obs


def _run(agent: Agent, obs: Observation, book: TraceBook | None = None) -> Reply:
    started = time.perf_counter()

    def failed(message: str) -> gr.Error:
        if book is not None:
            book.record(obs, None, time.perf_counter() - started, message)
        return gr.Error(message)

    try:
        reply = agent.act(obs)
    except AgentError as exc:
        raise failed(f"{exc.kind}: {exc.message}") from exc
    except Exception as exc:  # the author's code failed: report it, do not crash the Space
        raise failed(f"agent_failed: {type(exc).__name__}: {exc}") from exc
    if not isinstance(reply.text, str):
        raise failed(f"bad_reply: the agent returned {type(reply.text).__name__}, not text")
    if book is not None:
        book.record(obs, reply, time.perf_counter() - started)
    return reply


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def serve(agent: Agent, secret: str | None = None, title: str | None = None,
          share_trace: bool | None = None) -> gr.Blocks:
    """A Gradio Blocks app serving `agent`. Launch it with `.launch()`.

    With a secret (argument, else the AGENT_SECRET environment variable) every call
    must carry it, or it is refused before the agent runs; the agent's trace (its Calls tab
    and `trace` endpoint) opens only with it, so an agent without a secret shows no trace.
    `share_trace` (argument, else AGENT_SHARE_TRACE=1): send each turn's model calls back with
    the reply, for the arena to keep with the call record (shown to the agent's owner, and to
    spectators once the match is over; never to other seats).
    """
    expected = secret if secret is not None else os.environ.get("AGENT_SECRET") or None
    share = share_trace if share_trace is not None else _flag(os.environ.get("AGENT_SHARE_TRACE"))
    book = TraceBook()

    def read_trace(given: str | None) -> None:
        if not expected:
            raise gr.Error("refused: this agent has no secret, so its trace is not shown (set AGENT_SECRET)")
        guard(given)

    def guard(given: str | None) -> None:
        if not _secret_ok(expected, given):
            raise gr.Error("refused: wrong or missing secret")

    def info() -> dict:
        """Name, SDK version, supported games, and whether a secret is required."""
        return {**agent.info(), "secret_required": bool(expected)}

    def make_verb(verb: str):
        def endpoint(observation: dict, secret: str = "") -> str:
            guard(secret)
            return _run(agent, _validate(observation, verb), book).text

        endpoint.__name__ = verb
        endpoint.__doc__ = f"Ask the agent to {verb}: observation JSON in, text out."
        return endpoint

    def act(observation: dict, secret: str = "") -> dict:
        """Any verb (from observation.verb): returns {'text', 'usage'} (and 'notes', private ones;
        'truncated': true when a model reply of the turn stopped at its token limit)."""
        guard(secret)
        reply = _run(agent, _validate(observation, None), book)
        usage = reply.usage.model_dump() if reply.usage else None
        out = {"text": reply.text, "usage": usage}
        if reply.meta.get("notes"):
            out["notes"] = reply.meta["notes"]
        if reply.meta.get("truncated") is True:
            out["truncated"] = True
        if share and reply.meta.get("model_calls"):
            out["model_calls"] = plain_calls(reply.meta["model_calls"])
        return out

    def trace(secret: str = "", match_id: str = "") -> str:
        """The agent's kept turns as JSON Lines (one match's with `match_id`), oldest first."""
        read_trace(secret)
        return book.jsonl(match_id.strip())

    def show_calls(secret_text: str, match_id: str):
        try:
            read_trace(secret_text)
        except gr.Error as exc:
            return gr.update(value=[]), f"Error: {exc.message}", ""
        rows = book.summary(match_id.strip())
        return rows, f"{len(rows)} turns kept (at most {book_limit} in memory, newest first)", \
            book.jsonl(match_id.strip())

    def try_it(observation_json: str, secret_text: str) -> str:
        try:
            guard(secret_text)
            return _run(agent, _validate(observation_json, None)).text
        except gr.Error as exc:
            return f"Error: {exc.message}"

    book_limit = book.limit
    with gr.Blocks(title=title or f"{agent.name} · Deduction Arena agent") as app:
        gr.Markdown(
            f"# {agent.name}\n{agent.description or 'A Deduction Arena agent.'}\n\n"
            "Compose an observation (the arena's JSON), press **Ask**, and read the reply. "
            "The arena calls the same agent through the `act`, `speak`, `vote` and `answer` "
            "API endpoints."
        )
        with gr.Row():
            with gr.Column(scale=3):
                obs_box = gr.Code(json.dumps(EXAMPLE_OBSERVATION, indent=2), language="json",
                                  label="Observation")
            with gr.Column(scale=2):
                secret_box = gr.Textbox(label="Secret (if the agent requires one)", type="password")
                ask = gr.Button("Ask", variant="primary")
                out = gr.Textbox(label="Reply", lines=6)
        ask.click(try_it, [obs_box, secret_box], out, api_visibility="private")
        with gr.Accordion("Calls: what this agent was asked and what its model said", open=False):
            with gr.Row():
                trace_secret = gr.Textbox(label="Secret", type="password")
                trace_match = gr.Textbox(label="Match id (empty: every match)")
                show = gr.Button("Show calls")
            trace_note = gr.Markdown("")
            trace_table = gr.Dataframe(headers=SUMMARY_COLUMNS, interactive=False, wrap=True)
            trace_lines = gr.Code("", language="json", label="JSON Lines (copy or save)")
        show.click(show_calls, [trace_secret, trace_match], [trace_table, trace_note, trace_lines],
                   api_visibility="private")
        gr.api(info, api_name="info", queue=False)
        for verb in ("speak", "vote", "answer"):
            gr.api(make_verb(verb), api_name=verb, queue=False, concurrency_limit=None)
        gr.api(act, api_name="act", queue=False, concurrency_limit=None)
        gr.api(trace, api_name="trace", queue=False)
    return app
