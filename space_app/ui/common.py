"""Small helpers shared by the tabs."""

from __future__ import annotations

import datetime as dt

import gradio as gr

from ..config import ArenaConfig, ConfigError
from ..core import GAMES, GameSpec, get_game

CSS = """
.da-hidden {display: none !important;}
.da-images {display: flex; flex-wrap: wrap; gap: 8px; margin: 6px 0 2px;}
.da-images img {max-width: min(100%, 560px); height: auto; border: 1px solid #ddd; border-radius: 4px;}
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
.da-who {font-weight: 400;}
.da-kind {font-size: 0.75em; padding: 0 5px; border-radius: 6px; border: 1px solid var(--border-color-primary);
  color: var(--body-text-color-subdued); white-space: nowrap;}
.da-audience {font-size: 0.85em;}
.da-meta {font-weight: 400;}
/* a seat's documents (its script, its role card): read beside the game, scrolled on its own */
.da-documents {max-height: 70vh; overflow-y: auto; padding: 8px 12px; border-radius: 8px;
  background: var(--block-background-fill); line-height: 1.5;}
.da-documents h3 {margin: 2px 0 6px;}
.da-doc {margin: 6px 0;}
.da-doc summary {cursor: pointer;}
.da-doc-text {white-space: pre-wrap; overflow-wrap: anywhere; margin-top: 4px;}
.da-prompt {border-left: 4px solid #e67e22; padding-left: 10px;}
.da-spoiler summary {cursor: pointer;}
.da-countdown {float: right; font-weight: 600; font-variant-numeric: tabular-nums;}
.da-urgent {color: #c0392b;}
.da-calls details.da-call {border: 1px solid var(--border-color-primary); border-radius: 6px; margin: 4px 0;
  padding: 4px 8px;}
.da-calls summary {cursor: pointer;}
.da-calls pre {white-space: pre-wrap; overflow-wrap: anywhere; max-height: 320px; overflow-y: auto;
  background: var(--block-background-fill); padding: 6px; border-radius: 4px; font-size: 0.85rem;}
.da-calls .da-role {font-weight: 600; margin-top: 4px;}
#human-choices {flex-wrap: wrap; gap: 6px;}
#human-choices button {flex: 0 1 auto;}
/* tables: words wrap between words, never mid-word; only long ids may break anywhere, and a
   table wider than the screen scrolls sideways instead of squeezing its columns */
.da-table table, .prose table {display: block; overflow-x: auto;}
.da-table td, .da-table th, .prose td, .prose th {word-break: normal; overflow-wrap: normal;}
.da-table code, .prose td code {overflow-wrap: anywhere;}
.table-wrap td, .table-wrap th {word-break: normal !important; overflow-wrap: normal !important;}
@media (max-width: 767px) {
  /* a phone: the game and its live transcript before the setup and seat selectors */
  #play-layout {flex-direction: column;}
  #play-game-column {order: -1;}
  #replay-controls {flex-wrap: wrap; gap: 6px;}
  #replay-controls > button {flex: 1 1 28%; min-width: 0 !important;}
  .da-transcript {max-height: 60vh;}
}
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


def game_choices(language: str) -> list[tuple[str, str]]:
    """Every game for a dropdown: its title in the page's language, its id."""
    return [(g.facts.title_in(language), g.id) for g in GAMES.values()]


def front_game(config: ArenaConfig) -> GameSpec:
    """The game the Play and Leaderboard tabs open on (`ARENA_FRONT_GAME`)."""
    if config.front_game not in GAMES:
        raise ConfigError(f"ARENA_FRONT_GAME: no game {config.front_game!r}; the games are {', '.join(GAMES)}")
    return get_game(config.front_game)
