"""Short rule-driven statements for the house agents, built from the public record:
whom the speaker trusts, whom it suspects and why, and how it will vote. Merlin never
names a suspect (that would mark him for the Assassin); evil seats talk like good ones."""

from __future__ import annotations

import random

from sdk.observation import Observation

from .beliefs import Knowledge, Record, belief, knowledge_of
from .strategy import is_evil, merlin_guess, role, team_vote
from .table import MERLIN

GENERIC = [
    "I have no strong read yet; let us watch the votes.",
    "Hard to say so far. I will follow the quest results.",
    "Nothing stands out to me yet.",
    "I am keeping an open mind for now.",
    "Let us see who approves what before we judge.",
]


def _why(record: Record, seat: str) -> str:
    failed = [q.quest for q in record.quests if not q.success and seat in q.team]
    if failed:
        return f"they were on failed quest {failed[-1]}"
    backed = [v for v in record.votes for q in record.quests
              if v.approved and q.quest == v.quest and not q.success and (seat, "approve") in v.grid]
    if backed:
        return f"they approved the team of failed quest {backed[-1].quest}"
    return "their votes do not add up"


def discussion(obs: Observation, record: Record, rng: random.Random) -> str:
    me = obs.you
    evil = is_evil(obs)
    # evil seats speak from the view a good player in their seat would have
    know = Knowledge(good=frozenset([me])) if evil else knowledge_of(obs, record)
    b = belief(record, know)
    p = b.p_evil()
    hide = knowledge_of(obs, record).evil if evil else frozenset()
    others = [s for s in record.seats if s != me]
    base = record.evil_count / max(1, len(others))
    ranked = sorted(others, key=lambda s: (p[s], rng.random()))
    trusted = [s for s in ranked if s not in hide and not (role(obs) == MERLIN and s in know.evil)][:2]
    parts: list[str] = []
    if not record.quests and not record.votes:
        parts.append(rng.choice(GENERIC))
    elif trusted:
        parts.append(f"I trust {' and '.join(trusted)} most so far.")
    suspect = next((s for s in reversed(ranked) if s not in hide), None)
    if role(obs) != MERLIN and suspect and p[suspect] > base + 0.15:
        parts.append(f"I suspect {suspect}: {_why(record, suspect)}.")
    if record.team:  # "this team", not its names: Merlin must not list an evil player
        approve = team_vote(obs, record, rng)
        parts.append("I will approve this team." if approve else "I am not happy with this team.")
    return " ".join(parts) or rng.choice(GENERIC)


def conference(obs: Observation, record: Record, rng: random.Random) -> str:
    guess = merlin_guess(obs, record, rng)
    return f"My guess for Merlin is {guess}: their votes and teams tracked the truth best."
