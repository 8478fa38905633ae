"""Turn a seat spec into an agent.

Specs: `house:random`, `house:heuristic`, `house:heuristic-embed`, `house:smollm2`;
a registered agent's id; `remote:<Space id or URL>`; `wis:<base URL>`. Any spec may
end with strategy wrappers: `+attacker`, `+defender`, `+reasoning`
(e.g. `house:heuristic+attacker`).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable

from sdk import Agent, AgentError, LLMAgent, RemoteAgent, local_caller
from sdk.egress import EgressPolicy

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


log = logging.getLogger(__name__)
# A plain URL is not a Space that may be asleep: if it does not answer within this, it is down.
PLAIN_URL_WAKE_SECONDS = 3.0


class UnknownAgent(ValueError):
    pass


def is_ad_hoc(spec: str) -> bool:
    """A seat spec that names a URL directly instead of a house or registered agent."""
    return spec.strip().split("+")[0].startswith(("remote:", "wis:"))


def _close_quietly(agent: Agent) -> None:
    while agent is not None:
        close = getattr(agent, "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # noqa: BLE001 - closing an evicted agent is best effort
                log.debug("closing %r failed", agent, exc_info=True)
        agent = getattr(agent, "base", None)


class AgentCatalogue:
    """Builds and caches agents. Agents are stateless across matches, so one instance
    per spec serves every concurrent match. House agents and agents added with `add`
    stay; the others (registered and `remote:`/`wis:` specs) are kept in an LRU of
    `max_cached` entries, and an evicted agent's connections are closed (it reopens
    them if a match still uses it)."""

    def __init__(self, store: Store | None = None, remote_timeout: float = 10.0, *,
                 egress: EgressPolicy | None = None, max_cached: int = 256) -> None:
        self.store = store
        self.remote_timeout = remote_timeout
        self.egress = egress or EgressPolicy()
        self.max_cached = max_cached
        self._kept: dict[str, Agent] = {}
        self._cache: OrderedDict[str, Agent] = OrderedDict()
        self._lock = threading.Lock()

    def house_specs(self) -> list[tuple[str, str]]:
        return [(spec, desc) for spec, (desc, _) in HOUSE.items()]

    def resolve(self, spec: str) -> Agent:
        spec = spec.strip()
        with self._lock:
            if spec in self._kept:
                return self._kept[spec]
            if spec in self._cache:
                self._cache.move_to_end(spec)
                return self._cache[spec]
        agent = self._build(spec)
        evicted: list[Agent] = []
        with self._lock:
            if spec.split("+")[0] in HOUSE:
                return self._kept.setdefault(spec, agent)
            if spec in self._cache:  # built twice at once: keep the first
                evicted.append(agent)
                agent = self._cache[spec]
            else:
                self._cache[spec] = agent
            while len(self._cache) > self.max_cached:
                evicted.append(self._cache.popitem(last=False)[1])
        for old in evicted:
            _close_quietly(old)
        return agent

    def cached(self) -> int:
        """How many agents are held (house, added and cached)."""
        with self._lock:
            return len(self._kept) + len(self._cache)

    def add(self, spec: str, agent: Agent) -> None:
        """Seat a ready-made agent object under `spec` (benchmarks, tests, embedding apps)."""
        with self._lock:
            self._cache.pop(spec, None)
            self._kept[spec] = agent

    async def aclose_sessions(self) -> None:
        """Close the remote agents' connections that belong to the running event loop
        (call it before a loop you started yourself ends, e.g. after a tournament)."""
        with self._lock:
            agents = [*self._kept.values(), *self._cache.values()]
        for agent in agents:
            while agent is not None:
                close = getattr(agent, "aclose", None)
                if callable(close):
                    await close()
                agent = getattr(agent, "base", None)

    def forget(self, spec: str) -> None:
        """Drop an agent (and its wrapped forms) so the next match builds it afresh, e.g.
        with the secret or URL its owner just registered again."""
        dropped = []
        with self._lock:
            for table in (self._cache, self._kept):
                for key in [k for k in table if k == spec or k.startswith(spec + "+")]:
                    dropped.append(table.pop(key))
        for agent in dropped:
            _close_quietly(agent)

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
        try:
            if spec.startswith("remote:"):
                return self._remote(spec[len("remote:"):])
            if spec.startswith("wis:"):
                from .wis import WiSAgent

                return WiSAgent(spec[len("wis:"):], timeout=self.remote_timeout, egress=self.egress)
            if self.store is not None:
                row = self.store.get_agent(spec, with_secret=True)
                if row is not None and row["active"]:
                    if row["kind"] == "wis":
                        from .wis import WiSAgent

                        return WiSAgent(row["src"], timeout=self.remote_timeout, name=row["name"],
                                        egress=self.egress)
                    if row["kind"] == "remote":
                        return self._remote(row["src"], secret=row["secret"], name=row["name"])
        except (ValueError, AgentError) as exc:  # a malformed URL or one the egress policy refuses
            raise UnknownAgent(f"agent {spec!r} cannot be seated: {exc}") from exc
        raise UnknownAgent(f"unknown agent {spec!r}: use a house agent ({', '.join(HOUSE)}), "
                           "a registered agent id, remote:<Space id or URL> or wis:<URL>")

    def _remote(self, src: str, secret: str | None = None, name: str | None = None) -> RemoteAgent:
        # only a Space can be asleep: a plain URL that does not answer is down, not waking
        is_space = not src.strip().startswith(("http://", "https://"))
        return RemoteAgent(src, secret=secret, timeout=self.remote_timeout, name=name, egress=self.egress,
                           wake_timeout=120.0 if is_space else PLAIN_URL_WAKE_SECONDS)
