"""Serve any Agent as a Gradio app (a Hugging Face Space) the arena can call.

Endpoints (all `queue=False`, no concurrency limit, so concurrent matches never wait
for each other): `info`, `speak`, `vote`, `answer` (observation JSON -> text) and
`act` (observation JSON -> {"text", "usage"}), which `RemoteAgent` uses. The agent's turn
lasts the observation's `limits.seconds` (the arena's limit for this call), counted from
when the call arrives. Every
endpoint takes the shared secret as its second argument.
"""

from __future__ import annotations

import hmac
import json
import os
from typing import Any

import gradio as gr
from pydantic import ValidationError

from .agent import Agent, Reply
from .errors import AgentError
from .observation import Observation

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


def _run(agent: Agent, obs: Observation) -> Reply:
    try:
        reply = agent.act(obs)
    except AgentError as exc:
        raise gr.Error(f"{exc.kind}: {exc.message}") from exc
    except Exception as exc:  # the author's code failed: report it, do not crash the Space
        raise gr.Error(f"agent_failed: {type(exc).__name__}: {exc}") from exc
    if not isinstance(reply.text, str):
        raise gr.Error(f"bad_reply: the agent returned {type(reply.text).__name__}, not text")
    return reply


def serve(agent: Agent, secret: str | None = None, title: str | None = None) -> gr.Blocks:
    """A Gradio Blocks app serving `agent`. Launch it with `.launch()`.

    With a secret (argument, else the AGENT_SECRET environment variable) every call
    must carry it, or it is refused before the agent runs.
    """
    expected = secret if secret is not None else os.environ.get("AGENT_SECRET") or None

    def guard(given: str | None) -> None:
        if not _secret_ok(expected, given):
            raise gr.Error("refused: wrong or missing secret")

    def info() -> dict:
        """Name, SDK version, supported games, and whether a secret is required."""
        return {**agent.info(), "secret_required": bool(expected)}

    def make_verb(verb: str):
        def endpoint(observation: dict, secret: str = "") -> str:
            guard(secret)
            return _run(agent, _validate(observation, verb)).text

        endpoint.__name__ = verb
        endpoint.__doc__ = f"Ask the agent to {verb}: observation JSON in, text out."
        return endpoint

    def act(observation: dict, secret: str = "") -> dict:
        """Any verb (from observation.verb): returns {'text', 'usage'} (and 'notes', private ones;
        'truncated': true when a model reply of the turn stopped at its token limit)."""
        guard(secret)
        reply = _run(agent, _validate(observation, None))
        usage = reply.usage.model_dump() if reply.usage else None
        out = {"text": reply.text, "usage": usage}
        if reply.meta.get("notes"):
            out["notes"] = reply.meta["notes"]
        if reply.meta.get("truncated") is True:
            out["truncated"] = True
        return out

    def try_it(observation_json: str, secret_text: str) -> str:
        try:
            guard(secret_text)
            return _run(agent, _validate(observation_json, None)).text
        except gr.Error as exc:
            return f"Error: {exc.message}"

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
        gr.api(info, api_name="info", queue=False)
        for verb in ("speak", "vote", "answer"):
            gr.api(make_verb(verb), api_name=verb, queue=False, concurrency_limit=None)
        gr.api(act, api_name="act", queue=False, concurrency_limit=None)
    return app
