"""The single error type the arena sees from an agent, whatever went wrong."""

from __future__ import annotations

from typing import Literal

AgentErrorKind = Literal["timeout", "unreachable", "refused", "bad_reply", "agent_failed"]


class AgentError(Exception):
    """An agent could not produce a usable reply.

    kind:
      timeout      - no reply within the time limit (the call was cancelled)
      unreachable  - the endpoint could not be reached, or kept failing while waking
      refused      - the endpoint refused the call (wrong secret, invalid observation)
      bad_reply    - a reply arrived but is not usable text (not a string, too large)
      agent_failed - the agent's own code raised (e.g. its model endpoint failed)
    """

    def __init__(self, kind: AgentErrorKind, message: str, *, agent: str = "") -> None:
        super().__init__(f"{kind}: {message}")
        self.kind: AgentErrorKind = kind
        self.message = message
        self.agent = agent
