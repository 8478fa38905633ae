"""The replay's call panel: each call that led to the current step, opened to what the seat
was sent, the messages its model was given, the raw reply, what the arena read from it or why
it refused it, latency and tokens. Everything an agent wrote is escaped (`safe_text`)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ..calls import CallView, call_views
from ..core.events import Event
from ..safe_text import html_text
from .i18n import text


def _pre(body: str) -> str:
    return f"<pre>{html_text(body)}</pre>"


def _summary(view: CallView, language: str, names: dict[str, str]) -> str:
    who = view.seat + (f" ({names[view.seat]})" if view.seat in names else "")
    parts = [text(language, "calls.summary", seat=who, verb=view.verb or "-", status=view.status)]
    if view.latency_ms is not None:
        parts.append(text(language, "calls.latency", ms=f"{view.latency_ms:,.0f}"))
    if view.prompt_tokens is not None or view.completion_tokens is not None:
        parts.append(text(language, "calls.tokens", prompt=view.prompt_tokens or 0,
                          completion=view.completion_tokens or 0))
    if view.seconds is not None:
        parts.append(text(language, "calls.seconds", seconds=f"{view.seconds:g}"))
    if view.truncated:
        parts.append(text(language, "calls.truncated"))
    return html_text(" · ".join(parts))


def call_html(view: CallView, language: str, names: dict[str, str], open_: bool = False) -> str:
    """One call as a folding block, its sections in the order the call happened."""
    body: list[str] = []
    if view.observation is not None:
        body.append(f"<details class='da-observation'><summary>{html_text(text(language, 'calls.observation'))}"
                    f"</summary>{_pre(json.dumps(view.observation, ensure_ascii=False, indent=1))}</details>")
    else:
        body.append(f"<p><i>{html_text(text(language, 'calls.observation_missing', why=view.observation_note))}"
                    "</i></p>")
    for n, model in enumerate(view.model_calls, start=1):
        messages = "".join(f"<div class='da-role'>{html_text(m.role)}</div>{_pre(m.content)}" for m in model.messages)
        body.append(f"<div class='da-model-call'><b>{html_text(text(language, 'calls.messages', n=n))}</b>"
                    f"{messages}</div>")
        extra = ([text(language, "calls.model_seconds", seconds=f"{model.seconds:g}")]
                 if model.seconds is not None else [])
        if model.prompt_tokens is not None or model.completion_tokens is not None:
            extra.append(text(language, "calls.tokens", prompt=model.prompt_tokens or 0,
                              completion=model.completion_tokens or 0))
        if model.truncated:
            extra.append(text(language, "calls.truncated"))
        label = text(language, "calls.model_reply", n=n) + (f" ({', '.join(extra)})" if extra else "")
        if model.error:
            failed = text(language, "calls.model_error", n=n, error=model.error)
            body.append(f"<p class='da-reason'>{html_text(failed)}</p>")
        if model.reply is not None:
            body.append(f"<div><b>{html_text(label)}</b>{_pre(model.reply)}</div>")
    if not view.model_calls:
        body.append(f"<p><i>{html_text(text(language, 'calls.no_messages', why=view.model_calls_note))}</i></p>")
    elif view.model_calls_note:
        body.append(f"<p><i>{html_text(view.model_calls_note)}</i></p>")
    reply = _pre(view.reply) if view.reply is not None else f"<i>{html_text(text(language, 'calls.no_reply'))}</i>"
    body.append(f"<div class='da-raw-reply'><b>{html_text(text(language, 'calls.reply'))}</b>{reply}</div>")
    if view.refused:
        body.append(f"<p class='da-reason'>{html_text(text(language, 'calls.refused', why=view.refused))}</p>")
    elif view.read is not None:
        body.append(f"<div class='da-read'><b>{html_text(text(language, 'calls.read'))}</b>{_pre(view.read)}</div>")
    if view.notes:
        body.append(f"<div><b>{html_text(text(language, 'calls.notes'))}</b>"
                    f"{_pre(json.dumps(view.notes, ensure_ascii=False, indent=1))}</div>")
    return (f"<details class='da-call' data-seq='{view.seq}'{' open' if open_ else ''}>"
            f"<summary>{_summary(view, language, names)}</summary>{''.join(body)}</details>")


def calls_html(views: Iterable[CallView], language: str, names: dict[str, str] | None = None,
               withheld: bool = False, title_key: str = "calls.title") -> str:
    """The calls of one step (a lone call opens by itself); a line when there are none."""
    shown = list(views)
    title = f"<b>{html_text(text(language, title_key))}</b>"
    if withheld:
        return f"<div class='da-calls'>{title}<p><i>{html_text(text(language, 'calls.withheld'))}</i></p></div>"
    if not shown:
        return f"<div class='da-calls'>{title}<p><i>{html_text(text(language, 'calls.none'))}</i></p></div>"
    blocks = "".join(call_html(v, language, names or {}, open_=len(shown) == 1) for v in shown)
    return f"<div class='da-calls'>{title}{blocks}</div>"


def seat_calls_html(match: dict[str, Any], events: list[Event], seat: str, language: str,
                    names: dict[str, str]) -> str:
    """Every call of `seat` so far, newest first: what a person in the Play tab sees of their
    own calls, during the match and after (`visible_calls` gives a seat its own only)."""
    views, _ = call_views(match, events, seat)
    return calls_html(reversed(views), language, names, title_key="calls.yours") if views else ""


__all__ = ["call_html", "calls_html", "seat_calls_html"]
