"""Randomness for house agents that keep no state: each draws from a generator seeded by what its
seat has seen (never the match id or a clock), so the same game seed with house agents replays
the same match. A game chooses what its key holds; the hashing is shared.

A counterfactual branch (`space_app.branches`) samples several continuations from one state:
there each house agent's call runs under a per-branch salt (`salted`), added to every key, so
the samples differ while each stays reproducible. With no salt the keys are as they always were."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from sdk.observation import Observation


def history_key(obs: Observation, skip: Iterable[str] = ()) -> str:
    """The seat's history as one string (less the event kinds in `skip`)."""
    left_out = frozenset(skip)
    return "\n".join(f"{h.who}|{h.kind}|{h.round}|{h.text}" for h in obs.history if h.kind not in left_out)


SALT: ContextVar[str] = ContextVar("house_agent_salt", default="")


@contextmanager
def salted(salt: str) -> Iterator[None]:
    """Every `seeded` generator made inside draws from `key` plus `salt` (in this thread or task)."""
    token = SALT.set(salt)
    try:
        yield
    finally:
        SALT.reset(token)


def seeded(key: str) -> random.Random:
    """A generator seeded by a stable hash of `key` (Python's own string hash changes per process),
    and of the branch's salt when one is set (`salted`)."""
    salt = SALT.get()
    text = f"{key}|salt:{salt}" if salt else key
    return random.Random(int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big"))


__all__ = ["SALT", "history_key", "salted", "seeded"]
