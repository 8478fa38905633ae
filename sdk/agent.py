"""The agent interface: three verbs, each takes an Observation and returns text."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from .observation import Observation
from .usage import Usage, notes_of, truncated_of, usage_of

# Local agents run here when called from async code. Larger than asyncio's default
# (min(32, cores + 4)) so that many concurrent matches with slow local agents do not
# queue behind each other; a hung agent holds one thread until it returns.
LOCAL_AGENT_THREADS = ThreadPoolExecutor(max_workers=128, thread_name_prefix="agent")


def reply_meta(text: object) -> dict:
    """What rides on a reply's text besides usage: private notes, and `truncated` (a model
    reply of the turn stopped at its token limit), each only when present."""
    meta: dict = {}
    notes = notes_of(text)
    if notes:
        meta["notes"] = notes
    if truncated_of(text):
        meta["truncated"] = True
    return meta


@dataclass(frozen=True)
class Reply:
    """What the runner gets back from any agent, local or remote."""

    text: str
    usage: Usage | None = None
    meta: dict = field(default_factory=dict)


class Agent:
    """Base class for every agent.

    Subclasses override `speak`, `vote` and `answer`. An agent instance may be
    called from several matches (and threads) at once, so it must not keep
    per-game state on `self`; keep memory, where wanted, keyed by
    `obs.match_id` (see `MatchMemory`).

    `vision` says whether the agent reads pictures: the arena sends a seat whose agent
    declares it (in `info`) the images of its observation as data URLs; any other agent
    gets the game's image references, which it cannot open (captions stand in).
    """

    name: str = "agent"
    description: str = ""
    # the games (and question suites) it plays; empty: any game, played from the rules text
    # each observation carries, so a new game needs no new agent
    games: tuple[str, ...] = ()
    vision: bool = False

    def __init__(self, name: str | None = None) -> None:
        if name is not None:
            self.name = name

    def speak(self, obs: Observation) -> str:
        raise NotImplementedError(f"{type(self).__name__} does not implement speak")

    def vote(self, obs: Observation) -> str:
        raise NotImplementedError(f"{type(self).__name__} does not implement vote")

    def answer(self, obs: Observation) -> str:
        raise NotImplementedError(f"{type(self).__name__} does not implement answer")

    def prepare(self) -> None:
        """Called once before a match, outside any time limit: load a model, wake a
        sleeping Space. Default: nothing to do."""

    def act(self, obs: Observation) -> Reply:
        """Dispatch on `obs.verb`; the runner calls this."""
        text = getattr(self, obs.verb)(obs)
        return Reply(text=text, usage=usage_of(text), meta=reply_meta(text))

    async def aact(self, obs: Observation) -> Reply:
        """Async form used by the runner. Local agents run in a worker thread;
        remote agents override this with a cancellable network call."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(LOCAL_AGENT_THREADS, self.act, obs)

    def info(self) -> dict:
        """What the arena knows of this agent: name, description, SDK version, the games it
        plays (an empty list: any game), whether it reads images (`vision`; a missing key
        means False) and which version of it this is (`version`: SDK, model, revision;
        `sdk/versions.py`), which the arena stores with every seat it takes."""
        from . import __version__
        from .versions import version_info

        return {
            "name": self.name,
            "description": self.description,
            "sdk_version": __version__,
            "games": list(self.games),
            "vision": bool(self.vision),
            "version": version_info(self.model_name()),
        }

    def model_name(self) -> str:
        """The model behind this agent, as its `version` reports it ('' when none is named)."""
        return ""
