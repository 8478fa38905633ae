"""The facts every game has, counted once for all of them from the generic events: a seat's
calls, their latency and tokens (prompt and completion apart too), its invalid actions, the
calls that could not reach its agent, and its agent's own troubles: re-asks (model calls past
the first in a turn, as the agent reported them), unreadable replies and replies cut at the
model's token limit. The standings add them to each seat's record beside the game's own stats, and the
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
# the rest are kept only when there were any, so records derived before them still agree
PROMPT_TOKENS = "prompt_tokens"
COMPLETION_TOKENS = "completion_tokens"
REASKS = "reasks"  # model calls of a turn past its first (a re-asked vote, a cut reply asked again)
UNREADABLE = "unreadable"  # replies the arena could not read (status 'unparseable')
TRUNCATED = "truncated"  # replies whose model stopped at its token limit

GENERIC_STATS = (CALLS, LATENCY_MS, TOKENS, INVALID_ACTIONS, INFRA_FAILURES, PROMPT_TOKENS, COMPLETION_TOKENS,
                 REASKS, UNREADABLE, TRUNCATED)


def seat_facts(events: Iterable[Event], seats: Iterable[str]) -> dict[str, dict[str, float]]:
    """Per seat: calls, latency, tokens and invalid actions (always); infrastructure failures
    (calls that could not reach the agent, and turns skipped because the seat had been marked
    failing: `Call.infrastructure`), prompt and completion tokens, re-asks, unreadable and
    truncated replies (only when there were any)."""
    out = {seat: {CALLS: 0.0, LATENCY_MS: 0.0, TOKENS: 0.0, INVALID_ACTIONS: 0.0} for seat in seats}
    for e in events:
        if isinstance(e, Call) and e.actor in out:
            facts = out[e.actor]
            facts[CALLS] += 1
            facts[LATENCY_MS] += float(e.latency_ms or 0.0)
            facts[TOKENS] += int(e.prompt_tokens or 0) + int(e.completion_tokens or 0)
            counted = {INFRA_FAILURES: e.infrastructure, PROMPT_TOKENS: int(e.prompt_tokens or 0),
                       COMPLETION_TOKENS: int(e.completion_tokens or 0),
                       REASKS: max(0, len(e.model_calls or []) - 1), UNREADABLE: e.status == "unparseable",
                       TRUNCATED: e.truncated is True}
            for key, more in counted.items():
                if more:
                    facts[key] = facts.get(key, 0.0) + float(more)
        elif isinstance(e, InvalidAction) and (e.seat or e.actor) in out:
            out[e.seat or e.actor][INVALID_ACTIONS] += 1
    return out


__all__ = ["CALLS", "COMPLETION_TOKENS", "GENERIC_STATS", "INFRA_FAILURES", "INVALID_ACTIONS", "LATENCY_MS",
           "PROMPT_TOKENS", "REASKS", "TOKENS", "TRUNCATED", "UNREADABLE", "seat_facts"]
