"""Small helpers shared by the tabs."""

from __future__ import annotations

import datetime as dt

import gradio as gr

CSS = """
.da-transcript {max-height: 520px; overflow-y: auto; padding: 8px 12px; border-radius: 8px;
  background: var(--block-background-fill); font-size: 0.95rem; line-height: 1.45;
  display: flex; flex-direction: column-reverse;}
.da-ev {margin: 3px 0;}
.da-ev h4 {margin: 12px 0 4px 0;}
.da-agent {color: var(--body-text-color-subdued); font-size: 0.85em;}
.da-foul, .da-elimination {color: #c0392b;}
.da-vote {color: #2c6fbb;}
.da-vote_result, .da-end {font-weight: 600;}
.da-secret {color: #8e44ad;}
.da-prompt {border-left: 4px solid #e67e22; padding-left: 10px;}
footer {visibility: hidden}
"""

THEME = gr.themes.Soft(primary_hue="orange", secondary_hue="slate")


def visitor_of(request: gr.Request | None) -> str:
    """Who is asking, for per-visitor caps: the signed-in user, else the forwarded
    client address, else the browser session."""
    if request is None:
        return "api"
    user = getattr(request, "username", None)
    if user:
        return f"user:{user}"
    forwarded = (request.headers.get("x-forwarded-for") or "").split(",")[0].strip()
    if forwarded:
        return f"ip:{forwarded}"
    return f"session:{request.session_hash or (request.client.host if request.client else 'unknown')}"


def when(ts: float | None) -> str:
    if not ts:
        return ""
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
