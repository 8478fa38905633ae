"""What a seat can infer in Avalon, from its observation alone (the house agents keep no
state): the public record read back from the history's structured data, and a
distribution over which seats are evil, consistent with everything the seat knows.

The evil seats are enumerated outright (at most C(10, 4) = 210 sets). Hard facts prune
them: a seat's own knowledge, and a quest with f Fail cards holding at least f evil
players. Soft evidence weighs them with a simple play model: evil players tend to
approve teams that can fail and to fail quests they are on; good ones tend to approve
clean teams. Sets are bit masks, so a weight is a handful of popcounts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations

from sdk.observation import Observation

from . import events as ev
from .table import (
    EVIL,
    MAX_PROPOSALS,
    MERLIN,
    MORGANA,
    PERCIVAL,
    SIDES,
    default_roles,
    fails_needed,
    team_size,
)

# the play model behind the soft evidence (probabilities, not rules)
EVIL_APPROVES_BAD, EVIL_APPROVES_CLEAN = 0.85, 0.35
GOOD_APPROVES_BAD, GOOD_APPROVES_CLEAN = 0.4, 0.6
EVIL_PASSES_QUEST = 0.25  # an evil member lets a quest succeed
EVIL_LEADER_CLEAN_TEAM = 0.4  # an evil leader proposes a team without enough evil to fail


@dataclass(frozen=True)
class TeamVote:
    quest: int
    attempt: int
    leader: str
    team: tuple[str, ...]
    grid: tuple[tuple[str, str], ...]  # (seat, "approve"|"reject") in seat order
    approved: bool
    auto: bool = False


@dataclass(frozen=True)
class QuestResult:
    quest: int
    team: tuple[str, ...]
    fails: int
    success: bool


@dataclass
class Record:
    """The public record of a game so far, from one observation's history."""

    seats: list[str]
    roles_in_play: list[str]
    quest: int = 1
    attempt: int = 1
    leader: str = ""
    team: list[str] = field(default_factory=list)  # the team on the table
    votes: list[TeamVote] = field(default_factory=list)
    quests: list[QuestResult] = field(default_factory=list)
    revealed_evil: list[str] = field(default_factory=list)  # after the evil conference's reveal

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def evil_count(self) -> int:
        return SIDES[self.players][1]

    @property
    def size(self) -> int:
        return team_size(self.players, self.quest)

    @property
    def needed(self) -> int:
        return fails_needed(self.players, self.quest)

    def wins(self) -> tuple[int, int]:
        good = sum(q.success for q in self.quests)
        return good, len(self.quests) - good


def read_record(obs: Observation) -> Record:
    seats = list(obs.seats)
    record = Record(seats=seats, roles_in_play=default_roles(len(seats)), quest=obs.round or 1)
    for item in obs.history:
        e = ev.KINDS.from_history(item)
        if isinstance(e, ev.Start):
            record.roles_in_play = list(e.roles_in_play or record.roles_in_play)
        elif isinstance(e, ev.QuestStart):
            record.quest, record.attempt = e.quest, 1
            record.leader = e.leader or record.leader
        elif isinstance(e, ev.Proposal):
            record.attempt = e.attempt
            record.leader, record.team = e.leader, list(e.team)
        elif isinstance(e, ev.Revision):
            record.team = list(e.team or record.team)
        elif isinstance(e, ev.VoteResult):
            record.votes.append(TeamVote(
                quest=e.quest, attempt=e.attempt, leader=e.leader, team=tuple(e.team),
                grid=tuple((s, e.grid[s]) for s in seats if s in e.grid), approved=e.approved, auto=e.auto))
        elif isinstance(e, ev.QuestResult):
            record.quests.append(QuestResult(quest=e.quest, team=tuple(e.team), fails=e.fails, success=e.success))
        elif isinstance(e, ev.EvilReveal):
            record.revealed_evil = list(e.evil)
    return record


