"""Turn a seat spec into an agent.

Specs: `house:random`, `house:heuristic`, `house:heuristic-embed`, `house:smollm2`;
a registered agent's id; `remote:<Space id or URL>`; `wis:<base URL>`. Any spec may
end with strategy wrappers: `+attacker`, `+defender`, `+reasoning`
(e.g. `house:heuristic+attacker`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from sdk import Agent, LLMAgent, RemoteAgent, local_caller

from ..store import Store
from .house import HeuristicSpyAgent, RandomAgent
from .strategies import AttackerAgent, DefenderInjectionAgent, ReasoningAgent

HOUSE: dict[str, tuple[str, Callable[[], Agent]]] = {
    "house:random": ("Generic statements, random votes.", lambda: RandomAgent()),
    "house:heuristic": ("Shipped clue lists + lexical statement similarity.",
                        lambda: HeuristicSpyAgent()),
    "house:heuristic-embed": ("Shipped clue lists + MiniLM sentence-embedding similarity.",
                              lambda: HeuristicSpyAgent("house:heuristic-embed", "embedding")),
    "house:smollm2": ("LLMAgent on the embedded SmolLM2-135M-Instruct (CPU, slow).",
                      lambda: LLMAgent(local_caller(), name="house:smollm2",
                                       description="The embedded SmolLM2-135M-Instruct.")),
}
WRAPPERS: dict[str, Callable[[Agent], Agent]] = {
    "attacker": AttackerAgent,
    "defender": DefenderInjectionAgent,
    "reasoning": ReasoningAgent,
}


class UnknownAgent(ValueError):
    pass


class AgentCatalogue:
    """Builds and caches agents. Agents are stateless across matches, so one instance
    per spec serves every concurrent match."""

    def __init__(self, store: Store | None = None, remote_timeout: float = 10.0) -> None:
        self.store = store
        self.remote_timeout = remote_timeout
        self._cache: dict[str, Agent] = {}
        self._lock = threading.Lock()

    def house_specs(self) -> list[tuple[str, str]]:
        return [(spec, desc) for spec, (desc, _) in HOUSE.items()]

    def resolve(self, spec: str) -> Agent:
        spec = spec.strip()
        with self._lock:
            if spec in self._cache:
                return self._cache[spec]
        agent = self._build(spec)
        with self._lock:
            return self._cache.setdefault(spec, agent)

    def add(self, spec: str, agent: Agent) -> None:
        """Seat a ready-made agent object under `spec` (benchmarks, tests, embedding apps)."""
        with self._lock:
            self._cache[spec] = agent

    async def aclose_sessions(self) -> None:
        """Close the remote agents' connections that belong to the running event loop
        (call it before a loop you started yourself ends, e.g. after a tournament)."""
        with self._lock:
            agents = list(self._cache.values())
        for agent in agents:
            while agent is not None:
                close = getattr(agent, "aclose", None)
                if callable(close):
                    await close()
                agent = getattr(agent, "base", None)

    def forget(self, spec: str) -> None:
        with self._lock:
            for key in [k for k in self._cache if k == spec or k.startswith(spec + "+")]:
                del self._cache[key]

    def _build(self, spec: str) -> Agent:
        base, *wrappers = spec.split("+")
        agent = self._base(base)
        for w in wrappers:
            if w not in WRAPPERS:
                raise UnknownAgent(f"unknown strategy '+{w}' (known: {', '.join(WRAPPERS)})")
            agent = WRAPPERS[w](agent)
        return agent

    def _base(self, spec: str) -> Agent:
        if spec in HOUSE:
            return HOUSE[spec][1]()
        if spec.startswith("remote:"):
            return RemoteAgent(spec[len("remote:"):], timeout=self.remote_timeout)
        if spec.startswith("wis:"):
            from .wis import WiSAgent

            return WiSAgent(spec[len("wis:"):], timeout=self.remote_timeout)
        if self.store is not None:
            row = self.store.get_agent(spec, with_secret=True)
            if row is not None and row["active"]:
                if row["kind"] == "wis":
                    from .wis import WiSAgent

                    return WiSAgent(row["src"], timeout=self.remote_timeout, name=row["name"])
                if row["kind"] == "remote":
                    return RemoteAgent(row["src"], secret=row["secret"], timeout=self.remote_timeout,
                                       name=row["name"])
        raise UnknownAgent(f"unknown agent {spec!r}: use a house agent ({', '.join(HOUSE)}), "
                           "a registered agent id, remote:<Space id or URL> or wis:<URL>")
