"""Household Theory-of-Mind suite: procedurally generated two-person episodes with
multi-agent questions on belief, social goal and belief of goal.

Two people share a small home of rooms and containers. One (the listener) wants an object:
to get it, or to put it somewhere. The other (the speaker) runs an errand of their own and
has a social goal towards her: help, hinder, or independent. A simulator moves them
through the home; beliefs about where things are come only from what each person witnesses,
so a move made while someone is in another room leaves that person with a false belief.
Then they talk: the listener asks, or announces what she is after and the speaker offers
directions. The speaker answers by the rules in `policy` (helpers tell what they believe,
hinderers point elsewhere, the indifferent answer plainly or decline and never volunteer),
and in belief-of-goal episodes the listener reacts (follows, searches elsewhere, thanks,
or turns cold). A narrator renders it as plain English: the question's context.

Three question families, three options each (A/B/C), MOST or LEAST phrasing; exactly one
option fits (MOST) or exactly one does not (LEAST), provably from the simulated events plus
the stated condition (see `questions`):
- belief: "If X was trying to hinder Y ..., which is MOST likely?" -> what X believed;
- social_goal: "Suppose X believed the object was in C ..." -> X's goal towards Y;
- belief_of_goal: "Judging by how Y reacted ..." -> what Y thinks X's goal is.

Public API: `generate_episodes(seed, per_type)` (episodes with their full event record and
ground truth), `generate_suite(seed, per_type)` (the items), `write_suite(path, seed,
per_type)` (the JSON Lines file). The shipped file is `space_app/suites/data/tom_household.jsonl`,
written by `python -m space_app.suites.tom_household --out space_app/suites/data/tom_household.jsonl`.
"""

from __future__ import annotations

from .questions import FAMILIES, Claim, Question
from .scenario import Spec, Staged, Truth
from .sim import Event
from .suite import SUITE, Episode, generate_episodes, generate_suite, serialise, to_item, write_suite

__all__ = [
    "FAMILIES",
    "SUITE",
    "Claim",
    "Episode",
    "Event",
    "Question",
    "Spec",
    "Staged",
    "Truth",
    "generate_episodes",
    "generate_suite",
    "serialise",
    "to_item",
    "write_suite",
]
