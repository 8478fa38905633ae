"""Reference answerers for any suite: a chance baseline (so a table always has the floor
to compare with)."""

from __future__ import annotations

import hashlib

from sdk import Agent, Observation


class GuessAgent(Agent):
    """Picks one option uniformly, seeded by the question (the same answer every run)."""

    name = "house:guess"
    description = "Chance baseline: one option at random, the same for the same question."
    games = ("tom",)

    def answer(self, obs: Observation) -> str:
        if not obs.options:
            return "I don't know."
        digest = hashlib.sha256(f"{obs.match_id}|{obs.instruction}".encode()).digest()
        return obs.options[digest[0] % len(obs.options)]


__all__ = ["GuessAgent"]
