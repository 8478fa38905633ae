"""Agents tab: register by Space id or URL (optional secret), list with status, remove."""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import quote

import gradio as gr
import pandas as pd

from ..agent_examples import examples
from ..api import ApiError, ArenaAPI
from ..safe_text import markdown_text
from .common import signed_in, visitor_of, when

AGENT_COLUMNS = ["id", "name", "kind", "owner", "description", "last seen", "calls", "failures", "secret"]


def agents_frame(api: ArenaAPI) -> pd.DataFrame:
    return pd.DataFrame([{"id": a["id"], "name": a["name"], "kind": a["kind"], "owner": a["owner"],
                          "description": a["description"], "last seen": when(a.get("last_seen")),
                          "calls": a.get("calls", 0), "failures": a.get("failures", 0),
                          "secret": ("re-enter (register again)" if a.get("needs_secret")
                                     else "yes" if a.get("has_secret") else "")} for a in api.list_agents()],
                        columns=AGENT_COLUMNS)


def match_links(api: ArenaAPI) -> str:
    """One link per agent to the Watch tab filtered by it (`?agent=<id>`)."""
    links = [f"[{markdown_text(a['name'])}](?agent={quote(a['id'], safe='')})" for a in api.list_agents()]
    return "**Matches of:** " + " · ".join(links) if links else ""


def example_choices() -> list[tuple[str, str]]:
    return [(e.title, e.key) for e in examples()]


def example_json(key: str) -> str:
    """An example observation (real, from a game played from a fixed seed) as JSON."""
    found = next((e for e in examples() if e.key == key), None)
    return json.dumps(found.observation.model_dump(mode="json"), indent=2, ensure_ascii=False) if found else ""


def read_as_markdown(got: dict[str, Any]) -> str:
    """What the arena makes of a reply: the option(s) read, the statement kept, or why not."""
    status, detail, read = got["status"], got.get("detail") or "", got.get("read_as")
    timing = f" · {got.get('latency_ms') or 0:.0f} ms"
    if status != "ok":
        return f"⚠️ **{markdown_text(status)}**: {markdown_text(detail)}{timing}"
    what = "statement" if got["verb"] == "speak" else "read as" if read is not None else "reply"
    note = f" ({markdown_text(detail)})" if detail else ""
    return f"✅ **{what}:** `{markdown_text(read)}`{note}{timing}"


def build_try_agent(api: ArenaAPI) -> dict[str, Any]:
    """Send an agent one observation, as a match would; its raw reply beside what the arena reads."""
    hops = api.config.trusted_proxy_hops
    on_space = api.config.on_space
    choices = example_choices()
    with gr.Accordion("Try an agent", open=False, elem_id="try-agent"):
        gr.Markdown("Pick an agent and a real observation (every verb of every game), edit it if you like, "
                    "and send it. The call is made as in a match (same time limit and parsing) and is not "
                    "recorded. What each example's messages look like to an `llm_caller`: "
                    "docs/build-an-agent.md (About tab).")
        with gr.Row():
            agent = gr.Dropdown(api.seat_choices(), value="house:heuristic", label="Agent",
                                allow_custom_value=True, elem_id="try-agent-id")
            example = gr.Dropdown(choices, value=choices[0][1] if choices else None, label="Example observation",
                                  elem_id="try-example")
            ask = gr.Button("Send", variant="primary", elem_id="try-send")
        with gr.Row():
            obs_box = gr.Code(example_json(choices[0][1]) if choices else "", language="json",
                              label="Observation", max_lines=24)
            with gr.Column():
                raw = gr.Textbox(label="Raw reply", lines=8, elem_id="try-raw")
                read = gr.Markdown("", elem_id="try-read")

    async def send(spec: str, obs_json: str, request: gr.Request):
        visitor = visitor_of(request, hops)
        try:
            got = await api.try_agent(spec, obs_json, visitor=visitor, signed_in=signed_in(visitor, on_space))
        except ApiError as exc:
            return "", f"⚠️ {markdown_text(exc)}"
        return got.get("reply") or "", read_as_markdown(got)

    example.change(example_json, [example], [obs_box], api_visibility="private")
    ask.click(send, [agent, obs_box], [raw, read], api_visibility="private", concurrency_limit=8)
    return {"agent": agent}


