"""What each agent used and what went wrong for it, totalled per agent and per game from the
stored per-seat records (never from events): calls, prompt and completion tokens, re-asks,
unreadable replies, truncated replies and latency (`core.facts`), with a cost estimate in US
dollars from the operator's price table (`prices.py`) and the model each seat reported
(`seat_versions.py`). Tokens of a seat whose model has no price (or that named none, or whose
record predates the prompt/completion split) are counted as unpriced, never guessed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .core.facts import (
    CALLS,
    COMPLETION_TOKENS,
    INFRA_FAILURES,
    INVALID_ACTIONS,
    LATENCY_MS,
    PROMPT_TOKENS,
    REASKS,
    TOKENS,
    TRUNCATED,
    UNREADABLE,
)
from .prices import Price, price_for
from .sources import DEFAULT_KINDS, kind_of
from .store import Store

ALL_GAMES = "all"
SUMMED = (CALLS, PROMPT_TOKENS, COMPLETION_TOKENS, TOKENS, REASKS, UNREADABLE, TRUNCATED, INVALID_ACTIONS,
          INFRA_FAILURES, LATENCY_MS)
COLUMNS = ("game", "agent_id", "matches", "seats", *SUMMED, "mean_latency_ms", "models", "cost_usd",
           "unpriced_tokens")
MEANING = {
    "game": f"the game ('{ALL_GAMES}': every game together)",
    "agent_id": "the agent",
    "matches": "matches played", "seats": "seats played",
    CALLS: "calls to the agent", PROMPT_TOKENS: "input tokens its model reported",
    COMPLETION_TOKENS: "output tokens its model reported", TOKENS: "input + output tokens",
    REASKS: "model calls past the first in a turn (a vote re-asked, a cut reply asked again)",
    UNREADABLE: "replies the arena could not read", TRUNCATED: "replies cut at the model's token limit",
    INVALID_ACTIONS: "moves the game refused", INFRA_FAILURES: "calls that could not reach the agent",
    LATENCY_MS: "reply time, summed (ms)", "mean_latency_ms": "mean reply time (ms)",
    "models": "the models its seats reported", "cost_usd": "estimated cost from ARENA_PRICES (USD); "
    "None when no token of it had a price", "unpriced_tokens": "tokens left out of the cost: no price for the "
    "model, no model named, or no input/output split recorded",
}


def _new(game: str, agent: str) -> dict[str, Any]:
    return {"game": game, "agent_id": agent, "matches": set(), "seats": 0, **dict.fromkeys(SUMMED, 0.0),
            "models": set(), "cost_usd": None, "unpriced_tokens": 0.0}


def _add(total: dict[str, Any], match_id: str, stats: dict[str, Any], model: str, price: Price | None) -> None:
    total["matches"].add(match_id)
    total["seats"] += 1
    for key in SUMMED:
        total[key] += float(stats.get(key) or 0)
    if model:
        total["models"].add(model)
    prompt, completion = float(stats.get(PROMPT_TOKENS) or 0), float(stats.get(COMPLETION_TOKENS) or 0)
    split = prompt + completion
    if price is not None and split > 0:
        total["cost_usd"] = (total["cost_usd"] or 0.0) + price.cost(prompt, completion)
        total["unpriced_tokens"] += max(0.0, float(stats.get(TOKENS) or 0) - split)
    else:
        total["unpriced_tokens"] += float(stats.get(TOKENS) or 0)


def _finish(total: dict[str, Any]) -> dict[str, Any]:
    out = {**total, "matches": len(total["matches"]), "models": sorted(total["models"])}
    for key in (*SUMMED, "unpriced_tokens"):
        if key != LATENCY_MS:
            out[key] = int(out[key])
    out[LATENCY_MS] = round(out[LATENCY_MS], 1)
    out["mean_latency_ms"] = round(total[LATENCY_MS] / total[CALLS], 1) if total[CALLS] else None
    out["cost_usd"] = None if total["cost_usd"] is None else round(total["cost_usd"], 6)
    return out


def accounting(store: Store, games: Iterable[str], prices: dict[str, Price], *,
               sources: Iterable[str] | None = None, agents: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """One row per game and agent, then one per agent over every game (`game` = 'all'), each
    with the COLUMNS; over the matches of the given source kinds (default: as the leaderboard)."""
    kinds = DEFAULT_KINDS if sources is None else frozenset(sources)
    wanted = None if agents is None else list(agents)
    per_game: dict[tuple[str, str], dict[str, Any]] = {}
    overall: dict[str, dict[str, Any]] = {}
    for game in games:
        versions = store.seat_versions(game)
        for row in store.records(game, agents=wanted):
            if kind_of(row["tag"]) not in kinds:
                continue
            model = (versions.get((row["match_id"], row["seat"])) or {}).get("model", "")
            price = price_for(prices, model)
            stats = row["stats"] or {}
            agent = row["agent_id"]
            for total in (per_game.setdefault((game, agent), _new(game, agent)),
                          overall.setdefault(agent, _new(ALL_GAMES, agent))):
                _add(total, f"{game}/{row['match_id']}", stats, model, price)
    rows = [_finish(t) for _, t in sorted(per_game.items())]
    return rows + [_finish(t) for _, t in sorted(overall.items())]


def spent(store: Store, game: str, tag: str, prices: dict[str, Price],
          matches: set[str] | None = None) -> dict[str, Any]:
    """What every seat of a tag's matches (of `matches` only, when given) used: tokens, the
    cost of those whose model has a price (None when none has) and the tokens left unpriced."""
    versions = store.seat_versions(game)
    total = _new(game, tag)
    for row in store.records(game, tag=tag):
        if matches is not None and row["match_id"] not in matches:
            continue
        model = (versions.get((row["match_id"], row["seat"])) or {}).get("model", "")
        _add(total, row["match_id"], row["stats"] or {}, model, price_for(prices, model))
    return {"tokens": total[TOKENS], "cost_usd": total["cost_usd"], "unpriced_tokens": total["unpriced_tokens"],
            "matches": len(total["matches"])}


__all__ = ["ALL_GAMES", "COLUMNS", "MEANING", "accounting", "spent"]
