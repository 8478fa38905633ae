"""A call that ran out of time, explained: how long it ran, the limit it had (and what set
it), and what the arena was still waiting for when it gave up, so an author can tell a slow
model from a sleeping Space or a limit set too low."""

from __future__ import annotations

from typing import Any

from .core.events import Call


def pending_part(agent: Any, verb: str, detail: str) -> str:
    """What the arena was waiting for: the agent's model (when the agent said its model
    endpoint ran out of time), its served endpoint, or a local agent's own method."""
    said = detail.split(":", 1)[1].strip() if detail.startswith("timeout:") else ""
    if "model endpoint" in said or "model request" in said:
        return f"the agent's model: {said}"
    url = getattr(agent, "url", None)
    if isinstance(url, str) and url:
        return f"the agent's reply to its `{verb}` call at {url}" + (f" ({said})" if said else "")
    return f"{type(agent).__name__}.{verb}() of {getattr(agent, 'name', 'the agent')!s}, in the arena's process"


def explain_timeout(record: Call, agent: Any, seconds: float, asked: float, cap: float) -> str:
    """One sentence on a timed-out call: `seconds` the limit it had, `asked` the observation's
    own `limits.seconds`, `cap` the arena's ARENA_MAX_TURN_SECONDS."""
    used = (record.latency_ms or 0.0) / 1000
    source = (f"the observation asked for {asked:g} s, cut to this arena's ARENA_MAX_TURN_SECONDS"
              if asked > cap else "the observation's limits.seconds")
    pending = pending_part(agent, record.verb or "act", record.detail)
    return (f"timed out after {used:.1f} s of the {seconds:g} s limit ({source}); still waiting for "
            f"{pending}")


__all__ = ["explain_timeout", "pending_part"]
