"""Reference answerers for any suite: a chance baseline (so a table always has the floor
to compare with) and a lexical one (shared words between context and option)."""

from __future__ import annotations

import hashlib
import re

from sdk import Agent, Observation


class GuessAgent(Agent):
    """Picks one option uniformly, seeded by the question (the same answer every run)."""

    name = "house:guess"
    description = "Chance baseline: one option at random, the same for the same question."
    games = ()  # none named: every suite's label (a chance floor fits any closed question)

    def answer(self, obs: Observation) -> str:
        if not obs.options:
            return "I don't know."
        digest = hashlib.sha256(f"{obs.match_id}|{obs.instruction}".encode()).digest()
        return obs.options[digest[0] % len(obs.options)]



_WORD = re.compile(r"[a-z]+")
# words that say nothing about which option is meant
_STOP = frozenset("a an the and or of to in on for is are was were i you we it that this my me be as at by with "
                  "not no from their they them who whom what which one each".split())


def _stems(text: str) -> set[str]:
    # the first five letters: "trusted"/"trust", "votes"/"voted" meet
    return {w[:5] for w in _WORD.findall(text.casefold()) if w not in _STOP and len(w) > 2}


class OverlapAgent(Agent):
    """Picks the option that shares the most words with the context (ties: the first), a
    lexical baseline: it reads no meaning, only shared words."""

    name = "house:overlap"
    description = "Lexical baseline: the option sharing the most words with the context (no model)."
    games = ()  # every suite's label

    def answer(self, obs: Observation) -> str:
        if not obs.options:
            return "I don't know."
        context = _stems(" ".join(d.text for d in obs.private.documents))
        scores = [len(_stems(obs.option_texts.get(o, o)) & context) for o in obs.options]
        return obs.options[scores.index(max(scores))]


__all__ = ["GuessAgent", "OverlapAgent"]
