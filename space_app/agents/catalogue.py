"""Turn a seat spec into an agent.

Specs: a house agent (`house:smollm2`, and each game's own, e.g. `house:heuristic`);
a registered agent's id; `remote:<Space id or URL>`; `wis:<base URL>`. Any spec may
end with strategy wrappers that a game declares (e.g. spy's `+attacker`, `+defender`,
`+reasoning`: `house:heuristic+attacker`).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from sdk import Agent, AgentError, LLMAgent, RemoteAgent, local_caller
from sdk.egress import EgressPolicy

from ..core import GAMES, AgentKind, HouseAgent
from ..refusal import Refusal
from ..store import Store
from ..suites import suite_games, suite_house_agents

# House agents that play every game; each game adds its own (its spec's `HouseAgents`).
GENERIC_HOUSE: dict[str, HouseAgent] = {
    "house:smollm2": HouseAgent("LLMAgent on the embedded SmolLM2-135M-Instruct (CPU, slow).",
                                lambda: LLMAgent(local_caller(), name="house:smollm2",
                                                 description="The embedded SmolLM2-135M-Instruct."),
                                random_fill=False),
}


def house_agents() -> dict[str, HouseAgent]:
    """Every house agent: the generic ones, each registered game's and each suite's."""
    out = dict(GENERIC_HOUSE)
    for spec in GAMES.values():
        out.update(spec.house.agents)
    for name, (description, build) in suite_house_agents().items():
        out.setdefault(name, HouseAgent(description, build, random_fill=False))
    return out


def house_games(name: str) -> tuple[str, ...]:
    """The games (and question-suite labels) a house agent plays."""
    if name in GENERIC_HOUSE:
        return (*GAMES, *(g for g in suite_games() if g not in GAMES))
    games = [g.id for g in GAMES.values() if name in g.house.agents]
    if name in suite_house_agents():
        built = suite_house_agents()[name][1]
        # a suite agent that names no games answers every suite's questions
        games += [g for g in getattr(built, "games", ()) or suite_games() if g not in games]
    return tuple(games)


def agent_kinds() -> dict[str, AgentKind]:
    """The outside platforms' agent kinds the registered games bring (spy: `wis`)."""
    return {name: kind for spec in GAMES.values() for name, kind in spec.house.kinds.items()}


def wrappers() -> dict[str, Callable[[Agent], Agent]]:
    out: dict[str, Callable[[Agent], Agent]] = {}
    for spec in GAMES.values():
        out.update(spec.house.wrappers)
    return out


log = logging.getLogger(__name__)
# A plain URL is not a Space that may be asleep: if it does not answer within this, it is down.
PLAIN_URL_WAKE_SECONDS = 3.0



def plays(declared: tuple[str, ...] | list[str], game: str) -> bool:
    """Whether an agent that declares `declared` games plays `game` (none declared: any game)."""
    return not declared or game in declared

class UnknownAgent(Refusal):
    """An agent that cannot be seated (unknown, unreachable by policy, or not playing the game)."""


def split_spec(spec: str) -> tuple[str, list[str]]:
    """'house:heuristic+attacker+reasoning' -> ('house:heuristic', ['attacker', 'reasoning'])."""
    base, *wrapped = spec.strip().split("+")
    return base, wrapped


def base_of(spec: str) -> str:
    return split_spec(spec)[0]


def is_ad_hoc(spec: str) -> bool:
    """A seat spec that names a URL directly instead of a house or registered agent."""
    return base_of(spec).startswith(("remote:", "wis:"))


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
            if base_of(spec) in house_agents():
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

    def games_of(self, spec: str) -> tuple[str, ...]:
        """The games the agent behind `spec` declares (wrappers keep their base's)."""
        base = base_of(spec)
        if base in house_agents():
            return house_games(base)
        if self.store is not None and not is_ad_hoc(base):
            row = self.store.get_agent(base)
            if row is not None:
                return tuple(row["games"] or ())
        return tuple(getattr(self.resolve(spec), "games", ()))

    def check_plays(self, spec: str, game: str) -> None:
        """Refuse to seat an agent in a game it does not declare (one that declares no game
        plays any)."""
        declared = self.games_of(spec)
        if not plays(declared, game):
            raise UnknownAgent(f"agent {spec!r} does not play {game!r} (it declares: "
                               f"{', '.join(declared) or 'no game'})", "not_playing", agent=spec, game=game,
                               declared=", ".join(declared) or "—")

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
        base, suffixes = split_spec(spec)
        known = wrappers()
        for w in suffixes:  # checked before building: an unknown suffix costs no connection
            if w not in known:
                raise UnknownAgent(f"unknown strategy '+{w}' (known: {', '.join(known) or 'none'})")
        agent = self._base(base)
        for w in suffixes:
            agent = known[w](agent)
        return agent

    def _base(self, spec: str) -> Agent:
        house = house_agents()
        if spec in house:
            return house[spec].build()
        try:
            if spec.startswith("remote:"):
                return self._remote(spec[len("remote:"):])
            prefix, _, rest = spec.partition(":")
            outside = agent_kinds()
            if prefix in outside and rest:
                return outside[prefix].build(rest, timeout=self.remote_timeout, egress=self.egress)
            if self.store is not None:
                row = self.store.get_agent(spec, with_secret=True)
                if row is not None and row["active"]:
                    if row["kind"] in outside:
                        return outside[row["kind"]].build(row["src"], timeout=self.remote_timeout, name=row["name"],
                                                          egress=self.egress)
                    if row["kind"] == "remote":
                        return self._remote(row["src"], secret=row["secret"], name=row["name"], info=row.get("info"))
        except (ValueError, AgentError) as exc:  # a malformed URL or one the egress policy refuses
            raise UnknownAgent(f"agent {spec!r} cannot be seated: {exc}", "cannot_seat", agent=spec,
                               reason=str(exc)) from exc
        raise UnknownAgent(f"unknown agent {spec!r}: use a house agent ({', '.join(house_agents())}), "
                           "a registered agent id, remote:<Space id or URL>"
                           + "".join(f" or {name}:<URL>" for name in agent_kinds()), "unknown_agent", agent=spec)

    def _remote(self, src: str, secret: str | None = None, name: str | None = None,
                info: dict[str, Any] | None = None) -> RemoteAgent:
        # only a Space can be asleep: a plain URL that does not answer is down, not waking;
        # the info stored at registration says its format and whether it reads images until a
        # match's prepare reads it afresh (the agent's test page calls it without one)
        is_space = not src.strip().startswith(("http://", "https://"))
        return RemoteAgent(src, secret=secret, timeout=self.remote_timeout, name=name, egress=self.egress,
                           wake_timeout=120.0 if is_space else PLAIN_URL_WAKE_SECONDS, known_info=info)
