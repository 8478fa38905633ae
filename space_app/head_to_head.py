"""Head to head: how often each agent beat each other agent when they sat on opposite sides,
from the stored per-seat records (`team`, `won`), for every game alike.

A match counts for the pair (A, B) when at least one seat of A and one seat of B were on
different teams. Within it, every such opposed pair of seats where exactly one seat won is a
point for the agent that held the winning seat; the agent with more points won the match
over the other, equal points (both sides lost, both won, or an agent split across sides) are
a draw. A's win rate over B is (wins + draws / 2) / matches, with its 95% Wilson interval, so
A's and B's rates add up to 1. Matches are filtered exactly as the leaderboard filters them
(source kinds, a tag, leaving out matches a call could not reach).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .core import SeatRecord
from .leaderboard import kinds_for, matches_of
from .sources import describe, kind_of, label
from .standings import infra_hit
from .stats import Rate
from .store import Store

DEFINITION = ("A match counts for a pair of agents when they held seats on opposite teams. Each opposed pair "
              "of seats where exactly one seat won is a point for the winner's agent; more points wins the "
              "match for that agent, equal points is a draw. Win rate = (wins + draws/2) / matches, with its "
              "95% Wilson interval.")


@dataclass
class PairTally:
    """What one agent did against another: matches against it, won, lost, drawn."""

    matches: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0

    def rate(self) -> Rate:
        return Rate(self.wins + self.draws / 2, self.matches)


def match_outcomes(records: Sequence[SeatRecord]) -> dict[tuple[str, str], int]:
    """One match's result for every ordered pair of agents that sat on opposite teams:
    +1 the first agent won over the second, -1 it lost, 0 a draw."""
    by_agent: dict[str, list[SeatRecord]] = {}
    for r in records:
        by_agent.setdefault(r.agent_id, []).append(r)
    out: dict[tuple[str, str], int] = {}
    agents = sorted(by_agent)
    for i, a in enumerate(agents):
        for b in agents[i + 1:]:
            opposed = [(x, y) for x in by_agent[a] for y in by_agent[b] if x.team != y.team]
            if not opposed:
                continue
            points = sum(x.won and not y.won for x, y in opposed) - sum(y.won and not x.won for x, y in opposed)
            sign = (points > 0) - (points < 0)
            out[(a, b)], out[(b, a)] = sign, -sign
    return out


def tally(matches: Iterable[Sequence[SeatRecord]]) -> dict[tuple[str, str], PairTally]:
    """Every ordered pair's tally over these matches (each match's records)."""
    pairs: dict[tuple[str, str], PairTally] = {}
    for records in matches:
        for pair, sign in match_outcomes(records).items():
            t = pairs.setdefault(pair, PairTally())
            t.matches += 1
            t.wins += sign > 0
            t.losses += sign < 0
            t.draws += sign == 0
    return pairs


def cells(pairs: dict[tuple[str, str], PairTally], agents: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """One row per ordered pair (a over b) that met: counts and the win rate with its interval."""
    chosen = None if agents is None else set(agents)
    out = []
    for (a, b), t in sorted(pairs.items()):
        if chosen is not None and not (a in chosen and b in chosen):
            continue
        out.append({"a": a, "b": b, "matches": t.matches, "wins": t.wins, "losses": t.losses, "draws": t.draws,
                    **t.rate().to_dict("win_rate")})
    return out


def order(pairs: dict[tuple[str, str], PairTally], first: Sequence[str] = ()) -> list[str]:
    """The agents of the matrix: those named first (e.g. the leaderboard's order), then the
    others by matches against anyone (most first)."""
    played: dict[str, int] = {}
    for (a, _), t in pairs.items():
        played[a] = played.get(a, 0) + t.matches
    named = [a for a in first if a in played]
    return named + sorted((a for a in played if a not in set(named)), key=lambda a: (-played[a], a))


def head_to_head(store: Store, game: str, *, sources: Iterable[str] | None = None, tag: str | None = None,
                 void_infra: bool = False, agents: Sequence[str] = (), limit: int = 0) -> dict[str, Any]:
    """The game's head-to-head matrix over the matches the leaderboard with the same filter
    counts: `agents` (in their order; else every agent, most matches first), at most `limit`
    of them (0: all), and one cell per ordered pair that met."""
    kinds = kinds_for(sources, tag)
    counted = 0

    def kept() -> Iterable[list[SeatRecord]]:
        nonlocal counted
        for match_tag, records in matches_of(store.records(game, tag=tag)):
            if kind_of(match_tag) in kinds and not (void_infra and infra_hit(records)):
                counted += 1
                yield records

    pairs = tally(kept())
    met = {a for a, _ in pairs}
    shown = [a for a in dict.fromkeys(agents) if a in met] if agents else order(pairs)
    if limit > 0:
        shown = shown[:limit]
    return {"game": game, "filter": {"sources": label(kinds), "tag": tag or "", "void_infra": void_infra},
            "includes": describe(kinds, tag), "matches": counted, "definition": DEFINITION,
            "agents": shown, "cells": cells(pairs, shown)}


__all__ = ["DEFINITION", "PairTally", "cells", "head_to_head", "match_outcomes", "order", "tally"]
