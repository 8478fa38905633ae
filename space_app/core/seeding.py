"""Randomness for house agents that keep no state: each draws from a generator seeded by what its
seat has seen (never the match id or a clock), so the same game seed with house agents replays
the same match. A game chooses what its key holds; the hashing is shared."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable

from sdk.observation import Observation


def history_key(obs: Observation, skip: Iterable[str] = ()) -> str:
    """The seat's history as one string (less the event kinds in `skip`)."""
    left_out = frozenset(skip)
    return "\n".join(f"{h.who}|{h.kind}|{h.round}|{h.text}" for h in obs.history if h.kind not in left_out)


def seeded(key: str) -> random.Random:
    """A generator seeded by a stable hash of `key` (Python's own string hash changes per process)."""
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


__all__ = ["history_key", "seeded"]
