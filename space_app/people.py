"""A person in a seat, as the records and leaderboards count them.

Each person gets their own leaderboard row, under an id no agent can have (`person:<name>`):
on a Space, the name a visitor signed in with (a typed nickname proves nothing there, so
anyone not signed in joins the anonymous pool); on a developer's own machine, the nickname
typed in. Everyone else, and everyone without a name, plays as `human`, the anonymous pool.
"""

from __future__ import annotations

import re

from .safe_text import clean_name

ANONYMOUS = "human"  # the pool of people without a name of their own
PREFIX = "person:"
NAME_LIMIT = 24
_NOT_IN_ID = re.compile(r"[^\w.-]+")  # letters and digits of any script stay


def person_id(username: str | None, nickname: str, on_space: bool) -> str:
    """The agent id a person's seat is recorded under: `person:<signed-in name>` on a Space,
    `person:<nickname>` locally, else the anonymous pool."""
    name = username if on_space else (username or nickname)
    slug = _NOT_IN_ID.sub("-", clean_name(name, NAME_LIMIT).lower()).strip("-.")
    return f"{PREFIX}{slug}" if slug else ANONYMOUS


def is_person(agent_id: str) -> bool:
    """A person's id has no `/`, which every registered agent's id has (`owner/name-…`)."""
    return agent_id == ANONYMOUS or (agent_id.startswith(PREFIX) and "/" not in agent_id)


__all__ = ["ANONYMOUS", "NAME_LIMIT", "PREFIX", "is_person", "person_id"]
