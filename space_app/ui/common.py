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
.da-reason {color: #c0392b; font-size: 0.9em;}
.da-prompt {border-left: 4px solid #e67e22; padding-left: 10px;}
"""

THEME = gr.themes.Soft(primary_hue="orange", secondary_hue="slate")


def client_address(request: gr.Request, trusted_hops: int = 0) -> str:
    """The caller's address. Behind `trusted_hops` reverse proxies that each append the
    address they saw to X-Forwarded-For (the Spaces proxy: 1), the client is the entry that
    many places from the right; anything further left was written by the client and is
    ignored. With no trusted proxy, the TCP peer."""
    if trusted_hops > 0:
        hops = [h.strip() for h in (request.headers.get("x-forwarded-for") or "").split(",") if h.strip()]
        if len(hops) >= trusted_hops:
            return hops[-trusted_hops]
    return request.client.host if request.client else "unknown"


def visitor_of(request: gr.Request | None, trusted_hops: int = 0, user: str | None = None) -> str:
    """Who is asking, for per-visitor caps and ownership of a running match: the
    signed-in user, else the client's address (never a per-call session, which a
    client can renew at will)."""
    if request is None:
        return "api"  # an in-process call (tests, embedding apps)
    user = user or getattr(request, "username", None)
    if user:
        return f"user:{user}"
    return f"ip:{client_address(request, trusted_hops)}"


def signed_in(visitor: str, on_space: bool) -> bool:
    """Whether a visitor counts as signed in (off a Space everyone does)."""
    return visitor.startswith("user:") or not on_space


def when(ts: float | None) -> str:
    if not ts:
        return ""
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