# -- what a seat knows for certain -------------------------------------------------------
@dataclass(frozen=True)
class Knowledge:
    """Hard constraints on the evil set: these seats are good / evil, and in each group
    exactly one seat is evil (Percival's two candidates when Morgana plays)."""

    good: frozenset[str] = frozenset()
    evil: frozenset[str] = frozenset()
    one_evil_in: tuple[frozenset[str], ...] = ()


def knowledge_of(obs: Observation, record: Record) -> Knowledge:
    """What this seat's private facts say (nothing beyond its own side for a servant)."""
    facts = obs.private.facts
    role, me = str(facts.get("role", "")), obs.you
    if record.revealed_evil:  # after the reveal every evil seat knows the whole team
        if me in record.revealed_evil:
            return Knowledge(evil=frozenset(record.revealed_evil))
    if facts.get("side") == EVIL:
        return Knowledge(evil=frozenset([me, *facts.get("evil_team", [])]))
    good = {me}
    evil: set[str] = set()
    groups: list[frozenset[str]] = []
    if role == MERLIN:
        evil |= set(facts.get("known_evil", []))
    elif role == PERCIVAL:
        candidates = list(facts.get("merlin_candidates", []))
        if len(candidates) == 2 and MORGANA in record.roles_in_play:
            groups.append(frozenset(candidates))
        else:
            good |= set(candidates)
    return Knowledge(good=frozenset(good), evil=frozenset(evil), one_evil_in=tuple(groups))


# -- the belief: evil sets and their weights ----------------------------------------------
@dataclass(frozen=True)
class Belief:
    seats: tuple[str, ...]
    sets: tuple[int, ...]  # bit masks over seats (bit i = seats[i] is evil)
    weights: tuple[float, ...]  # normalised

    def mask(self, team: list[str] | tuple[str, ...]) -> int:
        return sum(1 << self.seats.index(s) for s in team if s in self.seats)

    def p_evil(self) -> dict[str, float]:
        out = {s: 0.0 for s in self.seats}
        for m, w in zip(self.sets, self.weights, strict=True):
            for i, s in enumerate(self.seats):
                if m >> i & 1:
                    out[s] += w
        return out

    def p_fails(self, team: list[str] | tuple[str, ...], needed: int) -> float:
        """Probability that the team holds enough evil players to fail its quest."""
        return self.p_fails_mask(self.mask(team), needed)

    def p_fails_mask(self, team: int, needed: int) -> float:
        if needed == 1:
            return sum(w for m, w in zip(self.sets, self.weights, strict=True) if m & team)
        return sum(w for m, w in zip(self.sets, self.weights, strict=True) if (m & team).bit_count() >= needed)


def _constraints_ok(mask: int, seats: tuple[str, ...], know: Knowledge) -> bool:
    bit = {s: 1 << i for i, s in enumerate(seats)}
    if any(mask & bit[s] for s in know.good if s in bit):
        return False
    if any(not mask & bit[s] for s in know.evil if s in bit):
        return False
    return all(sum(1 for s in g if s in bit and mask & bit[s]) == 1 for g in know.one_evil_in)


@lru_cache(maxsize=512)
def _sets(seats: tuple[str, ...], k: int, know: Knowledge) -> tuple[int, ...]:
    out = []
    for combo in combinations(range(len(seats)), k):
        mask = sum(1 << i for i in combo)
        if _constraints_ok(mask, seats, know):
            out.append(mask)
    if not out:  # contradictory facts (a garbled observation): fall back to no knowledge
        out = [sum(1 << i for i in combo) for combo in combinations(range(len(seats)), k)]
    return tuple(out)


