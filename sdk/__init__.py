"""Deduction Arena SDK: build an agent by writing one function, `llm_caller`."""

__version__ = "0.3.0"

from .agent import Agent, Reply
from .callers import LocalScorer, litellm_caller, local_caller, local_scorer, openai_caller, scripted_caller
from .errors import AgentError
from .llm_agent import LLMAgent
from .memory import MatchMemory
from .observation import ABSTAIN, Document, HistoryItem, Limits, Observation, PrivateInfo
from .parsing import Choice, parse_choice
from .ports import launch_agent
from .usage import LLMText, Usage, with_notes

__all__ = [
    "ABSTAIN", "Agent", "AgentError", "Choice", "Document", "HistoryItem",
    "LLMAgent", "LLMText", "Limits", "LocalScorer", "MatchMemory", "Observation", "PrivateInfo",
    "RemoteAgent", "Reply", "Usage", "__version__", "launch_agent", "litellm_caller", "local_caller", "local_scorer",
    "openai_caller", "parse_choice", "scripted_caller", "serve", "with_notes",
]


def __getattr__(name: str):
    # imported on first use: gradio only when an agent is served, the HTTP clients only
    # arena-side (RemoteAgent), so an agent Space installs neither for the other's sake
    # and `python -m sdk schema` stays light
    if name == "serve":
        from .serving import serve

        return serve
    if name == "RemoteAgent":
        from .remote import RemoteAgent

        return RemoteAgent
    raise AttributeError(f"module 'sdk' has no attribute {name!r}")