def build_agents_tab(api: ArenaAPI) -> dict[str, Any]:
    on_space = api.config.on_space
    gr.Markdown("Register an agent served with the SDK (`serve(agent)`) by its **Space id** "
                "(`owner/name`) or **URL**, or an agent speaking the WiS protocol by its base URL. "
                "The arena calls its `info` first and says why it refuses. A secret is stored, never "
                "shown again, and only ever sent to that agent.")
    with gr.Row():
        with gr.Column():
            if on_space:
                # the button needs gradio[oauth] and the Space's OAuth variables; off a real
                # Space (SYSTEM=spaces) Gradio would call the Hub at start, so it is left out
                # there and sign-in goes through a token (`Client(..., token=...)`)
                if os.environ.get("SYSTEM") == "spaces" and os.environ.get("SPACE_ID"):
                    gr.LoginButton()
                else:
                    gr.Markdown("Sign-in with Hugging Face is offered on the Space itself; here, "
                                "register through the API with your token.")
                owner_box = None
            else:
                owner_box = gr.Textbox(value="local", label="Owner (local mode; on a Space you sign in "
                                       "with Hugging Face)", max_length=60)
            src = gr.Textbox(label="Space id or URL", placeholder="owner/my-agent or https://…",
                             max_length=300, elem_id="register-src")
            name = gr.Textbox(label="Display name (optional)", max_length=60)
            secret = gr.Textbox(label="Secret (optional)", type="password", max_length=200)
            description = gr.Textbox(label="Description", max_length=500, lines=2)
            kind = gr.Radio([("SDK agent", "remote"), ("WiS protocol", "wis")], value="remote", label="Kind")
            register = gr.Button("Register", variant="primary", elem_id="register-agent")
            message = gr.Markdown("", elem_id="register-message")
        with gr.Column(scale=2):
            listing = gr.Dataframe(agents_frame(api), interactive=False, label="Agents",
                                   elem_id="agent-list")
            links = gr.Markdown(match_links(api), elem_id="agent-match-links")
            with gr.Row():
                remove_id = gr.Textbox(label="Agent id to remove (owner only)", max_length=200)
                remove = gr.Button("Remove")

    def register_as(who_owner: str, s: str, n: str, sec: str, d: str, k: str):
        try:
            reg = api.register_agent(s, name=n, secret=sec, description=d, kind=k, owner=who_owner)
            msg = f"✅ Registered **{markdown_text(reg['name'])}** as {markdown_text(reg['agent_id'])}."
        except ApiError as exc:
            msg = f"⚠️ Not registered: {markdown_text(exc)}"
        return msg, "", agents_frame(api), match_links(api)

    def remove_as(who_owner: str, agent_id: str):
        try:
            msg = api.remove_agent(agent_id.strip(), who_owner)
        except ApiError as exc:
            msg = f"⚠️ {markdown_text(exc)}"
        return msg, agents_frame(api), match_links(api)

    inputs = [src, name, secret, description, kind]
    if on_space:
        def register_signed_in(s: str, n: str, sec: str, d: str, k: str,
                               profile: gr.OAuthProfile | None):
            if profile is None:
                return "⚠️ Sign in with Hugging Face to register an agent.", "", agents_frame(api), match_links(api)
            return register_as(profile.username, s, n, sec, d, k)

        def remove_signed_in(agent_id: str, profile: gr.OAuthProfile | None):
            if profile is None:
                return "⚠️ Sign in with Hugging Face to remove an agent.", agents_frame(api), match_links(api)
            return remove_as(profile.username, agent_id)

        register.click(register_signed_in, inputs, [message, secret, listing, links], api_visibility="private",
                       concurrency_limit=4)
        remove.click(remove_signed_in, [remove_id], [message, listing, links], api_visibility="private")
    else:
        def register_local(owner: str, s: str, n: str, sec: str, d: str, k: str):
            return register_as((owner or "local").strip()[:60] or "local", s, n, sec, d, k)

        def remove_local(owner: str, agent_id: str):
            return remove_as((owner or "local").strip()[:60] or "local", agent_id)

        register.click(register_local, [owner_box, *inputs], [message, secret, listing, links],
                       api_visibility="private", concurrency_limit=4)
        remove.click(remove_local, [owner_box, remove_id], [message, listing, links], api_visibility="private")
    tried = build_try_agent(api)
    return {"listing": listing, "outputs": [listing, links, tried["agent"]],
            "refresh": lambda: (agents_frame(api), match_links(api), gr.update(choices=api.seat_choices()))}
