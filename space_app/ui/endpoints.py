"""Named API endpoints for gradio_client. Names are stable: register_agent,
list_agents, run_match, get_match, list_matches, leaderboard."""

from __future__ import annotations

from typing import Any

import gradio as gr

from ..api import ApiError, ArenaAPI
from .common import visitor_of


def bearer_token(request: gr.Request | None) -> str | None:
    """The Hugging Face token a gradio_client sends (`Client(..., token=...)`)."""
    if request is None:
        return None
    for header in ("x-hf-authorization", "authorization"):
        value = request.headers.get(header) or ""
        if value.lower().startswith("bearer "):
            return value[7:].strip() or None
    return None


def user_from_request(request: gr.Request | None, whoami: Any = None) -> str | None:
    """The signed-in user: from the page's login, else from the client's HF token."""
    user = getattr(request, "username", None) if request is not None else None
    if user:
        return str(user)
    token = bearer_token(request)
    if not token:
        return None
    if whoami is None:
        from huggingface_hub import whoami
    try:
        return str(whoami(token=token)["name"])
    except Exception:  # an invalid token is the same as no sign-in
        return None


def register_endpoints(api: ArenaAPI) -> None:
    on_space = api.config.on_space

    def register_agent(src: str, name: str = "", secret: str = "", description: str = "",
                       kind: str = "remote", owner: str = "",
                       request: gr.Request = None) -> dict:  # type: ignore[assignment]
        """Register an agent by Space id (owner/name) or http(s) URL; its `info` is checked first.
        kind: 'remote' (SDK agent) or 'wis' (WiS protocol). Returns {agent_id, name, info}."""
        if on_space:
            user = user_from_request(request)
            if not user:
                raise gr.Error("sign in with Hugging Face to register: pass your token to the "
                               "client, e.g. Client(space, token='hf_...')")
            owner = user
        try:
            return api.register_agent(src, name=name, secret=secret, description=description,
                                      kind=kind, owner=(owner or "local")[:60])
        except ApiError as exc:
            raise gr.Error(str(exc)) from exc

    def list_agents() -> list:
        """Every agent that can take a seat: house agents and registered ones (no secrets)."""
        return api.list_agents()

    async def run_match(game: str = "spy", seats: list | None = None, seed: int | None = None,
                        settings: dict | None = None,
                        request: gr.Request = None) -> dict:  # type: ignore[assignment]
        """Play one match to its end. seats: agent ids in seat order ('' = random fill).
        Returns {match_id, status, result, error}; the replay is at ?match=<match_id>."""
        try:
            return await api.run_match({"game": game, "seats": seats or [], "seed": seed,
                                        "settings": settings or {}}, visitor=visitor_of(request))
        except ApiError as exc:
            raise gr.Error(str(exc)) from exc

    def get_match(match_id: str, seat: str = "") -> dict:
        """A match with its events and result. With `seat`, only what that seat saw."""
        try:
            return api.get_match(match_id, seat)
        except ApiError as exc:
            raise gr.Error(str(exc)) from exc

    def list_matches(game: str = "", agent: str = "", status: str = "", limit: int = 50) -> list:
        """Recorded matches, newest first, filtered by game, agent id and status."""
        return api.list_matches(game=game, agent=agent, status=status, limit=limit)

    def leaderboard(game: str = "spy", min_games: int = 0) -> list:
        """Per-agent ranking score, rating, win rates, vote accuracy, foul rate, latency."""
        try:
            return api.leaderboard(game, min_games)
        except ApiError as exc:
            raise gr.Error(str(exc)) from exc

    gr.api(register_agent, api_name="register_agent", concurrency_limit=4)
    gr.api(list_agents, api_name="list_agents", concurrency_limit=None)
    gr.api(run_match, api_name="run_match", concurrency_limit=None)
    gr.api(get_match, api_name="get_match", concurrency_limit=None)
    gr.api(list_matches, api_name="list_matches", concurrency_limit=None)
    gr.api(leaderboard, api_name="leaderboard", concurrency_limit=None)


__all__ = ["bearer_token", "register_endpoints", "user_from_request"]
