"""Which options an observer can still hold true, given the facts of some modalities.

The observer knows how people behave (the policy below) and enumerates every hidden state —
the speaker's belief (one of the room's containers), her goal (help, hinder, indifferent),
what she said (a container, or nothing), the listener's belief of her goal and where he looked
first (a container, or nowhere) — and keeps the states that agree with the policy, with every
fact it perceives and with the question's condition. An option survives when some kept state
makes it true. The generator's modality check (`check`) asks this of the text alone, the video
alone and both: exactly one option with both, two or more with either alone.

The policy:
- a helper tells the listener where she believes the object is; a hinderer names another
  container; an indifferent speaker volunteers nothing;
- someone who opened a container and found it empty does not believe the object is there;
  someone who put the object in a container believes it is there;
- a listener who thinks she helps looks first where she said; one who thinks she hinders
  looks first somewhere else; one who thinks she is indifferent does not act on what she said.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from .episode import (
    BELIEF,
    BELIEF_OF_GOAL,
    FINDS_EMPTY,
    GOALS,
    HELP,
    HINDER,
    INDIFFERENT,
    PUTS,
    SAYS,
    SEARCHES,
    SOCIAL_GOAL,
    TEXT,
    VIDEO,
    Episode,
    Fact,
)

BOTH = frozenset({TEXT, VIDEO})
TEXT_ONLY = frozenset({TEXT})
VIDEO_ONLY = frozenset({VIDEO})


@dataclass(frozen=True)
class State:
    belief: str
    goal: str
    said: str | None
    believed_goal: str
    looked: str | None


@dataclass(frozen=True)
class Option:
    """A proposition about the hidden state: `field` has `value` (e.g. belief = "fridge")."""

    field: str
    value: str


def _policy(s: State) -> bool:
    if s.goal == HELP and s.said != s.belief:
        return False
    if s.goal == HINDER and (s.said is None or s.said == s.belief):
        return False
    if s.goal == INDIFFERENT and s.said is not None:
        return False
    if s.said is None:
        return True  # nothing said: nothing to react to
    if s.believed_goal == HELP:
        return s.looked == s.said
    if s.believed_goal == HINDER:
        return s.looked is not None and s.looked != s.said
    return s.looked is None


def _agrees(s: State, fact: Fact) -> bool:
    if fact.kind == FINDS_EMPTY:
        return s.belief != fact.container
    if fact.kind == PUTS:
        return s.belief == fact.container
    if fact.kind == SAYS:
        return s.said == fact.container
    if fact.kind == SEARCHES:
        return s.looked == fact.container
    raise ValueError(f"unknown fact kind {fact.kind!r}")


def states(ep: Episode, facts: tuple[Fact, ...], condition: Option | None = None) -> list[State]:
    return room_states(ep.containers, facts, condition)


def room_states(containers: tuple[str, ...], facts: tuple[Fact, ...], condition: Option | None = None) -> list[State]:
    """Every hidden state over the room's containers that the policy, `facts` and `condition` allow."""
    places: list[str | None] = [*containers, None]
    out = []
    for belief, goal, said, believed, looked in itertools.product(containers, GOALS, places, GOALS, places):
        s = State(belief, goal, said, believed, looked)
        if _policy(s) and all(_agrees(s, f) for f in facts) and (condition is None or holds(s, condition)):
            out.append(s)
    return out


def holds(s: State, option: Option) -> bool:
    return getattr(s, option.field) == option.value


def consistent(ep: Episode, options: list[Option], modalities: frozenset[str],
               condition: Option | None = None) -> list[Option]:
    """The options some state agrees with, seeing only the facts in `modalities`."""
    kept = states(ep, ep.facts_in(modalities), condition)
    return [o for o in options if any(holds(s, o) for s in kept)]


def question_parts(ep: Episode) -> tuple[list[Option], Option | None, Option]:
    """The options (in the episode's container or goal order), the question's condition and the answer."""
    if ep.kind == BELIEF:
        return [Option("belief", c) for c in ep.containers], Option("goal", HINDER), Option("belief", ep.speaker_belief)
    if ep.kind == SOCIAL_GOAL:
        return [Option("goal", g) for g in GOALS], None, Option("goal", ep.speaker_goal)
    if ep.kind == BELIEF_OF_GOAL:
        return [Option("believed_goal", g) for g in GOALS], None, Option("believed_goal", ep.believed_goal)
    raise ValueError(f"unknown question type {ep.kind!r}")


@dataclass(frozen=True)
class Check:
    both: list[Option]
    text: list[Option]
    video: list[Option]
    answer: Option

    @property
    def passed(self) -> bool:
        return self.both == [self.answer] and len(self.text) >= 2 and len(self.video) >= 2

    def why(self) -> str:
        def show(opts: list[Option]) -> str:
            return ", ".join(o.value for o in opts) or "none"
        return (f"consistent with both: {show(self.both)} (answer {self.answer.value}); text only: {show(self.text)}; "
                f"video only: {show(self.video)}")


def check(ep: Episode) -> Check:
    """The modality check: which options survive with both modalities, the text alone, the video alone."""
    options, condition, answer = question_parts(ep)
    return Check(consistent(ep, options, BOTH, condition), consistent(ep, options, TEXT_ONLY, condition),
                 consistent(ep, options, VIDEO_ONLY, condition), answer)


__all__ = ["BOTH", "TEXT_ONLY", "VIDEO_ONLY", "Check", "Option", "State", "check", "consistent", "holds",
           "question_parts", "room_states", "states"]
