"""Agents tab: register by Space id or URL (optional secret), list with status, remove, and what
each agent used (tokens, re-asks, unreadable and truncated replies, latency, estimated cost)."""

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
from .i18n import Interface, normal, refusal, text

AGENT_COLUMNS = ["id", "name", "kind", "owner", "description", "last seen", "calls", "failures", "secret"]


def agents_frame(api: ArenaAPI, lang: str = "en") -> pd.DataFrame:
    """The registered agents (their own words; the column names are data), with whether a
    secret is stored worded in the page's language."""
    return pd.DataFrame([{"id": a["id"], "name": a["name"], "kind": a["kind"], "owner": a["owner"],
                          "description": a["description"], "last seen": when(a.get("last_seen")),
                          "calls": a.get("calls", 0), "failures": a.get("failures", 0),
                          "secret": (text(lang, "agents.secret_again") if a.get("needs_secret")
                                     else text(lang, "agents.secret_yes") if a.get("has_secret") else "")}
                         for a in api.list_agents()],
                        columns=AGENT_COLUMNS)


USAGE_COLUMNS = ["game", "agent_id", "matches", "calls", "prompt_tokens", "completion_tokens", "tokens", "reasks",
                 "unreadable", "truncated", "mean_latency_ms", "models", "cost_usd", "unpriced_tokens"]


def usage_frame(api: ArenaAPI) -> pd.DataFrame:
    """The accounting, every agent over every game first, then per game (the API's own rows)."""
    rows = api.accounting()["rows"]
    rows.sort(key=lambda r: (r["game"] != "all", r["game"], r["agent_id"]))
    return pd.DataFrame([{**{k: r[k] for k in USAGE_COLUMNS}, "models": ", ".join(r["models"])} for r in rows],
                        columns=USAGE_COLUMNS)


def usage_note(api: ArenaAPI, lang: str = "en") -> str:
    models = sorted(api.config.prices)
    priced = (text(lang, "agents.usage_priced", models=", ".join(markdown_text(m) for m in models)) if models
              else text(lang, "agents.usage_unpriced"))
    return text(lang, "agents.usage_note", priced=priced)


def match_links(api: ArenaAPI, lang: str = "en") -> str:
    """One link per agent to the Watch tab filtered by it (`?agent=<id>`)."""
    links = [f"[{markdown_text(a['name'])}](?agent={quote(a['id'], safe='')})" for a in api.list_agents()]
    return text(lang, "agents.matches_of", links=" · ".join(links)) if links else ""


def example_choices() -> list[tuple[str, str]]:
    return [(e.title, e.key) for e in examples()]


def example_json(key: str) -> str:
    """An example observation (real, from a game played from a fixed seed) as JSON."""
    found = next((e for e in examples() if e.key == key), None)
    return json.dumps(found.observation.model_dump(mode="json"), indent=2, ensure_ascii=False) if found else ""


def read_as_markdown(got: dict[str, Any], lang: str = "en") -> str:
    """What the arena makes of a reply: the option(s) read, the statement kept, or why not
    (the status and its detail are the API's own words)."""
    status, read = got["status"], got.get("read_as")
    detail = got.get("explanation") or got.get("detail") or ""  # a timeout comes explained
    timing = f" · {got.get('latency_ms') or 0:.0f} ms"
    if status != "ok":
        return f"⚠️ **{markdown_text(status)}**: {markdown_text(detail)}{timing}"
    what = text(lang, "agents.read_statement" if got["verb"] == "speak"
                else "agents.read_as" if read is not None else "agents.read_reply")
    note = f" ({markdown_text(detail)})" if detail else ""
    return text(lang, "agents.read", what=what, read=markdown_text(read), note=note, timing=timing)


