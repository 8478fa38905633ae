"""Avalon's seat wrapper `+intentions`: any agent that calls a model (an `LLMAgent`, e.g.
`house:smollm2` or an agent built on an llm_caller) plays with intention-guided discussion,
as the SDK's `AvalonIntentionAgent` on the same caller (`house:smollm2+intentions`)."""

from __future__ import annotations

from sdk import Agent

from .intention_agent import AvalonIntentionAgent


class NoModel(ValueError):
    """The agent has no model to guide: a rule bot or a remote agent."""


def has_model(agent: Agent) -> bool:
    return callable(getattr(agent, "llm_caller", None))


def intention_guided(agent: Agent) -> Agent:
    """The same model, selecting intentions before each statement (votes and answers as before)."""
    if isinstance(agent, AvalonIntentionAgent):
        return agent
    if not has_model(agent):
        raise NoModel(f"+intentions needs an agent that calls a model (an LLMAgent such as house:smollm2); "
                      f"{getattr(agent, 'name', type(agent).__name__)} has none")
    return AvalonIntentionAgent(agent.llm_caller,  # type: ignore[attr-defined]
                                name=f"{getattr(agent, 'name', 'agent')}+intentions",
                                max_history=getattr(agent, "max_history", 60))


__all__ = ["NoModel", "has_model", "intention_guided"]