def _evidence(record: Record) -> tuple[tuple, ...]:
    """The record as hashable evidence items, in the order they happened."""
    seats = record.seats
    bit = {s: 1 << i for i, s in enumerate(seats)}
    items: list[tuple] = []
    by_quest: dict[int, list[TeamVote]] = {}
    for v in record.votes:
        by_quest.setdefault(v.quest, []).append(v)
    for quest in sorted(set(by_quest) | {q.quest for q in record.quests}):
        needed = fails_needed(len(seats), quest)
        for v in by_quest.get(quest, []):
            team = sum(bit.get(s, 0) for s in v.team)
            items.append(("lead", bit.get(v.leader, 0), team, needed))
            if not v.auto and v.attempt < MAX_PROPOSALS:  # everyone approves a last proposal
                approvers = sum(bit.get(s, 0) for s, x in v.grid if x == "approve")
                voters = sum(bit.get(s, 0) for s, _ in v.grid)
                items.append(("vote", team, needed, approvers, voters))
        for q in record.quests:
            if q.quest == quest:
                items.append(("quest", sum(bit.get(s, 0) for s in q.team), q.fails))
    return tuple(items)


def _factor(mask: int, item: tuple) -> float:
    tag = item[0]
    if tag == "quest":
        _, team, fails = item
        m = (mask & team).bit_count()
        if m < fails:
            return 0.0  # good players cannot play Fail
        return EVIL_PASSES_QUEST ** m if fails == 0 else 1.0
    if tag == "lead":
        _, leader, team, needed = item
        if mask & leader and (mask & team).bit_count() < needed:
            return EVIL_LEADER_CLEAN_TEAM
        return 1.0
    _, team, needed, approvers, voters = item
    bad = (mask & team).bit_count() >= needed
    pe = EVIL_APPROVES_BAD if bad else EVIL_APPROVES_CLEAN
    pg = GOOD_APPROVES_BAD if bad else GOOD_APPROVES_CLEAN
    ea = (mask & approvers).bit_count()
    er = (mask & voters & ~approvers).bit_count()
    ga = (approvers & ~mask).bit_count()
    gr = (voters & ~approvers & ~mask).bit_count()
    return pe ** ea * (1 - pe) ** er * pg ** ga * (1 - pg) ** gr


def _normalised(seats: tuple[str, ...], sets: tuple[int, ...], logs: list[float]) -> Belief:
    top = max(logs)
    if top == -math.inf:  # nothing fits (a garbled observation): every set alike
        return Belief(seats, sets, tuple(1.0 / len(sets) for _ in sets))
    weights = [math.exp(x - top) for x in logs]  # in log space: 40 votes of 10 voters underflow
    total = sum(weights)
    return Belief(seats, sets, tuple(w / total for w in weights))


def _log(x: float) -> float:
    return math.log(x) if x > 0 else -math.inf


@lru_cache(maxsize=2048)  # bounded: at most ~15 MB of weights, shared by all matches
def _logs(seats: tuple[str, ...], k: int, know: Knowledge, evidence: tuple[tuple, ...]) -> tuple[float, ...]:
    """Log weights of the evil sets; cached by prefix, so a new vote costs one pass."""
    sets = _sets(seats, k, know)
    if not evidence:
        return (0.0,) * len(sets)
    before = _logs(seats, k, know, evidence[:-1])
    item = evidence[-1]
    return tuple(x if x == -math.inf else x + _log(_factor(m, item)) for m, x in zip(sets, before, strict=True))


@lru_cache(maxsize=512)
def _weigh(seats: tuple[str, ...], k: int, know: Knowledge, evidence: tuple[tuple, ...]) -> Belief:
    return _normalised(seats, _sets(seats, k, know), list(_logs(seats, k, know, evidence)))


def belief(record: Record, know: Knowledge | None = None) -> Belief:
    """The distribution over evil sets given this knowledge (None: a spectator's, i.e. the
    public belief) and the whole record."""
    return _weigh(tuple(record.seats), record.evil_count, know or Knowledge(), _evidence(record))


def beliefs_along(record: Record, know: Knowledge | None = None) -> list[tuple[tuple, Belief]]:
    """Each evidence item with the belief held just before it."""
    seats, know = tuple(record.seats), know or Knowledge()
    evidence = _evidence(record)
    return [(item, _weigh(seats, record.evil_count, know, evidence[:i])) for i, item in enumerate(evidence)]