def build_try_agent(api: ArenaAPI, words: Interface, language: gr.Radio) -> dict[str, Any]:
    """Send an agent one observation, as a match would; its raw reply beside what the arena reads."""
    hops = api.config.trusted_proxy_hops
    on_space = api.config.on_space
    choices = example_choices()
    with words(gr.Accordion(text("en", "agents.try_box"), open=False, elem_id="try-agent"), label="agents.try_box"):
        words(gr.Markdown(text("en", "agents.try_intro")), value="agents.try_intro")
        with gr.Row():
            agent = words(gr.Dropdown(api.seat_choices(), value="house:heuristic", label=text("en", "agents.agent"),
                                      allow_custom_value=True, elem_id="try-agent-id"), label="agents.agent")
            # the examples' titles name a game, a verb and a situation: the examples' own words
            example = words(gr.Dropdown(choices, value=choices[0][1] if choices else None,
                                        label=text("en", "agents.example"), elem_id="try-example"),
                            label="agents.example")
            ask = words(gr.Button(text("en", "agents.send"), variant="primary", elem_id="try-send"),
                        value="agents.send")
        with gr.Row():
            obs_box = words(gr.Code(example_json(choices[0][1]) if choices else "", language="json",
                                    label=text("en", "agents.observation"), max_lines=24), label="agents.observation")
            with gr.Column():
                raw = words(gr.Textbox(label=text("en", "agents.raw"), lines=8, elem_id="try-raw"), label="agents.raw")
                read = gr.Markdown("", elem_id="try-read")

    async def send(spec: str, obs_json: str, lang: str, request: gr.Request):
        visitor = visitor_of(request, hops)
        try:
            got = await api.try_agent(spec, obs_json, visitor=visitor, signed_in=signed_in(visitor, on_space))
        except ApiError as exc:
            return "", text(lang, "agents.problem", reason=markdown_text(refusal(lang, exc)))
        return got.get("reply") or "", read_as_markdown(got, normal(lang))

    example.change(example_json, [example], [obs_box], api_visibility="private")
    ask.click(send, [agent, obs_box, language], [raw, read], api_visibility="private", concurrency_limit=8)
    return {"agent": agent}


def kind_choices(lang: str) -> list[tuple[str, str]]:
    return [(text(lang, "agents.kind_sdk"), "remote"), (text(lang, "agents.kind_wis"), "wis")]


