"""The facts every game has, counted once for all of them from the generic events: a seat's
calls, their latency and tokens, its invalid actions and the calls that could not reach its
agent. The standings add them to each seat's record beside the game's own stats, and the
leaderboard shows them (with win rates per side) for every game; a game declares only its own.
"""

from __future__ import annotations

from collections.abc import Iterable

from .events import Call, Event, InvalidAction

CALLS = "calls"
LATENCY_MS = "latency_ms"  # summed over the seat's calls
TOKENS = "tokens"  # prompt + completion tokens, as the agents reported them
INVALID_ACTIONS = "invalid_actions"
INFRA_FAILURES = "infra_failures"  # calls that could not reach the agent or were skipped as failing (kept when any)

GENERIC_STATS = (CALLS, LATENCY_MS, TOKENS, INVALID_ACTIONS, INFRA_FAILURES)


def seat_facts(events: Iterable[Event], seats: Iterable[str]) -> dict[str, dict[str, float]]:
    """Per seat: calls, latency, tokens and invalid actions (always), and infrastructure
    failures (only when there were any): calls that could not reach the agent, and turns
    skipped because the seat had been marked failing (`Call.infrastructure`)."""
    out = {seat: {CALLS: 0.0, LATENCY_MS: 0.0, TOKENS: 0.0, INVALID_ACTIONS: 0.0} for seat in seats}
    for e in events:
        if isinstance(e, Call) and e.actor in out:
            facts = out[e.actor]
            facts[CALLS] += 1
            facts[LATENCY_MS] += float(e.latency_ms or 0.0)
            facts[TOKENS] += int(e.prompt_tokens or 0) + int(e.completion_tokens or 0)
            if e.infrastructure:  # unreachable, or skipped as failing
                facts[INFRA_FAILURES] = facts.get(INFRA_FAILURES, 0.0) + 1
        elif isinstance(e, InvalidAction) and (e.seat or e.actor) in out:
            out[e.seat or e.actor][INVALID_ACTIONS] += 1
    return out


__all__ = ["CALLS", "GENERIC_STATS", "INFRA_FAILURES", "INVALID_ACTIONS", "LATENCY_MS", "TOKENS", "seat_facts"]
