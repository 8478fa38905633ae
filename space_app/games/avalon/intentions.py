"""The Avalon intention catalogue: what a player may mean to do when it speaks.

Seven categories (interrogation, defence, confrontation, concealment, deception,
persuasion, teamwork), each intention one short sentence with a stable id ("I7"), the
roles it suits and the situations it fits. The data lives in `intentions.json` beside
this module; the SDK's `AvalonIntentionAgent` selects from it and the arena's Avalon game
quizzes players on it, so both read the same file through `load_catalogue`.

A *situation* is what a seat can tell from the public record when it speaks (is it the
leader, is it on the proposed team, has a quest failed...). `situation_from` reads it
from the game's events, so an agent (from its history, read as events) and the arena's
metrics (from stored events) compute the same thing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from ...core.events import Event
from .events import Proposal, QuestResult, Revision, VoteResult

DATA = Path(__file__).with_name("intentions.json")

GOOD_ROLES = ("merlin", "percival", "servant")
EVIL_ROLES = ("assassin", "morgana", "mordred", "oberon", "minion")
ROLES = GOOD_ROLES + EVIL_ROLES
# role groups the data file may use instead of listing roles
GROUPS: dict[str, tuple[str, ...]] = {
    "all": ROLES,
    "good": GOOD_ROLES,
    "evil": EVIL_ROLES,
    "known_evil": tuple(r for r in EVIL_ROLES if r != "oberon"),  # evil players who know each other
}
CATEGORIES = ("interrogation", "defence", "confrontation", "concealment", "deception", "persuasion", "teamwork")
SITUATIONS = ("leader", "not_leader", "on_team", "off_team", "after_vote", "after_fail", "after_success", "late")
MAX_SELECTED = 5  # more than this in one statement is not a selection any more
# the public events a situation is read from
SITUATION_EVENTS: tuple[type[Event], ...] = (Proposal, Revision, VoteResult, QuestResult)


@dataclass(frozen=True)
class Intention:
    id: str
    category: str
    text: str
    roles: frozenset[str]
    situations: tuple[str, ...] = ()  # empty: fits at any time
    keywords: tuple[str, ...] = ()  # words that show it being followed (the heuristic judge's cue)

    def suits(self, role: str) -> bool:
        return role in self.roles

    def fits(self, situation: Situation | None) -> bool:
        """Every situation it names holds (None: the situation is unknown, so it fits)."""
        return situation is None or all(situation.holds(s) for s in self.situations)

    def label(self) -> str:
        return f"{self.id}: {self.text}"


@dataclass(frozen=True)
class Catalogue:
    version: str
    categories: tuple[str, ...]
    intentions: tuple[Intention, ...]

    def __len__(self) -> int:
        return len(self.intentions)

    def __contains__(self, intention_id: object) -> bool:
        return isinstance(intention_id, str) and intention_id in self.by_id

    @cached_property
    def by_id(self) -> dict[str, Intention]:
        return {i.id: i for i in self.intentions}

    @property
    def ids(self) -> list[str]:
        return [i.id for i in self.intentions]

    def get(self, intention_id: str) -> Intention | None:
        return self.by_id.get(intention_id)

    def for_role(self, role: str, situation: Situation | None = None) -> list[Intention]:
        """The intentions suiting `role` (every one for an unknown role) that fit the situation."""
        known = role in ROLES
        return [i for i in self.intentions if (i.suits(role) or not known) and i.fits(situation)]

    def texts(self) -> dict[str, str]:
        return {i.id: i.text for i in self.intentions}


# -- loading -----------------------------------------------------------------------------------
def _roles(raw: Any, where: str) -> frozenset[str]:
    if not isinstance(raw, list) or not raw:
        raise ValueError(f"{where}: roles must be a non-empty list")
    out: set[str] = set()
    for name in raw:
        if name in GROUPS:
            out |= set(GROUPS[name])
        elif name in ROLES:
            out.add(name)
        else:
            raise ValueError(f"{where}: unknown role {name!r} (roles: {', '.join(ROLES)}; groups: {', '.join(GROUPS)})")
    return frozenset(out)


def parse_catalogue(data: Mapping[str, Any]) -> Catalogue:
    """A catalogue from its JSON form; a bad entry is refused naming its id and the problem."""
    categories = tuple(data.get("categories") or CATEGORIES)
    seen: set[str] = set()
    intentions = []
    for n, raw in enumerate(data.get("intentions") or [], start=1):
        ident = str(raw.get("id") or "")
        where = f"intention {ident or f'#{n}'}"
        if not ident or ident in seen:
            raise ValueError(f"{where}: the id is missing or used twice")
        if raw.get("category") not in categories:
            raise ValueError(f"{where}: unknown category {raw.get('category')!r}")
        text = str(raw.get("text") or "").strip()
        if not text:
            raise ValueError(f"{where}: the text is empty")
        situations = tuple(raw.get("situations") or ())
        unknown = [s for s in situations if s not in SITUATIONS]
        if unknown:
            raise ValueError(f"{where}: unknown situation(s) {unknown}")
        seen.add(ident)
        intentions.append(Intention(ident, raw["category"], text, _roles(raw.get("roles"), where), situations,
                                    tuple(str(k).casefold() for k in raw.get("keywords") or ())))
    if not intentions:
        raise ValueError("the catalogue has no intentions")
    return Catalogue(str(data.get("version") or "unversioned"), categories, tuple(intentions))


@lru_cache(maxsize=8)
def load_catalogue(path: str | Path | None = None) -> Catalogue:
    """The shipped catalogue (or another file in the same format), read once per process."""
    with open(path or DATA, encoding="utf-8") as f:
        return parse_catalogue(json.load(f))


def catalogue_for(role: str, situation: Situation | None = None) -> list[Intention]:
    """The shipped intentions that suit `role` (and fit `situation`, when given)."""
    return load_catalogue().for_role(role, situation)


# -- what a seat can tell when it speaks ---------------------------------------------------------
@dataclass(frozen=True)
class Situation:
    leader: bool = False
    on_team: bool = False
    voted: bool = False  # a team vote has happened
    failed: bool = False  # a quest has failed
    last_success: bool = False  # the latest quest succeeded
    quest: int = 1

    def holds(self, name: str) -> bool:
        return {
            "leader": self.leader, "not_leader": not self.leader, "on_team": self.on_team,
            "off_team": not self.on_team, "after_vote": self.voted, "after_fail": self.failed,
            "after_success": self.last_success, "late": self.quest >= 3,
        }.get(name, False)


def situation_from(seat: str, events: Iterable[Event]) -> Situation:
    """The situation of `seat` after the events given, in order (any others are passed over):
    Avalon's proposals, revisions, vote results and quest results."""
    leader, team, voted, failed, last_success, quest = "", [], False, False, False, 1
    for e in events:
        if isinstance(e, Proposal):
            leader, team = e.leader, list(e.team)
            quest = e.quest or quest
        elif isinstance(e, Revision):
            team = list(e.team or team)
        elif isinstance(e, VoteResult):
            voted = True
        elif isinstance(e, QuestResult):
            failed, last_success = failed or not e.success, e.success
    return Situation(leader=seat == leader, on_team=seat in team, voted=voted, failed=failed,
                     last_success=last_success, quest=quest)


def selected_ids(notes: Mapping[str, Any] | None, catalogue: Catalogue | None = None) -> list[str]:
    """The intentions a statement's notes say were followed in the end: `modified` when the
    agent changed its mind, else `intentions`; only catalogue ids, in order, at most
    MAX_SELECTED (notes come from any agent, so they are read defensively)."""
    catalogue = catalogue or load_catalogue()
    if not isinstance(notes, Mapping):
        return []
    for key in ("modified", "intentions"):
        raw = notes.get(key)
        out: list[str] = []
        for item in raw if isinstance(raw, list) else []:
            if isinstance(item, str) and item in catalogue and item not in out:
                out.append(item)
        if out:
            return out[:MAX_SELECTED]
    return []


__all__ = [
    "CATEGORIES", "EVIL_ROLES", "GOOD_ROLES", "GROUPS", "ROLES", "SITUATIONS", "SITUATION_EVENTS", "Catalogue",
    "Intention", "Situation", "catalogue_for", "load_catalogue", "parse_catalogue", "selected_ids", "situation_from",
]