def build_agents_tab(api: ArenaAPI, words: Interface, language: gr.Radio) -> dict[str, Any]:
    on_space = api.config.on_space
    words(gr.Markdown(text("en", "agents.intro")), value="agents.intro")
    with gr.Row():
        with gr.Column():
            if on_space:
                # the button needs gradio[oauth] and the Space's OAuth variables; off a real
                # Space (SYSTEM=spaces) Gradio would call the Hub at start, so it is left out
                # there and sign-in goes through a token (`Client(..., token=...)`). The
                # button's words are Gradio's own ("Sign in with Hugging Face", "Logout (…)").
                if os.environ.get("SYSTEM") == "spaces" and os.environ.get("SPACE_ID"):
                    gr.LoginButton()
                else:
                    words(gr.Markdown(text("en", "agents.sign_in_note")), value="agents.sign_in_note")
                owner_box = None
            else:
                owner_box = words(gr.Textbox(value="local", label=text("en", "agents.owner"), max_length=60),
                                  label="agents.owner")
            src = words(gr.Textbox(label=text("en", "agents.source"), max_length=300, elem_id="register-src",
                                   placeholder=text("en", "agents.source_placeholder")),
                        label="agents.source", placeholder="agents.source_placeholder")
            name = words(gr.Textbox(label=text("en", "agents.name"), max_length=60), label="agents.name")
            secret = words(gr.Textbox(label=text("en", "agents.secret"), type="password", max_length=200),
                           label="agents.secret")
            description = words(gr.Textbox(label=text("en", "agents.description"), max_length=500, lines=2),
                                label="agents.description")
            kind = words(gr.Radio(kind_choices("en"), value="remote", label=text("en", "agents.kind")),
                         label="agents.kind", choices=kind_choices)
            register = words(gr.Button(text("en", "agents.register"), variant="primary", elem_id="register-agent"),
                             value="agents.register")
            message = gr.Markdown("", elem_id="register-message")
        with gr.Column(scale=2):
            listing = words(gr.Dataframe(agents_frame(api), interactive=False, label=text("en", "agents.listing"),
                                         elem_id="agent-list"), label="agents.listing")
            links = gr.Markdown(match_links(api), elem_id="agent-match-links")
            with words(gr.Accordion(text("en", "agents.usage"), open=False, elem_id="agent-usage"),
                       label="agents.usage"):
                usage_text = gr.Markdown(usage_note(api), elem_id="agent-usage-note")
                usage = gr.Dataframe(usage_frame(api), interactive=False, elem_id="agent-usage-table")
            with gr.Row():
                remove_id = words(gr.Textbox(label=text("en", "agents.remove_id"), max_length=200),
                                  label="agents.remove_id")
                remove = words(gr.Button(text("en", "agents.remove")), value="agents.remove")

    def register_as(lang: str, who_owner: str, s: str, n: str, sec: str, d: str, k: str):
        try:
            reg = api.register_agent(s, name=n, secret=sec, description=d, kind=k, owner=who_owner)
            msg = text(lang, "agents.registered", name=markdown_text(reg["name"]),
                       agent_id=markdown_text(reg["agent_id"]))
        except ApiError as exc:
            msg = text(lang, "agents.not_registered", reason=markdown_text(refusal(lang, exc)))
        return msg, "", agents_frame(api, lang), match_links(api, lang)

    def remove_as(lang: str, who_owner: str, agent_id: str):
        try:
            api.remove_agent(agent_id.strip(), who_owner)
            msg = text(lang, "agents.removed", agent_id=agent_id.strip())  # the API's "removed <id>"
        except ApiError as exc:
            msg = text(lang, "agents.problem", reason=markdown_text(refusal(lang, exc)))
        return msg, agents_frame(api, lang), match_links(api, lang)

    inputs = [src, name, secret, description, kind, language]
    if on_space:
        def register_signed_in(s: str, n: str, sec: str, d: str, k: str, lang: str,
                               profile: gr.OAuthProfile | None):
            lang = normal(lang)
            if profile is None:
                return (text(lang, "agents.sign_in_register"), "", agents_frame(api, lang),
                        match_links(api, lang))
            return register_as(lang, profile.username, s, n, sec, d, k)

        def remove_signed_in(agent_id: str, lang: str, profile: gr.OAuthProfile | None):
            lang = normal(lang)
            if profile is None:
                return text(lang, "agents.sign_in_remove"), agents_frame(api, lang), match_links(api, lang)
            return remove_as(lang, profile.username, agent_id)

        register.click(register_signed_in, inputs, [message, secret, listing, links], api_visibility="private",
                       concurrency_limit=4)
        remove.click(remove_signed_in, [remove_id, language], [message, listing, links], api_visibility="private")
    else:
        def register_local(owner: str, s: str, n: str, sec: str, d: str, k: str, lang: str):
            return register_as(normal(lang), (owner or "local").strip()[:60] or "local", s, n, sec, d, k)

        def remove_local(owner: str, agent_id: str, lang: str):
            return remove_as(normal(lang), (owner or "local").strip()[:60] or "local", agent_id)

        register.click(register_local, [owner_box, *inputs], [message, secret, listing, links],
                       api_visibility="private", concurrency_limit=4)
        remove.click(remove_local, [owner_box, remove_id, language], [message, listing, links],
                     api_visibility="private")
    tried = build_try_agent(api, words, language)

    def refresh(lang: str | None = None):
        lang = normal(lang)
        return (agents_frame(api, lang), match_links(api, lang), gr.update(choices=api.seat_choices()),
                usage_frame(api), usage_note(api, lang))

    return {"listing": listing, "outputs": [listing, links, tried["agent"], usage, usage_text], "inputs": [language],
            "refresh": refresh}
